// /cdn config: who may change things and who may approve purges.
import type { LimitName } from '../errors.js';
import type { Workspace } from '../store/workspaces.js';
import { purgeChannelsText } from './channels.js';
import { CONFIG_IDS } from './ids.js';
import { type KnownBlock, type Message, message } from './message.js';
import { group, md, mrkdwn, type Part, plain, toMrkdwn } from './text.js';

/** Each limit's word in `/cdn config limits <word> <number>`. */
export const LIMIT_WORDS: Readonly<Record<LimitName, string>> = {
  rulesPerWatch: 'rules-per-watch',
  watches: 'watches',
  watchesPerPerson: 'watches-per-person',
  reports: 'reports',
  reportsPerPerson: 'reports-per-person',
};

export function configMessage(
  workspace: Workspace,
  changed?: Part,
  options: {
    /** The purge channels the reader is in (the picker is offered only when that is all of them). */
    purgeChannels?: readonly string[];
    /** How many purge channels are in conversations the reader is not in. */
    hiddenPurgeChannels?: number;
  } = {},
): Message {
  // Group mentions in an ephemeral message notify no one, and render as the group's handle.
  const who = (id: string | null, fallback: string) => (id ? group(id) : fallback);
  const lines = md`*Operators* (create zones, purge, rate limits): ${who(workspace.operatorGroupId, 'everyone')}
*Approvers* (purge everything): ${who(workspace.approverGroupId, 'anyone but the requester')}
*Guests* (multi- and single-channel): ${workspace.guestAccess === 'operate' ? 'may change things as operators do, but not approve' : 'read only'}
*Approval requests expire after* ${workspace.approvalTtlMinutes} minutes
*Limits*: ${limitsText(workspace)}`;
  const purgeChannels = options.purgeChannels;
  return message(toMrkdwn(changed ?? 'CDN bot configuration'), [
    ...(changed
      ? [{ type: 'section' as const, text: mrkdwn(md`:white_check_mark: ${changed}`) }]
      : []),
    { type: 'section', text: mrkdwn(lines) },
    ...(purgeChannels === undefined
      ? []
      : [purgeChannelsSection(purgeChannels, options.hiddenPurgeChannels ?? 0)]),
    {
      type: 'context',
      elements: [
        mrkdwn(
          md`Change with \`/cdn config operators @group\`, \`/cdn config approvers @group\`, or \`everyone\` to clear; \`/cdn config guests read|operate\`; \`/cdn config purge-channels #channel…\` limits purges to those channels, \`anywhere\` lifts it; \`/cdn config limits <limit> <number>\` sets a limit.`,
        ),
      ],
    },
  ]);
}

/**
 * Where purges may be run, with a picker to change it (admins; empty allows every channel). With
 * some in conversations the reader is not in, no picker: saving it would drop those unseen.
 */
function purgeChannelsSection(channelIds: readonly string[], hidden: number): KnownBlock {
  const where =
    channelIds.length === 0 && hidden === 0 ? 'any channel' : purgeChannelsText(channelIds, hidden);
  const section = {
    type: 'section' as const,
    block_id: CONFIG_IDS.purgeChannelsBlock,
    text: mrkdwn(md`*Purges* (URLs, tags, everything) may be run in: ${where}`),
  };
  if (hidden > 0) return section;
  return {
    ...section,
    accessory: {
      type: 'multi_channels_select',
      action_id: CONFIG_IDS.purgeChannels,
      placeholder: plain('Any channel'),
      ...(channelIds.length > 0 ? { initial_channels: channelIds.slice(0, 100) } : {}),
    },
  };
}

/** The configuration after the purge channels were changed, saying what changed. */
export function purgeChannelsSavedMessage(workspace: Workspace, saved: readonly string[]): Message {
  return configMessage(
    workspace,
    saved.length === 0
      ? 'Purges may be run from any channel again.'
      : 'Purges are now limited to the channels below.',
    { purgeChannels: saved },
  );
}

/** The workspace's limits, each under its word in `/cdn config limits`. */
function limitsText({ limits }: Workspace): string {
  return (Object.keys(LIMIT_WORDS) as LimitName[])
    .map((name) => `${LIMIT_WORDS[name]} ${limits[name].toLocaleString('en')}`)
    .join(', ');
}
