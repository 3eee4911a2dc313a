// The App Home tab: the key's status (never the key), the quick actions the viewer may use, the
// scheduled purges the viewer may cancel (their own; an admin's: all), and for the workspace's
// full members its records: recent activity, reports, channels, watches.

import type { Button, HomeView, KnownBlock } from '@slack/types';
import type { ChannelsOverview } from '../services/access/channels.js';
import type { AccountsOverview } from '../services/accounts/accounts.js';
import type { ListedToken } from '../services/api/api-tokens.js';
import type { HomeOverview } from '../services/audit/activity.js';
import type { ListedFreeze } from '../services/freezes/freezes.js';
import type { ScheduledPurge } from '../services/purge/scheduled-purges.js';
import type { Schedule } from '../store/schedules.js';
import { zoneLabel } from '../zone-names.js';
import { accountsBlocks } from './accounts.js';
import { auditLine } from './audit.js';
import { channelsOverviewText } from './channels.js';
import { fitBlocks, headedList, summarise } from './fit.js';
import { freezeLines } from './freezes.js';
import { type SubcommandInfo, usageLine } from './help.js';
import { HOME_IDS } from './ids.js';
import { scheduleLine } from './reports.js';
import { dueText, scheduledPurgeLine } from './scheduled-purges.js';
import { channel, code, type Mrkdwn, md, mrkdwn, plain, slackDate, user } from './text.js';
import { tokenBlocks } from './tokens.js';
import { watchLine } from './watches.js';

const MAX_ACTIVITY = 10;
const MAX_SCHEDULES = 20;
const MAX_WATCHES = 30;
const MAX_COMMANDS = 30;
const MAX_SCHEDULED = 10;

export function homeView(
  options: HomeOverview & {
    /** The /cdn subcommands, from the one list. */
    commands: readonly SubcommandInfo[];
    /** Channels' default zones and where purges may be run (absent: left out). */
    channels?: ChannelsOverview;
    /** The CDN accounts, their zones and key health (absent: left out, for non-members). */
    accounts?: AccountsOverview;
    /** The tokens of the HTTP API, for admins (absent: left out). */
    tokens?: readonly ListedToken[];
    /** The change freezes and the time they were read at (absent: left out, for non-members). */
    freezes?: { listed: readonly ListedFreeze[]; now: number };
    /**
     * Purges waiting for their time that the viewer may cancel: their own, or (`everyone`, an
     * admin) all of them; absent: left out.
     */
    scheduled?: { shown: readonly ScheduledPurge[]; hidden: number; everyone: boolean };
  },
): HomeView {
  const { key, permissions } = options;
  // A workspace with named CDN accounts only (no `/cdn login`) works through them.
  const accountKeys = options.accountKeys ?? [];
  const keyLine = key
    ? md`:key: CDN API key set by ${user(key.setBy)} ${slackDate(key.setAt)}${key.lastValidatedAt ? md`, last checked ${slackDate(key.lastValidatedAt)}` : ''}.${options.baseUrl ? md`\nAPI: ${code(options.baseUrl)}` : ''}`
    : options.keySet
      ? md`:key: A CDN API key is set.`
      : accountKeys.length > 0
        ? accountKeys.length === 1
          ? md`:key: Commands use the CDN account ${code(accountKeys[0] ?? '')} and its API key.`
          : md`:key: Commands use the CDN accounts ${summarise(accountKeys, 10, code, ', ')}, each with its own API key.`
        : md`:warning: No CDN API key yet. A workspace admin can set one with *Set API key* or \`/cdn login\`.`;
  const anyKey = options.keySet || accountKeys.length > 0;
  const buttons: Button[] = [
    ...(permissions.setKey
      ? [
          {
            type: 'button' as const,
            text: plain(options.keySet ? 'Replace API key' : 'Set API key'),
            action_id: HOME_IDS.login,
            ...(anyKey ? {} : { style: 'primary' as const }),
          },
        ]
      : []),
    ...(permissions.readZones
      ? [{ type: 'button' as const, text: plain('List zones'), action_id: HOME_IDS.listZones }]
      : []),
    ...(permissions.operate
      ? [
          {
            type: 'button' as const,
            text: plain('Onboard a domain'),
            action_id: HOME_IDS.createZone,
          },
        ]
      : []),
    ...(permissions.readZones
      ? [
          {
            type: 'button' as const,
            text: plain('Traffic analytics'),
            action_id: HOME_IDS.analytics,
          },
        ]
      : []),
  ];
  const blocks: KnownBlock[] = [
    { type: 'header', text: plain('CDN chat-ops') },
    { type: 'section', text: mrkdwn(keyLine) },
    ...(buttons.length > 0
      ? [{ type: 'actions' as const, block_id: HOME_IDS.actionsBlock, elements: buttons }]
      : []),
  ];
  if (options.scheduled && (options.scheduled.everyone || options.scheduled.shown.length > 0))
    blocks.push({ type: 'divider' }, ...scheduledBlocks(options.scheduled));
  if (options.accounts)
    blocks.push(
      { type: 'divider' },
      { type: 'header', text: plain('CDN accounts') },
      ...accountsBlocks(options.accounts),
    );
  if (permissions.readRecords) blocks.push(...records(options, permissions.operate));
  if (options.tokens)
    blocks.push(
      { type: 'divider' },
      { type: 'header', text: plain('Tokens for CI') },
      ...tokenBlocks(options.tokens, 'home'),
    );
  blocks.push({ type: 'divider' }, { type: 'header', text: plain('Commands') });
  blocks.push({
    type: 'section',
    text: mrkdwn(summarise(options.commands, MAX_COMMANDS, usageLine)),
  });
  if (options.retention)
    blocks.push({ type: 'context', elements: [mrkdwn(retentionLine(options.retention))] });
  return { type: 'home', blocks: fitBlocks(blocks, 'home') };
}

