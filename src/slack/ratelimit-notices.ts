// The rate-limit change's message, corrected once the change has reached every edge: through the
// command's response_url while Slack takes it, else a bot message (see durable-message.ts).
import { rateLimitMessage } from '../blocks/ratelimit.js';
import type { RateLimitNotices } from '../services/ratelimit.js';
import type { DurableMessages } from './durable-message.js';

export function rateLimitNotices(messages: DurableMessages): RateLimitNotices {
  return (...open) => {
    const message = messages(...open);
    return { propagated: (change) => message.replace(rateLimitMessage(change)) };
  };
}
