// Change freezes in words: declared, listed, removed, started and ended, and the exceptions asked
// during one (with Approve and Deny while pending). Windows are shown in each reader's time zone.
import type { KnownBlock, ModalView } from '@slack/types';
import type { FreezeEvent, ListedFreeze } from '../services/freezes/freezes.js';
import type { FreezeWindow } from '../services/freezes/windows.js';
import type { Freeze, FreezeAction, FreezeException, FreezeRule } from '../store/freezes.js';
import { actorLabel } from './actors.js';
import { summarise } from './fit.js';
import { FREEZE_IDS } from './ids.js';
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
  quote,
  slackDate,
  truncate,
  user,
} from './text.js';

const DAY = ['', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

const ACTION_WORDS: Record<FreezeAction, string> = {
  everything: 'purge everything',
  ratelimit: 'change rate limits',
  create: 'onboard a domain',
  purge: 'purge URLs and tags',
};

/** The rule as declared, in its own time zone. */
export function ruleText(rule: FreezeRule, timeZone: string): Mrkdwn {
  if (rule.kind === 'once')
    return md`${rule.start.replace('T', ' ')} → ${rule.end.replace('T', ' ')} (${timeZone})`;
  return md`every ${DAY[rule.start.weekday] ?? ''} ${rule.start.time} → ${DAY[rule.end.weekday] ?? ''} ${rule.end.time} (${timeZone})`;
}

function targetText(freeze: Pick<Freeze, 'scope' | 'targetName'>): Mrkdwn {
  const name = truncate(freeze.targetName, 255);
  if (freeze.scope === 'workspace') return md`the whole workspace`;
  if (freeze.scope === 'account') return md`the CDN account *${name}*`;
  return md`*${name}*`;
}

function frozenText(freeze: Freeze): Mrkdwn {
  return freeze.purges
    ? md`settings changes and every purge`
    : md`settings changes and purge-everything (URL and tag purges stay allowed)`;
}

function windowText(window: FreezeWindow | undefined, now?: number): Mrkdwn {
  if (!window) return md`no window to come`;
  const live = now !== undefined && window.start <= now;
  return live
    ? md`in force until ${slackDate(window.end)}`
    : md`next ${slackDate(window.start)} → ${slackDate(window.end)}`;
}

/** The admin's answer to `/cdn freeze add`. */
export function freezeAddedMessage(
  added: { freeze: Freeze; window?: FreezeWindow; timeZoneFrom: 'typed' | 'slack' },
  now: number,
): Message {
  const { freeze } = added;
  const zoneFrom =
    added.timeZoneFrom === 'slack'
      ? md` (your Slack time zone; add \`tz:<Area/City>\` for another)`
      : md``;
  const text = md`:snowflake: Freeze ${code(freeze.id.slice(0, 8))} declared on ${targetText(freeze)}: ${ruleText(freeze.rule, freeze.timeZone)}${zoneFrom}. Frozen: ${frozenText(freeze)}; ${windowText(added.window, now)}. Announced in ${channel(freeze.channelId)}.`;
  return message(text, [{ type: 'section', text: mrkdwn(text) }]);
}

/** `/cdn freeze list` and the App Home's section. */
export function freezeLines(listed: readonly ListedFreeze[], now: number): Mrkdwn {
  if (listed.length === 0)
    return md`No change freezes. Admins declare them with \`/cdn freeze add\`.`;
  const lines = summarise(listed, 20, ({ freeze, window, active }) => {
    const state = active ? md`:snowflake: *frozen*` : md`:calendar:`;
    return md`${state} ${code(freeze.id.slice(0, 8))} ${targetText(freeze)}: ${ruleText(freeze.rule, freeze.timeZone)}, ${windowText(window, now)}${freeze.purges ? md`, purges too` : md``}. ${truncate(freeze.reason, 200)}`;
  });
  // One section's text at most: twenty long names and reasons could pass it.
  return clip(lines, MAX_SENTENCE);
}

export function freezeListMessage(listed: readonly ListedFreeze[], now: number): Message {
  const lines = freezeLines(listed, now);
  return message(md`Change freezes`, [
    { type: 'header', text: plain('Change freezes') },
    { type: 'section', text: mrkdwn(lines) },
  ]);
}

export function freezeRemovedMessage(freeze: Freeze): Message {
  const text = md`Freeze ${code(freeze.id.slice(0, 8))} on ${targetText(freeze)} removed.`;
  return message(text, [{ type: 'section', text: mrkdwn(text) }]);
}

/** What the freeze's channel reads when a freeze is declared, starts, ends or is removed. */
export function freezeAnnouncement(
  freeze: Freeze,
  event: FreezeEvent,
  window: FreezeWindow | undefined,
): Message {
  const on = targetText(freeze);
  const reason = quote(truncate(freeze.reason, 500));
  const text =
    event === 'declared'
      ? md`:snowflake: A change freeze was declared on ${on} by ${actorLabel(freeze.createdBy)}: ${ruleText(freeze.rule, freeze.timeZone)}; ${windowText(window, window?.start)}.`
      : event === 'started'
        ? md`:snowflake: The change freeze on ${on} has started; ${frozenText(freeze)} are refused until ${slackDate(window?.end ?? 0)} unless an exception is approved.`
        : event === 'ended'
          ? md`:sunny: The change freeze on ${on} has ended.`
          : md`The change freeze on ${on} (${ruleText(freeze.rule, freeze.timeZone)}) was removed.`;
  return message(text, [{ type: 'section', text: mrkdwn(md`${text}\n${reason}`) }]);
}

function exceptionStatus(exception: FreezeException): Mrkdwn {
  switch (exception.status) {
    case 'pending':
      return md`Waiting for a second person (not the requester) to approve or deny.`;
    case 'approved':
      return md`:white_check_mark: Approved by ${actorLabel(exception.decidedBy ?? '')}: ${user(exception.requesterId)} may ${ACTION_WORDS[exception.action]} once.`;
    case 'used':
      return md`:white_check_mark: Approved by ${actorLabel(exception.decidedBy ?? '')} and used at ${slackDate(exception.usedAt ?? 0)}.`;
    case 'denied':
      return md`:no_entry: Denied by ${actorLabel(exception.decidedBy ?? '')}.`;
    case 'expired':
      return md`Closed: the freeze window ended before it was used.`;
    case 'cancelled':
      return md`Closed: the change freeze was removed, so no exception is needed.`;
  }
}

/** The exception request in the freeze's channel; buttons while it waits. */
export function freezeExceptionMessage(exception: FreezeException): Message {
  const headline = md`:raised_hand: ${user(exception.requesterId)} asks for an exception to the change freeze, to ${ACTION_WORDS[exception.action]} on *${exception.targetName}*:`;
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwn(md`${headline}\n${quote(truncate(exception.reason, 1000))}`),
    },
    { type: 'context', elements: [mrkdwn(exceptionStatus(exception))] },
  ];
  if (exception.status === 'pending')
    blocks.push({
      type: 'actions',
      block_id: FREEZE_IDS.exceptionActions,
      elements: [
        {
          type: 'button',
          text: plain('Approve'),
          action_id: FREEZE_IDS.approve,
          value: exception.id,
          style: 'primary',
        },
        {
          type: 'button',
          text: plain('Deny'),
          action_id: FREEZE_IDS.deny,
          value: exception.id,
          style: 'danger',
        },
      ],
    });
  return message(md`${headline} ${exceptionStatus(exception)}`, blocks);
}

