// /cdn config: who may change things and who may approve purges.
import type { Workspace } from '../store/workspaces.js';
import { channelList } from './channels.js';
import { CONFIG_IDS } from './ids.js';
import type { KnownBlock, Message } from './message.js';
import { mrkdwn, plain } from './text.js';

export function configMessage(
  workspace: Workspace,
  changed?: string,
  options: { purgeChannels?: readonly string[] } = {},
): Message {
  // Group mentions in an ephemeral message notify no one, and render as the group's handle.
  const group = (id: string | null, fallback: string) => (id ? `<!subteam^${id}>` : fallback);
  const lines = [
    `*Operators* (create zones, purge, rate limits): ${group(workspace.operatorGroupId, 'everyone')}`,
    `*Approvers* (purge everything): ${group(workspace.approverGroupId, 'anyone but the requester')}`,
    `*Guests* (multi- and single-channel): ${workspace.guestAccess === 'operate' ? 'may change things as operators do, but not approve' : 'read only'}`,
    `*Approval requests expire after* ${workspace.approvalTtlMinutes} minutes`,
  ];
  const purgeChannels = options.purgeChannels;
  return {
    text: changed ?? 'CDN bot configuration',
    blocks: [
      ...(changed
        ? [{ type: 'section' as const, text: mrkdwn(`:white_check_mark: ${changed}`) }]
        : []),
      { type: 'section', text: mrkdwn(lines.join('\n')) },
      ...(purgeChannels === undefined ? [] : [purgeChannelsSection(purgeChannels)]),
      {
        type: 'context',
        elements: [
          mrkdwn(
            'Change with `/cdn config operators @group`, `/cdn config approvers @group`, or `everyone` to clear; `/cdn config guests read|operate`; `/cdn config purge-channels #channel…` limits purges to those channels, `anywhere` lifts it.',
          ),
        ],
      },
    ],
  };
}

/** Where purges may be run, with a picker to change it (admins; empty allows every channel). */
function purgeChannelsSection(channelIds: readonly string[]): KnownBlock {
  return {
    type: 'section',
    block_id: CONFIG_IDS.purgeChannelsBlock,
    text: mrkdwn(
      `*Purges* (URLs, tags, everything) may be run in: ${channelIds.length === 0 ? 'any channel' : channelList(channelIds)}`,
    ),
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
