// Watches as people see them: the confirmation, the list, an alert's message (its chart, its
// buttons, and the same message once resolved), its thread's follow-ups, and 'now live' notices.
import type { KnownBlock } from '@slack/types';
import { formatCount } from '../charts/format.js';
import { isAutoRule, ruleTitle } from '../services/watch-evaluation.js';
import type { Watch, WatchAlert } from '../store/watches.js';
import { noticeMessage } from './errors.js';
import { WATCH_IDS } from './ids.js';
import type { Message } from './message.js';
import { code, escapeMrkdwn, mrkdwn, plain, slackDate, user } from './text.js';

/** The rule's name, as mrkdwn. */
const title = (alert: WatchAlert) => escapeMrkdwn(ruleTitle(alert.rule));

const AUTO_SUMMARY = 'spikes, drops and cache-hit-rate falls against its usual traffic';

function rulesLine(watch: Watch): string {
  const thresholds = watch.rules.map(code).join(', ');
  return thresholds ? `${AUTO_SUMMARY}, and ${thresholds}` : AUTO_SUMMARY;
}

export function watchLine(watch: Watch): string {
  return `*${escapeMrkdwn(watch.zoneName)}* → <#${watch.channelId}>: ${rulesLine(watch)}`;
}

export function watchingMessage(
  watch: Watch,
  input: { created: boolean; zoneStatus: string },
): Message {
  const live =
    input.zoneStatus === 'pending'
      ? ' It is still pending: this channel will be told when it goes live.'
      : '';
  const text = `:eyes: <#${watch.channelId}> ${input.created ? 'now watches' : 'watches'} *${escapeMrkdwn(watch.zoneName)}*: ${rulesLine(watch)}.${live} Stop with \`/cdn unwatch ${escapeMrkdwn(watch.zoneName)}\`.`;
  return {
    text: `Watching ${escapeMrkdwn(watch.zoneName)}`,
    blocks: [{ type: 'section', text: mrkdwn(text) }],
  };
}

export function watchListMessage(watches: Watch[]): Message {
  const blocks: KnownBlock[] = [{ type: 'header', text: plain('Watched zones') }];
  if (watches.length === 0)
    blocks.push({
      type: 'section',
      text: mrkdwn('None yet. Watch one with `/cdn watch <zone> [requests>50k/5m] [hitrate<80%]`.'),
    });
  for (const watch of watches.slice(0, 45))
    blocks.push({ type: 'section', text: mrkdwn(watchLine(watch)) });
  if (watches.length > 45)
    blocks.push({
      type: 'context',
      elements: [mrkdwn(`…and ${watches.length - 45} more (the App Home lists them all).`)],
    });
  return { text: `${watches.length} watch${watches.length === 1 ? '' : 'es'}`, blocks };
}

export function unwatchedMessage(watch: Watch): Message {
  return noticeMessage(
    `<#${watch.channelId}> no longer watches *${escapeMrkdwn(watch.zoneName)}*.`,
    ':white_check_mark:',
  );
}

/** 'shop.example.dev is active: the CNAME is in place and the edge is serving it'. */
export function zoneLiveText(watch: Watch, status: 'active' | 'deleted'): string {
  return status === 'active'
    ? `:large_green_circle: *${escapeMrkdwn(watch.zoneName)}* is active: the CNAME is in place and the edge is serving it.`
    : `:red_circle: *${escapeMrkdwn(watch.zoneName)}* was deleted: this channel's alerts for it have stopped.`;
}

function value(alert: WatchAlert): string {
  const seen = Number(alert.detail.value ?? 0);
  const bound = Number(alert.detail.bound ?? 0);
  if (alert.rule === 'hitrate_fall' || alert.rule.startsWith('hitrate'))
    return `cache hit rate *${(seen * 100).toFixed(1)}%* (bound ${(bound * 100).toFixed(0)}%)`;
  if (alert.rule === 'spike' || alert.rule === 'drop')
    return `*${formatCount(seen)}* requests a minute, usually ${formatCount(Number(alert.detail.median ?? 0))}`;
  return `*${formatCount(seen)}* against ${code(alert.rule)}`;
}

