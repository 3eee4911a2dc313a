// ApprovalNotifier over the Web API: the request is a bot message, so it can be updated for as
// long as the request lives (a response_url would stop working after 30 minutes).
import { approvalMessage } from '../blocks/approval.js';
import { AppError } from '../errors.js';
import type { ApprovalNotifier } from '../services/approvals/approvals.js';
import type { Approval } from '../store/approvals.js';
import {
  asPostRefusal,
  isTransientSlackError,
  slackErrorCode,
  slackRetryAfterMs,
} from './web-api-errors.js';
import type { WorkspaceClients } from './workspace-clients.js';

/**
 * A DM's conversation id starts with D: a slash command typed in one comes with `channel_id`
 * D… and `channel_name` "directmessage" (a recorded payload: getsentry/sentry, tests of its Slack
 * commands, `"channel_id": "D01E80KD1GQ", "channel_name": "directmessage"`). An app is never
 * part of a DM between two people: Slack answers `channel_not_found` there
 * (https://github.com/slackapi/bolt-js/issues/365), and `/invite` cannot add it.
 */
const isDm = (channelId: string) => channelId.startsWith('D');

/**
 * chat.getPermalink's answers for a message nobody can see any more: a person deleted it, or its
 * channel went (slackapi/slack-api-specs web-api/slack_web_openapi_v2.json, /chat.getPermalink:
 * message_not_found, channel_not_found).
 */
const GONE = new Set(['message_not_found', 'channel_not_found']);

/**
 * chat.update's answers for a message that can no longer be edited where it was: deleted, not the
 * bot's, its channel gone or archived (`is_inactive`), or past the workspace's edit window
 * (slack_web_openapi_v2.json, /chat.update errors), or the bot removed from a private channel.
 */
export const UNEDITABLE = new Set([
  ...GONE,
  'cant_update_message',
  'is_inactive',
  'edit_window_closed',
  'not_in_channel',
  'is_archived',
]);

/** Whether a request has ended: decided otherwise than approved, or approved and purged. */
const isFinal = (approval: Approval) =>
  approval.status !== 'pending' && (approval.status !== 'approved' || approval.outcome !== null);

export class SlackApprovalNotifier implements ApprovalNotifier {
  constructor(private readonly clients: WorkspaceClients) {}

  async posted(approval: Approval, details: { cacheHitRate?: number }): Promise<string> {
    const token = await this.clients.tokenFor(approval.workspaceId);
    try {
      const result = await this.clients.client.chat.postMessage({
        token,
        channel: approval.channelId,
        ...approvalMessage(approval, details),
      });
      return result.ts ?? '';
    } catch (error) {
      const refusal = asPostRefusal(error, 'approval');
      throw refusal instanceof AppError &&
        refusal.code === 'cannot_post' &&
        isDm(approval.channelId)
        ? new AppError({ ...refusal.problem, inDm: true }, { cause: error })
        : refusal;
    }
  }

  transient(error: unknown): boolean {
    return isTransientSlackError(error);
  }

  retryAfterMs(error: unknown): number | undefined {
    return slackRetryAfterMs(error);
  }

  gone(error: unknown): boolean {
    return GONE.has(slackErrorCode(error) ?? '');
  }

  async link(approval: Approval): Promise<string | undefined> {
    if (!approval.messageTs) return undefined;
    const token = await this.clients.tokenFor(approval.workspaceId);
    const result = await this.clients.client.chat.getPermalink({
      token,
      channel: approval.channelId,
      message_ts: approval.messageTs,
    });
    return result.permalink;
  }

  async changed(approval: Approval, details: { purging?: boolean } = {}): Promise<void> {
    if (!approval.messageTs) return;
    const token = await this.clients.tokenFor(approval.workspaceId);
    const message = approvalMessage(approval, details);
    try {
      await this.clients.client.chat.update({
        token,
        channel: approval.channelId,
        ts: approval.messageTs,
        ...message,
      });
    } catch (error) {
      if (!UNEDITABLE.has(slackErrorCode(error) ?? '')) throw error;
      // The request message is gone (deleted, its channel archived or the app removed): how it
      // ended still reaches the person who asked, by DM. Progress is not said there.
      if (!isFinal(approval) || details.purging || approval.api) return;
      await this.clients.client.chat.postMessage({
        token,
        channel: approval.requesterId,
        ...message,
      });
    }
  }
}
