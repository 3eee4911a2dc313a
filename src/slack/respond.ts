// Posting to a response_url (what Bolt's respond() does, for modals, which have none of their own);
// a refusal says its status and Slack's word for it (used_url, expired_url: 5 uses or 30 minutes).
import type { Message } from '../blocks/message.js';

/** How long one post to a response_url may take. */
const RESPONSE_URL_TIMEOUT_MS = 10_000;

/** A response_url refused a post; `status` is the HTTP status, `said` Slack's one word for it. */
export class ResponseUrlError extends Error {
  override readonly name = 'ResponseUrlError';
  constructor(
    readonly status: number,
    readonly said: string,
  ) {
    super(`response_url answered ${status}: ${said.slice(0, 100)}`);
  }
}

export async function postToResponseUrl(
  url: string,
  message: Message & { response_type?: 'in_channel' | 'ephemeral' },
): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(RESPONSE_URL_TIMEOUT_MS),
  });
  if (!response.ok) throw new ResponseUrlError(response.status, await response.text());
}