/** The alert's one-line summary: the message's text and its notification. */
export function alertText(alert: WatchAlert): string {
  const state = alert.status === 'resolved' ? 'Resolved' : 'Alert';
  return `${state}: ${escapeMrkdwn(alert.zoneName)} · ${title(alert)}`;
}

/**
 * The alert's message: what fired and since when, its chart (an uploaded file) when there is one,
 * and its buttons while it fires; resolved, the same message says so and loses its buttons.
 */
export function alertMessage(alert: WatchAlert, chartFileId?: string): Message {
  const resolved = alert.status === 'resolved';
  const head = resolved
    ? `:white_check_mark: *Resolved* · *${escapeMrkdwn(alert.zoneName)}* · ${title(alert)}`
    : `:rotating_light: *${escapeMrkdwn(alert.zoneName)}* · ${title(alert)}`;
  const when = resolved
    ? `from ${slackDate(alert.startedAt, '{time}')} to ${slackDate(alert.resolvedAt ?? alert.startedAt, '{time}')}`
    : `since ${slackDate(alert.startedAt, '{time}')}`;
  const blocks: KnownBlock[] = [
    { type: 'section', text: mrkdwn(`${head}\n${value(alert)} ${when}`) },
  ];
  if (chartFileId)
    blocks.push({
      type: 'image',
      block_id: WATCH_IDS.chartBlock,
      slack_file: { id: chartFileId },
      alt_text: `${alert.zoneName} traffic over the last hours, the alert's window shaded`,
    } as KnownBlock);
  if (!resolved) {
    blocks.push({
      type: 'actions',
      block_id: WATCH_IDS.actionsBlock,
      elements: [
        {
          type: 'button',
          action_id: WATCH_IDS.snooze,
          text: plain('Snooze 1 h'),
          value: alert.id,
        },
        {
          type: 'button',
          action_id: WATCH_IDS.mute,
          text: plain('Mute this alert'),
          value: alert.id,
        },
        ...(alert.rule === 'spike' || (!isAutoRule(alert.rule) && alert.rule.includes('>'))
          ? [
              {
                type: 'button' as const,
                action_id: WATCH_IDS.rateLimit,
                style: 'danger' as const,
                text: plain('Turn rate limiting on'),
                value: alert.id,
              },
            ]
          : []),
      ],
    });
  }
  return { text: alertText(alert), blocks };
}

export function alertResolvedText(alert: WatchAlert): string {
  return `:white_check_mark: Resolved: back within bounds at ${slackDate(alert.resolvedAt ?? alert.startedAt, '{time}')}.`;
}

export function alertSnoozedText(userId: string, until: number): string {
  return `:zzz: ${user(userId)} snoozed this alert until ${slackDate(until, '{time}')}.`;
}

export function alertMutedText(alert: WatchAlert, userId: string): string {
  return `:no_bell: ${user(userId)} muted ${title(alert)} alerts of *${escapeMrkdwn(alert.zoneName)}* in this channel. \`/cdn watch ${escapeMrkdwn(alert.zoneName)}\` again does not unmute; \`/cdn unwatch\` then \`/cdn watch\` does.`;
}

export function alertRateLimitedText(alert: WatchAlert, userId: string): string {
  return `:shield: ${user(userId)} turned rate limiting on for *${escapeMrkdwn(alert.zoneName)}* (reaches every edge within 30 s).`;
}

export function alertRateLimitAlreadyText(userId: string, done = true): string {
  return done
    ? `Rate limiting was already turned on from this alert by ${user(userId)}.`
    : `${user(userId)} is turning rate limiting on from this alert right now.`;
}

/** The button under `/cdn create`'s answer. */
export function notifyLiveButton(zoneName: string): KnownBlock {
  return {
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: WATCH_IDS.notifyLive,
        text: plain('Tell this channel when it goes live'),
        value: zoneName,
      },
    ],
  };
}