/** The requester's answer to `/cdn freeze except`. */
export function freezeExceptionAskedMessage(exception: FreezeException): Message {
  const text = md`Asked in ${channel(exception.channelId)}: once someone else approves, you may ${ACTION_WORDS[exception.action]} on *${exception.targetName}* once during this freeze.`;
  return message(text, [{ type: 'section', text: mrkdwn(text) }]);
}

/** The form `/cdn freeze add` alone opens: the same fields as the command, the admin's zone filled. */
export function freezeAddModal(options: {
  timeZone: string;
  channelId?: string;
  metadata: string;
}): ModalView {
  const text = (blockId: string, actionId: string, label: string, hint: string, extra = {}) => ({
    type: 'input' as const,
    block_id: blockId,
    label: plain(label),
    hint: plain(hint),
    element: { type: 'plain_text_input' as const, action_id: actionId, ...extra },
  });
  return {
    type: 'modal',
    callback_id: FREEZE_IDS.addCallback,
    title: plain('Declare a change freeze'),
    submit: plain('Declare'),
    close: plain('Cancel'),
    private_metadata: options.metadata,
    blocks: [
      text(
        FREEZE_IDS.targetBlock,
        FREEZE_IDS.targetInput,
        'What to freeze',
        'A zone (example.com), account:<name>, or workspace.',
      ),
      text(
        FREEZE_IDS.windowBlock,
        FREEZE_IDS.windowInput,
        'When',
        'Once: 2026-12-20 18:00 → 2027-01-04 08:00. Every week: every fri 16:00 → mon 08:00.',
      ),
      text(
        FREEZE_IDS.zoneBlock,
        FREEZE_IDS.zoneInput,
        'Time zone',
        'An IANA name (Europe/Paris, UTC); filled with yours in Slack.',
        { initial_value: truncate(options.timeZone, 150) },
      ),
      {
        type: 'input',
        block_id: FREEZE_IDS.channelBlock,
        label: plain('Announce in'),
        element: {
          type: 'conversations_select',
          action_id: FREEZE_IDS.channelInput,
          filter: { include: ['public', 'private'], exclude_bot_users: true },
          ...(options.channelId ? { initial_conversation: options.channelId } : {}),
        },
      },
      {
        type: 'input',
        block_id: FREEZE_IDS.purgesBlock,
        optional: true,
        label: plain('Purges'),
        element: {
          type: 'checkboxes',
          action_id: FREEZE_IDS.purgesInput,
          options: [{ text: plain('Freeze URL and tag purges too'), value: 'purges' }],
        },
      },
      text(
        FREEZE_IDS.reasonBlock,
        FREEZE_IDS.reasonInput,
        'Reason',
        'Shown in the channel, in refusals and in the audit log.',
        { multiline: true, max_length: 500 },
      ),
    ],
  };
}
