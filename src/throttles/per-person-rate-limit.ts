// A rate limit on what people may ask of the bot, per person and per workspace over a window,
// checked before the work is done: each is a per-key rate limit (per-key-rate-limit.ts, slots in
// the store, and why it is not a library's). The person's limit first: one person's loop is
// refused before it spends the workspace's.
import { type RateSlots, retryInSeconds, takeRateLimit } from './per-key-rate-limit.js';

/** Requests per window, for one person and for a whole workspace; 0: no limit. */
export interface PersonLimits {
  person: number;
  workspace: number;
}

export type RateLimitScope = keyof PersonLimits;

/** The refusal of a request past the limit of `scope`: retry in `retryInSeconds` (at least 1). */
export type RateLimitRefusal = (
  scope: RateLimitScope,
  limit: number,
  retryInSeconds: number,
) => Error;

export class PerPersonRateLimit {
  constructor(
    private readonly slots: RateSlots,
    /** The slots' key prefix: what is limited. */
    private readonly name: string,
    private readonly limits: PersonLimits,
    private readonly windowMs: number,
    private readonly refuse: RateLimitRefusal,
  ) {}

  /** One request by `userId` of `workspaceId`, or the refusal past either limit. */
  async take(workspaceId: string, userId: string): Promise<void> {
    await this.#take('person', `${this.name}:${workspaceId}:${userId}`);
    await this.#take('workspace', `${this.name}:${workspaceId}`);
  }

  async #take(scope: RateLimitScope, key: string): Promise<void> {
    const limit = this.limits[scope];
    const waitMs = await takeRateLimit(this.slots, key, limit, this.windowMs);
    if (waitMs === 0) return;
    throw this.refuse(scope, limit, retryInSeconds(waitMs));
  }
}
