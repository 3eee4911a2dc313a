// Posting to a response_url (from a modal's origin), and to a user's DM when there is none.
import type { WebClient } from '@slack/web-api';
import type { Message } from '../blocks/message.js';

export async function postToResponseUrl(
  url: string,
  message: Message & { response_type?: 'in_channel' | 'ephemeral'; replace_original?: boolean },
): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok)
    throw new Error(`response_url answered ${response.status}: ${await response.text()}`);
}

/** Where a result goes: the originating conversation if known, else the user's DM with the bot. */
export async function deliver(
  client: WebClient,
  target: { responseUrl?: string; userId: string; public?: boolean },
  message: Message,
): Promise<void> {
  if (target.responseUrl) {
    await postToResponseUrl(target.responseUrl, {
      ...message,
      response_type: target.public ? 'in_channel' : 'ephemeral',
    });
    return;
  }
  await client.chat.postMessage({ channel: target.userId, ...message });
}
