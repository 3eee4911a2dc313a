// ScheduledPurgeSlack over the Web API: who the workspace's people are when a scheduled purge
// comes due (users.info with the bot token), and the word to its requester when it did not run:
// their DM with the bot (chat.postMessage to a user id posts there, as a daily report's pause
// notice does), else, where the DM is refused, the channel it was asked in, naming them.

import { scheduledPurgeSkippedMessage } from '../blocks/scheduled-purges.js';
import type { Problem } from '../errors.js';
import type { ScheduledPurge, ScheduledPurgeSlack } from '../services/purge/scheduled-purges.js';
import { backgroundDirectory, type GroupMembersCache } from './directory.js';
import type { WorkspaceClients } from './workspace-clients.js';

export class SlackScheduledPurges implements ScheduledPurgeSlack {
  constructor(
    private readonly clients: WorkspaceClients,
    private readonly people: GroupMembersCache,
  ) {}

  directory(workspaceId: string) {
    return backgroundDirectory(this.clients, this.people, workspaceId);
  }

  async skipped(purge: ScheduledPurge, problem: Problem): Promise<void> {
    const token = await this.clients.tokenFor(purge.workspaceId);
    const said = scheduledPurgeSkippedMessage(purge, problem);
    try {
      await this.clients.client.chat.postMessage({ token, channel: purge.requesterId, ...said });
    } catch (error) {
      if (!purge.channelId) throw error;
      await this.clients.client.chat.postMessage({ token, channel: purge.channelId, ...said });
    }
  }
}
