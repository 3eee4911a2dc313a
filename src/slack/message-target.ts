// Somewhere to post a message and then replace it: a response_url, the conversation it came from
// (in the channel, or ephemeral to the user there), or the user's DM with the bot. A response_url
// that refuses (spent, expired, Slack slow) hands over to the conversation, and the channel to the
// DM, so an answer always lands somewhere the user sees it.
import type { WebClient } from '@slack/web-api';
import type { Message } from '../blocks/message.js';
import { postToResponseUrl } from './respond.js';

export type Visibility = 'in_channel' | 'ephemeral';

export interface MessageTarget {
  post(message: Message): Promise<void>;
  /**
   * Replaces the last message this target posted. An `interim` version (progress) may be skipped
   * where posting it would leave no way to show the final one.
   */
  replace(message: Message, options?: { interim?: boolean }): Promise<void>;
}

/** Who is answered, and where they asked (a channel, if any). */
export interface Conversation {
  userId: string;
  channelId?: string | undefined;
}

export function responseUrlTarget(url: string, visibility: Visibility): MessageTarget {
  return {
    post: (message) => postToResponseUrl(url, { response_type: visibility, ...message }),
    replace: (message) =>
      postToResponseUrl(url, { response_type: visibility, replace_original: true, ...message }),
  };
}

/**
 * Posts in the conversation without a response_url: in the channel (seen by all, or ephemeral to
 * the user), else as a DM. Returns where a message that can be edited later went.
 */
export async function postInConversation(
  client: WebClient,
  where: Conversation,
  message: Message,
  visibility: Visibility,
): Promise<{ channel: string; ts: string } | undefined> {
  if (where.channelId) {
    try {
      if (visibility === 'ephemeral') {
        await client.chat.postEphemeral({
          channel: where.channelId,
          user: where.userId,
          ...message,
        });
        return undefined;
      }
      const result = await client.chat.postMessage({ channel: where.channelId, ...message });
      return { channel: result.channel ?? where.channelId, ts: result.ts ?? '' };
    } catch {
      // Not in the channel, archived, or Slack refused it there: the DM still reaches the user.
    }
  }
  const result = await client.chat.postMessage({ channel: where.userId, ...message });
  return { channel: result.channel ?? where.userId, ts: result.ts ?? '' };
}

/** The conversation as a target: a message posted once, then edited (or, ephemeral, said again). */
export function conversationTarget(
  client: WebClient,
  where: Conversation,
  visibility: Visibility,
): MessageTarget {
  let posted: { channel: string; ts: string } | undefined;
  return {
    post: async (message) => {
      posted = await postInConversation(client, where, message, visibility);
    },
    replace: async (message) => {
      if (posted) {
        await client.chat.update({ ...posted, ...message });
        return;
      }
      posted = await postInConversation(client, where, message, visibility);
    },
  };
}

export function dmTarget(client: WebClient, userId: string): MessageTarget {
  return conversationTarget(client, { userId }, 'in_channel');
}

/**
 * A modal's origin: its response_url while Slack takes it, then the conversation it was opened
 * from (the channel, else the DM).
 */
export function originTarget(
  client: WebClient,
  origin: { responseUrl?: string; channelId?: string },
  userId: string,
  visibility: Visibility = 'in_channel',
): MessageTarget {
  const conversation = conversationTarget(
    client,
    { userId, channelId: origin.channelId },
    visibility,
  );
  if (!origin.responseUrl) return conversation;
  const viaUrl = responseUrlTarget(origin.responseUrl, visibility);
  let refused = false;
  const either =
    (send: 'post' | 'replace') =>
    async (message: Message): Promise<void> => {
      if (!refused) {
        try {
          await viaUrl[send](message);
          return;
        } catch {
          // Spent, expired, or Slack did not take it: the conversation from now on.
          refused = true;
        }
      }
      await conversation[send](message);
    };
  return { post: either('post'), replace: either('replace') };
}
