// The zone list: compact, paged with buttons that update the message in place.
import type {
  ActionsBlock,
  Button,
  ExternalSelect,
  KnownBlock,
  PlainTextOption,
} from '@slack/types';
import type { ZonePage } from '../cdn/client.js';
import type { CdnZone, Zone } from '../cdn/schemas.js';
import { zoneLabel } from '../zone-names.js';
import { andMore, summarise } from './fit.js';
import { ZONE_PICKER_IDS, ZONES_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { code, type Mrkdwn, md, mrkdwn, plain, slackDate, truncate } from './text.js';

/** How many zones a message lists (a page is usually smaller). */
const SHOWN = 40;

const STATUS_EMOJI: Record<string, string> = {
  active: ':large_green_circle:',
  pending: ':large_yellow_circle:',
  deleted: ':white_circle:',
};

/** Which zones a list shows: of one status, whose name holds `name` (as typed). */
export interface ZonesFilter {
  status?: string;
  name?: string;
}

/** What a pager button carries, so the next page needs no server-side state. */
export interface ZonesPagerValue extends ZonesFilter {
  page: number;
  /** The CDN account listed: the next page is of the same account. */
  account?: string;
}

export function statusLabel(status: string): Mrkdwn {
  return md`${STATUS_EMOJI[status] ?? ':grey_question:'} ${status}`;
}

function createdLabel(createdAt: string): Mrkdwn | string {
  const ms = Date.parse(createdAt);
  return Number.isNaN(ms) ? createdAt : slackDate(ms, '{date_short_pretty}');
}

function zoneLine(zone: CdnZone): Mrkdwn {
  return md`*${zoneLabel(zone.name)}*  ${statusLabel(zone.status)}\n${code(zone.id)} · created ${createdLabel(zone.createdAt)}`;
}

/** A page of zones; `account` names their CDN account when the workspace has several. */
export function zonesMessage(
  page: ZonePage & { account?: string },
  filter: ZonesFilter = {},
): Message {
  const { status, name } = filter;
  const of = page.account === undefined ? '' : ` in ${page.account}`;
  const header = `Zones${of}${status ? ` · ${status}` : ''}${name ? ` · “${name}”` : ''}`;
  const which = status ? `${status} ` : '';
  const named = name ? md` matching “${truncate(name, 100)}”` : '';
  // The one page count: the summary, the notice past the end and the pager all read it.
  const { pages } = page;
  const past = page.total > 0 && page.page > pages;
  const counted = md`${page.total} ${which}zone${page.total === 1 ? '' : 's'}${named}`;
  const summary =
    page.total === 0
      ? name
        ? md`No ${which}zones${named}.`
        : md`No ${which}zones yet.`
      : past
        ? md`${counted} · ${pages} page${pages === 1 ? '' : 's'}`
        : md`${counted} · page ${page.page} of ${pages}`;
  const shown = page.zones.slice(0, SHOWN);
  const more = andMore(page.zones.length - shown.length, 'on this page');
  const blocks: KnownBlock[] = [
    { type: 'header', text: plain(header, 150) },
    { type: 'context', elements: [mrkdwn(summary)] },
    ...shown.map(
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
                // The zone's account when the list names it (the same id may be in several).
                value: page.account === undefined ? zone.id : `${page.account}/${zone.id}`,
              },
            }),
      }),
    ),
  ];
  if (more) blocks.push({ type: 'context', elements: [mrkdwn(more)] });
  if (past) {
    blocks.push({
      type: 'section',
      text: mrkdwn(md`Page ${page.page} is past the last page (${pages}).`),
    });
  }
  const buttons: Button[] = [];
  const pager = (text: string, actionId: string, target: number): Button => ({
    type: 'button',
    text: plain(text),
    action_id: actionId,
    value: JSON.stringify({
      ...(status ? { status } : {}),
      // A button's value holds 2,000 characters; a typed name has at most 253 (parseZonesArgs).
      ...(name ? { name: name.slice(0, 1_000) } : {}),
      ...(page.account === undefined ? {} : { account: page.account }),
      page: target,
    } satisfies ZonesPagerValue),
  });
  if (page.page > 1)
    buttons.push(pager('◀ Previous', ZONES_IDS.previous, Math.min(page.page - 1, pages)));
  if (page.page < pages) buttons.push(pager('Next ▶', ZONES_IDS.next, page.page + 1));
  if (buttons.length > 0) {
    blocks.push({
      type: 'actions',
      block_id: ZONES_IDS.pagerBlock,
      elements: buttons,
    } satisfies ActionsBlock);
  }
  const names = summarise(page.zones, 10, (zone) => zoneLabel(zone.name), ', ');
  return message(page.zones.length > 0 ? md`${summary}: ${names}` : summary, blocks);
}

/**
 * A zone as a picker option: its name and status; `<account>/<zone>` when several CDN accounts are
 * in play (`labelled`), its value `<account>/<zone id>` then (a name is a slug: no slash), else the
 * id alone, of the one account in play (read back by src/services/accounts/account-lookup.ts
 * `pickedZone`).
 */
export function zoneOption(zone: Zone, labelled = false): PlainTextOption {
  const account = labelled ? zone.accountName : undefined;
  const name = account !== undefined ? `${account}/${zoneLabel(zone.name)}` : zoneLabel(zone.name);
  return {
    text: plain(truncate(`${name} (${zone.status})`, 75)),
    value: account === undefined ? zone.id : `${account}/${zone.id}`,
  };
}

/** The zones a picker offers: at most 100, as Slack takes them. */
export function zoneOptions(zones: Zone[], labelled = false): PlainTextOption[] {
  return zones.slice(0, 100).map((zone) => zoneOption(zone, labelled));
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

/** The zones of every account the person may purge in: at most 100, as Slack takes them. */
export function purgeZoneOptions(zones: Zone[], labelled: boolean): PlainTextOption[] {
  return zoneOptions(zones, labelled);
}

/** The purge form's zone picker: its own options listener (ZONE_PICKER_IDS.purge). */
export function purgeZonePicker(initial?: Zone, labelled = false): ExternalSelect {
  return {
    type: 'external_select',
    action_id: ZONE_PICKER_IDS.purge,
    placeholder: plain('Type to search zones'),
    min_query_length: 0,
    ...(initial ? { initial_option: zoneOption(initial, labelled) } : {}),
  };
}
