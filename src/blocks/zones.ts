// The zone list: compact, paged with buttons that update the message in place.
import type {
  ActionsBlock,
  Button,
  ExternalSelect,
  KnownBlock,
  PlainTextOption,
} from '@slack/types';
import type { ZonePage } from '../cdn/client.js';
import type { Zone } from '../cdn/schemas.js';
import { ZONE_PICKER_IDS, ZONES_IDS } from './ids.js';
import type { Message } from './message.js';
import { code, escapeMrkdwn, mrkdwn, plain, slackDate, truncate } from './text.js';

const STATUS_EMOJI: Record<string, string> = {
  active: ':large_green_circle:',
  pending: ':large_yellow_circle:',
  deleted: ':white_circle:',
};

/** What a pager button carries, so the next page needs no server-side state. */
export interface ZonesPagerValue {
  status?: string;
  page: number;
}

export function statusLabel(status: string): string {
  return `${STATUS_EMOJI[status] ?? ':grey_question:'} ${escapeMrkdwn(status)}`;
}

function createdLabel(createdAt: string): string {
  const ms = Date.parse(createdAt);
  return Number.isNaN(ms) ? escapeMrkdwn(createdAt) : slackDate(ms, '{date_short_pretty}');
}

function zoneLine(zone: Zone): string {
  return `*${escapeMrkdwn(zone.name)}*  ${statusLabel(zone.status)}\n${code(zone.id)} · created ${createdLabel(zone.createdAt)}`;
}

export function zonesMessage(page: ZonePage, status?: string): Message {
  const shownStatus = status === undefined ? undefined : escapeMrkdwn(status);
  const filter = status ? ` · ${status}` : '';
  const lastPage = page.zones.length === 0 ? page.page : page.pages;
  const summary =
    page.total === 0
      ? `No ${shownStatus ? `${shownStatus} ` : ''}zones yet.`
      : `${page.total} ${shownStatus ? `${shownStatus} ` : ''}zone${page.total === 1 ? '' : 's'} · page ${page.page} of ${lastPage}`;
  const blocks: KnownBlock[] = [
    { type: 'header', text: plain(`Zones${filter}`) },
    { type: 'context', elements: [mrkdwn(summary)] },
    ...page.zones.map(
      (zone, index): KnownBlock => ({
        type: 'section',
        text: mrkdwn(zoneLine(zone)),
        // Deleted zones have no traffic to chart.
        ...(zone.status === 'deleted'
          ? {}
          : {
              accessory: {
                type: 'button',
                text: plain('Analytics'),
                action_id: `${ZONES_IDS.analytics}_${index}`,
                value: zone.id,
              },
            }),
      }),
    ),
  ];
  if (page.zones.length === 0 && page.total > 0) {
    blocks.push({
      type: 'section',
      text: mrkdwn(`Page ${page.page} is past the last page (${page.pages}).`),
    });
  }
  const buttons: Button[] = [];
  const pager = (text: string, actionId: string, target: number): Button => ({
    type: 'button',
    text: plain(text),
    action_id: actionId,
    value: JSON.stringify({
      ...(status ? { status } : {}),
      page: target,
    } satisfies ZonesPagerValue),
  });
  if (page.page > 1)
    buttons.push(pager('◀ Previous', ZONES_IDS.previous, Math.min(page.page - 1, page.pages)));
  if (page.page < page.pages) buttons.push(pager('Next ▶', ZONES_IDS.next, page.page + 1));
  if (buttons.length > 0) {
    blocks.push({
      type: 'actions',
      block_id: ZONES_IDS.pagerBlock,
      elements: buttons,
    } satisfies ActionsBlock);
  }
  const names = page.zones.map((zone) => escapeMrkdwn(zone.name)).join(', ');
  return { text: truncate(`${summary}${names ? `: ${names}` : ''}`, 3000), blocks };
}

/** A zone as a picker option: its name and status, its id as the value. */
export function zoneOption(zone: Zone): PlainTextOption {
  return { text: plain(truncate(`${zone.name} (${zone.status})`, 75)), value: zone.id };
}

export function zoneOptions(zones: Zone[]): PlainTextOption[] {
  return zones.map(zoneOption);
}

/** Every zone picker: type-ahead served by the one options listener (ZONE_PICKER_IDS). */
export function zonePicker(initial?: Zone): ExternalSelect {
  return {
    type: 'external_select',
    action_id: ZONE_PICKER_IDS.action,
    placeholder: plain('Type to search zones'),
    min_query_length: 0,
    ...(initial ? { initial_option: zoneOption(initial) } : {}),
  };
}
