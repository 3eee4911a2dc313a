// Somewhere to post a message and then replace it: a response_url, or the user's DM with the bot.
import type { WebClient } from '@slack/web-api';
import type { Message } from '../blocks/message.js';
import { postToResponseUrl } from './respond.js';

export interface MessageTarget {
  post(message: Message): Promise<void>;
  /**
   * Replaces the last message this target posted. An `interim` version (progress) may be skipped
   * where posting it would leave no way to show the final one.
   */
  replace(message: Message, options?: { interim?: boolean }): Promise<void>;
}

export function responseUrlTarget(
  url: string,
  visibility: 'in_channel' | 'ephemeral',
): MessageTarget {
  return {
    post: (message) => postToResponseUrl(url, { response_type: visibility, ...message }),
    replace: (message) =>
      postToResponseUrl(url, { response_type: visibility, replace_original: true, ...message }),
  };
}

export function dmTarget(client: WebClient, userId: string): MessageTarget {
  let posted: { channel: string; ts: string } | undefined;
  return {
    post: async (message) => {
      const result = await client.chat.postMessage({ channel: userId, ...message });
      posted = { channel: result.channel ?? userId, ts: result.ts ?? '' };
    },
    replace: async (message) => {
      if (!posted) {
        await client.chat.postMessage({ channel: userId, ...message });
        return;
      }
      await client.chat.update({ ...posted, ...message });
    },
  };
}

/** A modal's origin if it has one (in the channel, seen by all or by the user), else the user's DM. */
export function originTarget(
  client: WebClient,
  origin: { responseUrl?: string },
  userId: string,
  visibility: 'in_channel' | 'ephemeral' = 'in_channel',
): MessageTarget {
  return origin.responseUrl
    ? responseUrlTarget(origin.responseUrl, visibility)
    : dmTarget(client, userId);
}
