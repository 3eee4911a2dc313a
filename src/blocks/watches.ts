// Watches as people see them: the confirmation, the list (paused and muted ones said so), an
// alert's message (its chart, its buttons, and the same message once resolved), its thread's
// follow-ups (the muted notice with its Unmute button), and 'now live' notices.
import type { KnownBlock } from '@slack/types';
import { formatCount } from '../charts/format.js';
import { isAutoRule, ruleTitle } from '../services/watches/watch-chart.js';
import type { WatchAlert } from '../store/watch-alerts.js';
import type { Watch } from '../store/watches.js';
import { zoneLabel } from '../zone-names.js';
import { noticeMessage } from './errors.js';
import { headedList, summarise } from './fit.js';
import { WATCH_IDS } from './ids.js';
import { NO_KEY_REASON } from './logout.js';
import { type Message, message } from './message.js';
import {
  channel,
  clip,
  code,
  MAX_SENTENCE,
  type Mrkdwn,
  md,
  mrkdwn,
  plain,
  slackDate,
  truncate,
  user,
} from './text.js';

/** The rule's name (literal text). */
const title = (alert: WatchAlert) => ruleTitle(alert.rule);

const AUTO_SUMMARY = 'spikes, drops and cache-hit-rate falls against its usual traffic';

/** How many watches a list shows; thresholds a line names. */
const SHOWN = 45;
const SHOWN_RULES = 10;

function rulesLine(watch: Watch): Mrkdwn {
  if (watch.rules.length === 0) return md`${AUTO_SUMMARY}`;
  return md`${AUTO_SUMMARY}, and ${summarise(watch.rules, SHOWN_RULES, code, ', ')}`;
}

/**
 * A watch on one line: zone, channel and rules; paused and why (its CDN account has no key: its
 * own `keyed`, else `keySet`, the login account's key), and the rules muted in its channel.
 */
export function watchLine(
  watch: Watch & { keyed?: boolean },
  options: { keySet?: boolean; muted?: readonly string[] } = {},
): Mrkdwn {
  const paused =
    (watch.keyed ?? options.keySet) === false
      ? md` · :double_vertical_bar: paused: ${NO_KEY_REASON}`
      : watch.pausedReason
        ? md` · :double_vertical_bar: paused: ${watch.pausedReason}`
        : '';
  const muted = options.muted?.length
    ? md` · :no_bell: muted: ${summarise(options.muted, SHOWN_RULES, ruleTitle, ', ')}`
    : '';
  return clip(
    md`*${zoneLabel(watch.zoneName)}* → ${channel(watch.channelId)}: ${rulesLine(watch)}${paused}${muted}`,
    MAX_SENTENCE,
  );
}

export function watchingMessage(
  watch: Watch,
  input: { created: boolean; zoneStatus: string },
): Message {
  const live =
    input.zoneStatus === 'pending'
      ? ' It is still pending: this channel will be told when it goes live.'
      : '';
  const text = md`:eyes: ${channel(watch.channelId)} ${input.created ? 'now watches' : 'watches'} *${zoneLabel(watch.zoneName)}*: ${rulesLine(watch)}.${live} Stop with ${code(`/cdn unwatch ${watch.zoneName}`)}.`;
  return message(md`Watching ${zoneLabel(watch.zoneName)}`, [
    { type: 'section', text: mrkdwn(text) },
  ]);
}

/**
 * `/cdn watch list`: the watches the reader may see, each with an Unmute button where rules are
 * muted, and (`hidden`) how many others are in conversations the reader is not in.
 */
export function watchListMessage(listing: {
  watches: ReadonlyArray<Watch & { muted: readonly string[] }>;
  keySet: boolean;
  hidden?: number;
}): Message {
  const { watches, keySet, hidden = 0 } = listing;
  const blocks = headedList('Watched zones', {
    items: watches,
    shown: SHOWN,
    render: (watch, index) => ({
      type: 'section',
      text: mrkdwn(watchLine(watch, { keySet, muted: watch.muted })),
      ...(watch.muted.length > 0
        ? {
            accessory: {
              type: 'button',
              action_id: `${WATCH_IDS.unmuteListed}_${index}`,
              text: plain('Unmute'),
              value: watch.id,
            },
          }
        : {}),
    }),
    none: {
      type: 'section',
      text: mrkdwn(
        md`None yet. Watch one with \`/cdn watch <zone> [requests>50k/5m] [hitrate<80%]\`.`,
      ),
    },
    hidden,
    what: '(the App Home lists them too)',
  });
  return message(md`${watches.length} watch${watches.length === 1 ? '' : 'es'}`, blocks);
}

export function unwatchedMessage(watch: Watch): Message {
  return noticeMessage(
    md`${channel(watch.channelId)} no longer watches *${zoneLabel(watch.zoneName)}*.`,
    ':white_check_mark:',
  );
}

/** 'shop.example.dev is active: the CNAME is in place and the edge is serving it'. */
export function zoneLiveText(watch: Watch, status: 'active' | 'deleted'): Mrkdwn {
  return status === 'active'
    ? md`:large_green_circle: *${zoneLabel(watch.zoneName)}* is active: the CNAME is in place and the edge is serving it.`
    : md`:red_circle: *${zoneLabel(watch.zoneName)}* was deleted: this channel's alerts for it have stopped.`;
}

