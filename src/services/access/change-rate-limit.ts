// The change rate limit: how many changes (purges, zone creations, rate-limit changes) one person
// may make per minute (CHANGE_RATE_LIMIT), so a pasted loop of commands cannot hammer the CDN
// API. A sliding-window rate limit (src/throttles) over the store's per-minute counters.
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { Store } from '../../store/index.js';
import { SlidingWindowRateLimit } from '../../throttles/sliding-window-rate-limit.js';

export class ChangeRateLimit {
  readonly #limit: SlidingWindowRateLimit;

  constructor(
    store: Store,
    clock: Clock,
    /** Changes per person per minute; 0 turns the limit off. */
    limit: number,
  ) {
    this.#limit = new SlidingWindowRateLimit(
      store.changeCounters,
      clock,
      limit,
      (limit, retryInSeconds) => new AppError({ code: 'too_many_changes', limit, retryInSeconds }),
    );
  }

  /** Counts one change by `userId`, or refuses it with AppError `too_many_changes`. */
  take(workspaceId: string, userId: string): Promise<void> {
    return this.#limit.take(workspaceId, userId);
  }
}