const days = (n: number) => (n === 1 ? '1 day' : `${n} days`);

/** How long the workspace's history and its data after an uninstall are kept, in one line. */
function retentionLine(retention: { auditDays: number; uninstalledDays: number }) {
  const history =
    retention.auditDays > 0
      ? md`Activity history is kept ${days(retention.auditDays)}.`
      : md`Activity history is kept until the app is uninstalled.`;
  return md`:lock: ${history} If the app is uninstalled, its keys are deleted at once and the rest of this workspace's data ${days(retention.uninstalledDays)} later.`;
}

/** The workspace's records, for its full members: activity, reports (Stop: operators), channels, watches. */
function records(options: Parameters<typeof homeView>[0], operate: boolean): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'divider' },
    ...headedList('Recent activity', {
      items: options.recent,
      shown: MAX_ACTIVITY,
      render: (entry) => ({ type: 'context', elements: [mrkdwn(auditLine(entry))] }),
      none: note(md`Nothing yet. Changes made from Slack show up here.`),
    }),
    { type: 'divider' },
    ...headedList('Daily reports', {
      items: options.schedules.shown,
      shown: MAX_SCHEDULES,
      render: (schedule, index) => ({
        type: 'section',
        text: mrkdwn(scheduleLine(schedule, options.keySet)),
        ...(operate ? { accessory: stopButton(schedule, index) } : {}),
      }),
      none: note(md`No daily reports scheduled.`),
      hidden: options.schedules.hidden,
    }),
  ];
  if (options.channels) {
    blocks.push(
      { type: 'divider' },
      { type: 'header', text: plain('Channels') },
      { type: 'section', text: mrkdwn(channelsOverviewText(options.channels)) },
      {
        type: 'context',
        elements: [
          mrkdwn(
            md`\`/cdn use <zone>\` in a channel makes it the default there; \`/cdn config purge-channels #channel…\` (admins) limits purges to those channels.`,
          ),
        ],
      },
    );
  }
  if (options.freezes) {
    blocks.push(
      { type: 'divider' },
      { type: 'header', text: plain('Change freezes') },
      { type: 'section', text: mrkdwn(freezeLines(options.freezes.listed, options.freezes.now)) },
    );
  }
  if (options.watches) {
    blocks.push(
      { type: 'divider' },
      ...headedList('Watched zones', {
        items: options.watches.shown,
        shown: MAX_WATCHES,
        render: (watch) => note(watchLine(watch, { keySet: options.keySet })),
        none: note(md`No zone watched. \`/cdn watch <zone>\` in a channel alerts it.`),
        hidden: options.watches.hidden,
      }),
    );
  }
  return blocks;
}

/** The scheduled purges, each with its Cancel button (the same cancel as `/cdn purge cancel`). */
function scheduledBlocks(scheduled: NonNullable<Parameters<typeof homeView>[0]['scheduled']>) {
  return headedList(scheduled.everyone ? 'Scheduled purges' : 'Your scheduled purges', {
    items: scheduled.shown,
    shown: MAX_SCHEDULED,
    render: (purge, index): KnownBlock => ({
      type: 'section',
      text: mrkdwn(scheduledPurgeLine(purge)),
      accessory: {
        type: 'button',
        text: plain('Cancel'),
        action_id: `${HOME_IDS.cancelScheduled}_${index}`,
        value: purge.id,
        confirm: {
          title: plain('Cancel this purge?', 100),
          // A confirm dialog's text takes at most 300 characters.
          text: mrkdwn(md`It will not run at ${dueText(purge)}.`, 300),
          confirm: plain('Cancel it', 30),
          deny: plain('Keep it', 30),
        },
      },
    }),
    none: note(md`None. Add \`at 02:00\` or \`in 30m\` to a \`/cdn purge\` to schedule one.`),
    hidden: scheduled.hidden,
  });
}

/** A line in small print. */
const note = (text: Mrkdwn): KnownBlock => ({ type: 'context', elements: [mrkdwn(text)] });

function stopButton(schedule: Schedule, index: number): Button {
  return {
    type: 'button',
    text: plain('Stop'),
    action_id: `${HOME_IDS.stopReport}_${index}`,
    value: schedule.id,
    confirm: {
      title: plain('Stop this report?', 100),
      // A confirm dialog's text takes at most 300 characters.
      text: mrkdwn(
        md`No more daily reports of *${zoneLabel(schedule.zoneName)}* in ${channel(schedule.channelId)}.`,
        300,
      ),
      confirm: plain('Stop it', 30),
      deny: plain('Keep it', 30),
    },
  };
}
