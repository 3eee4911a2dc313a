// Flood control: how many changes (purges, zone creations, rate-limit changes) one user may make
// per minute, so a pasted loop of commands cannot hammer the CDN API. Counted per minute in the
// database (every replica shares it) and smoothed over the previous minute (a sliding-window
// counter), so 10 at 12:00:59 and 10 more at 12:01:00 are not both let through.
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { Store } from '../store/index.js';

const WINDOW_MS = 60_000;

/** The sliding-window estimate of changes in the last minute. */
export function estimate(previous: number, current: number, elapsedMs: number): number {
  return previous * (1 - elapsedMs / WINDOW_MS) + current;
}

/**
 * How long until one more change fits under `limit`, from `previous` and `current` counts with
 * `elapsedMs` into the current minute (the refused attempt not counted).
 */
export function waitMs(
  limit: number,
  previous: number,
  current: number,
  elapsedMs: number,
): number {
  if (current + 1 <= limit) {
    // previous × (1 − t/60 s) + current + 1 ≤ limit, for t within this minute.
    const t = WINDOW_MS * (1 - (limit - current - 1) / previous);
    return Math.max(0, Math.ceil(t - elapsedMs));
  }
  // Not this minute: next minute the current count becomes the previous one.
  const t = current === 0 ? 0 : WINDOW_MS * (1 - (limit - 1) / current);
  return WINDOW_MS - elapsedMs + Math.max(0, Math.ceil(t));
}

export class FloodControl {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Changes per user per minute; 0 turns the limit off. */
    private readonly limit: number,
  ) {}

  /** Counts one change by `userId`, or refuses it with AppError `too_many_changes`. */
  async take(workspaceId: string, userId: string): Promise<void> {
    if (this.limit <= 0) return;
    const now = this.clock.now();
    const window = now - (now % WINDOW_MS);
    const counters = this.store.changeCounters;
    const [current, previous] = await Promise.all([
      counters.increment(workspaceId, userId, window),
      counters.count(workspaceId, userId, window - WINDOW_MS),
    ]);
    const elapsed = now - window;
    if (estimate(previous, current, elapsed) <= this.limit) {
      if (current === 1) await counters.prune(workspaceId, userId, window - WINDOW_MS);
      return;
    }
    await counters.decrement(workspaceId, userId, window);
    const seconds = Math.max(
      1,
      Math.ceil(waitMs(this.limit, previous, current - 1, elapsed) / 1000),
    );
    throw new AppError({ code: 'too_many_changes', limit: this.limit, retryInSeconds: seconds });
  }
}