function value(alert: WatchAlert): Mrkdwn {
  const seen = Number(alert.detail.value ?? 0);
  const bound = Number(alert.detail.bound ?? 0);
  if (alert.rule === 'hitrate_fall' || alert.rule.startsWith('hitrate'))
    return md`cache hit rate *${(seen * 100).toFixed(1)}%* (bound ${(bound * 100).toFixed(0)}%)`;
  if (alert.rule === 'spike' || alert.rule === 'drop')
    return md`*${formatCount(seen)}* requests a minute, usually ${formatCount(Number(alert.detail.median ?? 0))}`;
  return md`*${formatCount(seen)}* against ${code(alert.rule)}`;
}

/** The alert's one-line summary: the message's text and its notification. */
export function alertText(alert: WatchAlert): Mrkdwn {
  const state = alert.status === 'resolved' ? 'Resolved' : 'Alert';
  return md`${state}: ${zoneLabel(alert.zoneName)} · ${title(alert)}`;
}

/**
 * The alert's message: what fired and since when, its chart (an uploaded file) when there is one,
 * and its buttons while it fires; resolved, the same message says so and loses its buttons.
 */
export function alertMessage(alert: WatchAlert, chartFileId?: string): Message {
  const resolved = alert.status === 'resolved';
  const head = resolved
    ? md`:white_check_mark: *Resolved* · *${zoneLabel(alert.zoneName)}* · ${title(alert)}`
    : md`:rotating_light: *${zoneLabel(alert.zoneName)}* · ${title(alert)}`;
  const when = resolved
    ? md`from ${slackDate(alert.startedAt, '{time}')} to ${slackDate(alert.resolvedAt ?? alert.startedAt, '{time}')}`
    : md`since ${slackDate(alert.startedAt, '{time}')}`;
  const blocks: KnownBlock[] = [
    { type: 'section', text: mrkdwn(md`${head}\n${value(alert)} ${when}`) },
  ];
  if (chartFileId)
    blocks.push({
      type: 'image',
      block_id: WATCH_IDS.chartBlock,
      slack_file: { id: chartFileId },
      alt_text: truncate(
        `${zoneLabel(alert.zoneName)} traffic over the last hours, the alert's window shaded`,
        2000,
      ),
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
  return message(alertText(alert), blocks);
}

export function alertResolvedText(alert: WatchAlert): Mrkdwn {
  return md`:white_check_mark: Resolved: back within bounds at ${slackDate(alert.resolvedAt ?? alert.startedAt, '{time}')}.`;
}

export function alertSnoozedText(userId: string, until: number): Mrkdwn {
  return md`:zzz: ${user(userId)} snoozed this alert until ${slackDate(until, '{time}')}.`;
}

export function alertMutedText(alert: WatchAlert, userId: string): Mrkdwn {
  return md`:no_bell: ${user(userId)} muted ${title(alert)} alerts of *${zoneLabel(alert.zoneName)}* in this channel. Unmute them here, or from \`/cdn watch list\`.`;
}

/**
 * A follow-up said by DM because the alert's channel refuses the bot (removed, archived): which
 * alert it is about comes first, since the DM has no thread to say it. `blocks`: the follow-up's
 * own (else its text in a section).
 */
export function alertFollowUpByDm(
  alert: WatchAlert,
  followUp: Mrkdwn,
  blocks?: KnownBlock[],
): Message {
  const about = md`About the ${title(alert)} alert of *${zoneLabel(alert.zoneName)}* in ${channel(alert.channelId)} (I can no longer post there):`;
  return message(md`${about} ${followUp}`, [
    { type: 'context', elements: [mrkdwn(about)] },
    ...(blocks ?? [{ type: 'section', text: mrkdwn(followUp) }]),
  ]);
}

/** The muted notice in the alert's thread, with its Unmute button. */
export function alertMutedMessage(alert: WatchAlert, userId: string): Message {
  const text = alertMutedText(alert, userId);
  return message(text, [
    {
      type: 'section',
      text: mrkdwn(text),
      accessory: {
        type: 'button',
        action_id: WATCH_IDS.unmute,
        text: plain('Unmute'),
        value: alert.id,
      },
    },
  ]);
}

/** The muted notice once unmuted (it replaces it); `already`: someone unmuted it before. */
export function alertUnmutedMessage(alert: WatchAlert, userId: string, already = false): Message {
  return noticeMessage(
    already
      ? md`${title(alert)} alerts of *${zoneLabel(alert.zoneName)}* are not muted in this channel.`
      : md`${user(userId)} unmuted ${title(alert)} alerts of *${zoneLabel(alert.zoneName)}* in this channel: the next breach alerts again.`,
    ':bell:',
  );
}

export function alertRateLimitedText(alert: WatchAlert, userId: string): Mrkdwn {
  return md`:shield: ${user(userId)} turned rate limiting on for *${zoneLabel(alert.zoneName)}* (reaches every edge within 30 s).`;
}

export function alertRateLimitAlreadyText(userId: string, done = true): Mrkdwn {
  return done
    ? md`Rate limiting was already turned on from this alert by ${user(userId)}.`
    : md`${user(userId)} is turning rate limiting on from this alert right now.`;
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
        // A button's value takes 2,000 characters; a domain has at most 253.
        value: truncate(zoneName, 2000),
      },
    ],
  };
}
