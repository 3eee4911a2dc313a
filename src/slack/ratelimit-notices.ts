// The rate-limit change's message: posted when the change is made, corrected in place once the
// change has reached every edge (a bot message edited with chat.update; where the bot cannot post,
// the response_url says the change and then the correction: see durable-message.ts).
import { rateLimitMessage } from '../blocks/ratelimit.js';
import type { RateLimitNotices } from '../services/zones/ratelimit.js';
import type { DurableMessages } from './durable-message.js';

export function rateLimitNotices(messages: DurableMessages): RateLimitNotices {
  return (...open) => {
    const message = messages(...open);
    return {
      changed: (change) => message.post(rateLimitMessage(change), { opening: true }),
      propagated: (change) => message.replace(rateLimitMessage(change)),
    };
  };
}
