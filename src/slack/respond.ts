// Posting to a response_url: what Bolt's respond() does, for modals, which have none of their own.
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
