// /cdn config: who may change things and who may approve purges.
import type { Workspace } from '../store/workspaces.js';
import type { Message } from './message.js';
import { mrkdwn } from './text.js';

export function configMessage(workspace: Workspace, changed?: string): Message {
  // Group mentions in an ephemeral message notify no one, and render as the group's handle.
  const group = (id: string | null, fallback: string) => (id ? `<!subteam^${id}>` : fallback);
  const lines = [
    `*Operators* (create zones, purge, rate limits): ${group(workspace.operatorGroupId, 'everyone')}`,
    `*Approvers* (purge everything): ${group(workspace.approverGroupId, 'anyone but the requester')}`,
    `*Approval requests expire after* ${workspace.approvalTtlMinutes} minutes`,
  ];
  return {
    text: changed ?? 'CDN bot configuration',
    blocks: [
      ...(changed
        ? [{ type: 'section' as const, text: mrkdwn(`:white_check_mark: ${changed}`) }]
        : []),
      { type: 'section', text: mrkdwn(lines.join('\n')) },
      {
        type: 'context',
        elements: [
          mrkdwn(
            'Change with `/cdn config operators @group`, `/cdn config approvers @group`, or `everyone` to clear.',
          ),
        ],
      },
    ],
  };
}
