// The rate-limit change's message, corrected once the change has reached every edge: through the
// command's response_url while Slack takes it, else a bot message (see durable-message.ts).
import { rateLimitMessage } from '../blocks/ratelimit.js';
import type { Clock } from '../clock.js';
import type { RateLimitNotices } from '../services/ratelimit.js';
import { DurableMessage, type DurableMessageState } from './durable-message.js';
import type { WorkspaceClients } from './workspace-clients.js';

export function rateLimitNotices(clients: WorkspaceClients, clock: Clock): RateLimitNotices {
  return (workspaceId, replyTo, state, save) => {
    const message = new DurableMessage({
      client: clients.client,
      token: () => clients.tokenFor(workspaceId),
      replyTo,
      state: state as DurableMessageState,
      save: (next) => save({ ...next }),
      clock,
    });
    return { propagated: (change) => message.replace(rateLimitMessage(change)) };
  };
}
