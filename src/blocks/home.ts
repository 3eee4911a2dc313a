// The App Home tab: the key's status (never the key), quick actions, recent activity, reports.
import type { HomeView, KnownBlock } from '@slack/types';
import type { ChannelsOverview } from '../services/channels.js';
import type { AuditEntry } from '../store/audit-log.js';
import type { CredentialStatus } from '../store/credentials.js';
import type { Schedule } from '../store/schedules.js';
import type { Watch } from '../store/watches.js';
import { zoneLabel } from '../zone-names.js';
import { auditLine } from './audit.js';
import { channelsOverviewText } from './channels.js';
import { fitBlocks, listBlocks, summarise } from './fit.js';
import { type SubcommandInfo, usageLine } from './help.js';
import { HOME_IDS } from './ids.js';
import { scheduleLine } from './reports.js';
import { channel, code, md, mrkdwn, plain, slackDate, user } from './text.js';
import { watchLine } from './watches.js';

const MAX_ACTIVITY = 10;
const MAX_SCHEDULES = 20;
const MAX_WATCHES = 30;
const MAX_COMMANDS = 30;

export function homeView(options: {
  key: CredentialStatus | undefined;
  baseUrl: string;
  recent: AuditEntry[];
  schedules: Schedule[];
  /** Which channels watch which zones (absent: the section is left out). */
  watches?: Watch[];
  /** The /cdn subcommands, from the one list. */
  commands: readonly SubcommandInfo[];
  /** Channels' default zones and where purges may be run. */
  channels?: ChannelsOverview;
}): HomeView {
  const { key } = options;
  const keyLine = key
    ? md`:key: CDN API key set by ${user(key.setBy)} ${slackDate(key.setAt)}${key.lastValidatedAt ? md`, last checked ${slackDate(key.lastValidatedAt)}` : ''}.\nAPI: ${code(options.baseUrl)}`
    : md`:warning: No CDN API key yet. A workspace admin can set one with *Set API key* or \`/cdn login\`.`;
  const blocks: KnownBlock[] = [
    { type: 'header', text: plain('CDN chat-ops') },
    { type: 'section', text: mrkdwn(keyLine) },
    {
      type: 'actions',
      block_id: HOME_IDS.actionsBlock,
      elements: [
        {
          type: 'button',
          text: plain(key ? 'Replace API key' : 'Set API key'),
          action_id: HOME_IDS.login,
          ...(key ? {} : { style: 'primary' as const }),
        },
        { type: 'button', text: plain('List zones'), action_id: HOME_IDS.listZones },
        { type: 'button', text: plain('Onboard a domain'), action_id: HOME_IDS.createZone },
        { type: 'button', text: plain('Traffic analytics'), action_id: HOME_IDS.analytics },
      ],
    },
    { type: 'divider' },
    { type: 'header', text: plain('Recent activity') },
  ];
  if (options.recent.length === 0) {
    blocks.push({
      type: 'context',
      elements: [mrkdwn(md`Nothing yet. Changes made from Slack show up here.`)],
    });
  }
  blocks.push(
    ...listBlocks(options.recent, MAX_ACTIVITY, (entry) => ({
      type: 'context',
      elements: [mrkdwn(auditLine(entry))],
    })),
  );
  blocks.push({ type: 'divider' }, { type: 'header', text: plain('Daily reports') });
  if (options.schedules.length === 0) {
    blocks.push({ type: 'context', elements: [mrkdwn(md`No daily reports scheduled.`)] });
  }
  blocks.push(
    ...listBlocks(options.schedules, MAX_SCHEDULES, (schedule, index) => ({
      type: 'section',
      text: mrkdwn(scheduleLine(schedule, key !== undefined)),
      accessory: {
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
      },
    })),
  );
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
  if (options.watches) {
    blocks.push({ type: 'divider' }, { type: 'header', text: plain('Watched zones') });
    if (options.watches.length === 0)
      blocks.push({
        type: 'context',
        elements: [mrkdwn(md`No zone watched. \`/cdn watch <zone>\` in a channel alerts it.`)],
      });
    blocks.push(
      ...listBlocks(options.watches, MAX_WATCHES, (watch) => ({
        type: 'context',
        elements: [mrkdwn(watchLine(watch, { keySet: key !== undefined }))],
      })),
    );
  }
  blocks.push({ type: 'divider' }, { type: 'header', text: plain('Commands') });
  blocks.push({
    type: 'section',
    text: mrkdwn(summarise(options.commands, MAX_COMMANDS, usageLine)),
  });
  return { type: 'home', blocks: fitBlocks(blocks, 'home') };
}
