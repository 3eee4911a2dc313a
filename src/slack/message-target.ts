// Where an answer lands: a modal's origin (its response_url, then the conversation it was opened
// from, in the channel or ephemeral to the user there, then the user's DM), and the port of a
// message that is posted and then replaced (a job's progress, implemented by DurableMessage). A
// response_url is only ever used to post: for a slash command or a modal it has no message it
// could replace (https://github.com/slackapi/bolt-js/issues/2287), so edits go through chat.update
// of a bot message (see durable-message.ts).
import type { WebClient } from '@slack/web-api';
import type { Message } from '../blocks/message.js';
import { postToResponseUrl } from './respond.js';
import { slackErrorCode } from './web-api-errors.js';

export type Visibility = 'in_channel' | 'ephemeral';

/** A message posted once, then replaced as the work it speaks of goes on. */
export interface MessageTarget {
  /** A new message; the `opening` one is said once, even by a job resumed after a restart. */
  post(message: Message, options?: { opening?: boolean }): Promise<void>;
  /**
   * Replaces the last message this target posted. An `interim` version (progress) is skipped
   * where that message cannot be edited, so such an answer is an opening and a final message.
   */
  replace(message: Message, options?: { interim?: boolean }): Promise<void>;
}

/**
 * Where the reason a way of answering was refused is logged before the next way takes over: the
 * app's logger, or a listener's (Bolt's, which writes to it).
 */
export interface FallbackLog {
  info(fields: Record<string, unknown>, message: string): void;
}

/** A refusal in one word where Slack gave one (`not_in_channel`), else the error's message. */
export function refusalOf(error: unknown): string {
  return slackErrorCode(error) ?? (error instanceof Error ? error.message : String(error));
}

/** Who is answered, and where they asked (a channel, if any). */
export interface Conversation {
  userId: string;
  channelId?: string | undefined;
}

/**
 * Posts in the conversation without a response_url: in the channel (seen by all, or ephemeral to
 * the user), else as a DM.
 */
export async function postInConversation(
  client: WebClient,
  where: Conversation,
  message: Message,
  visibility: Visibility,
  log: FallbackLog,
): Promise<void> {
  if (where.channelId) {
    try {
      if (visibility === 'ephemeral') {
        await client.chat.postEphemeral({
          channel: where.channelId,
          user: where.userId,
          ...message,
        });
      } else await client.chat.postMessage({ channel: where.channelId, ...message });
      return;
    } catch (error) {
      // Not in the channel, archived, or Slack refused it there: the DM still reaches the user.
      log.info(
        { channel: where.channelId, reason: refusalOf(error) },
        'answer refused in the channel; sent as a DM',
      );
    }
  }
  await client.chat.postMessage({ channel: where.userId, ...message });
}

/**
 * A modal's origin: its response_url while Slack takes it, then the conversation it was opened
 * from (the channel, else the DM).
 */
export function originTarget(
  client: WebClient,
  origin: { responseUrl?: string; channelId?: string },
  userId: string,
  log: FallbackLog,
  visibility: Visibility = 'in_channel',
): { post(message: Message): Promise<void> } {
  return {
    post: async (message) => {
      if (origin.responseUrl) {
        try {
          await postToResponseUrl(origin.responseUrl, { response_type: visibility, ...message });
          return;
        } catch (error) {
          // Spent, expired, or Slack did not take it: the conversation instead.
          log.info(
            { reason: refusalOf(error) },
            'answer refused by the response_url; sent in the conversation',
          );
        }
      }
      await postInConversation(
        client,
        { userId, channelId: origin.channelId },
        message,
        visibility,
        log,
      );
    },
  };
}
