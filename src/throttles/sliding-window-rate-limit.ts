// A rate limit per person over a sliding window: counts per window in the store (every replica
// shares them), the previous window weighed by how much of it is still inside the last one, so 10
// at 12:00:59 and 10 more at 12:01:00 are not both let through. A refused attempt is taken back,
// so refusals do not lengthen the wait. Written here: no maintained limiter with PostgreSQL and
// SQLite stores keeps a sliding window (rate-limiter-flexible's fixed windows let that second 10
// through) or takes an injected clock.
import type { Clock } from '../clock.js';

/** Counts per person per window: the store's ChangeCounterRepository. */
export interface WindowCounters {
  /** Adds one to the person's count for the window and returns the new count. */
  increment(workspaceId: string, userId: string, windowStart: number): Promise<number>;
  /** Takes back one refused attempt. */
  decrement(workspaceId: string, userId: string, windowStart: number): Promise<void>;
  count(workspaceId: string, userId: string, windowStart: number): Promise<number>;
  /** Drops the person's windows older than `before`. */
  prune(workspaceId: string, userId: string, before: number): Promise<void>;
}

/** The refusal of an attempt past `limit`: retry in `retryInSeconds` (at least 1). */
export type WindowRefusal = (limit: number, retryInSeconds: number) => Error;

/** The sliding-window estimate of attempts in the last window of `windowMs`. */
export function estimate(
  previous: number,
  current: number,
  elapsedMs: number,
  windowMs = 60_000,
): number {
  return previous * (1 - elapsedMs / windowMs) + current;
}

/**
 * How long until one more attempt fits under `limit`, from `previous` and `current` counts with
 * `elapsedMs` into the current window (the refused attempt not counted).
 */
export function waitMs(
  limit: number,
  previous: number,
  current: number,
  elapsedMs: number,
  windowMs = 60_000,
): number {
  if (current + 1 <= limit) {
    // previous × (1 − t/window) + current + 1 ≤ limit, for t within this window.
    const t = windowMs * (1 - (limit - current - 1) / previous);
    return Math.max(0, Math.ceil(t - elapsedMs));
  }
  // Not this window: next window the current count becomes the previous one.
  const t = current === 0 ? 0 : windowMs * (1 - (limit - 1) / current);
  return windowMs - elapsedMs + Math.max(0, Math.ceil(t));
}

export class SlidingWindowRateLimit {
  constructor(
    private readonly counters: WindowCounters,
    private readonly clock: Clock,
    /** Attempts per person per window; 0 turns the limit off. */
    private readonly limit: number,
    private readonly refuse: WindowRefusal,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts one attempt by `userId`, or throws the refusal past the limit. */
  async take(workspaceId: string, userId: string): Promise<void> {
    if (this.limit <= 0) return;
    const now = this.clock.now();
    const window = now - (now % this.windowMs);
    const counters = this.counters;
    const [current, previous] = await Promise.all([
      counters.increment(workspaceId, userId, window),
      counters.count(workspaceId, userId, window - this.windowMs),
    ]);
    const elapsed = now - window;
    if (estimate(previous, current, elapsed, this.windowMs) <= this.limit) {
      if (current === 1) await counters.prune(workspaceId, userId, window - this.windowMs);
      return;
    }
    await counters.decrement(workspaceId, userId, window);
    const seconds = Math.max(
      1,
      Math.ceil(waitMs(this.limit, previous, current - 1, elapsed, this.windowMs) / 1000),
    );
    throw this.refuse(this.limit, seconds);
  }
}
