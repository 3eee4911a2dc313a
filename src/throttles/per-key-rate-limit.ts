// A rate limit on one key (a token, a person, a workspace): `perWindow` per `windowMs`, a burst of
// `perWindow` then one a gap (windowMs/perWindow), as a generic cell rate algorithm. One statement
// on the shared store, so replicas racing for the last slot never both get it; past it a request
// is refused at once, with the gap to wait. Written here because the maintained limiters with SQL
// stores (rate-limiter-flexible's PostgreSQL and SQLite ones) count fixed windows: a refusal waits
// out the whole window, a new window gives a whole burst at once, and they read Date.now(), not an
// injected clock.

/** Where the slots are kept: the store's RateSlotRepository (every replica), or a test's own. */
export interface RateSlots {
  /**
   * Takes a slot of `key` now if one is free within `toleranceMs` (one per `gapMs`); else takes
   * nothing. 0 when taken, or how long until a slot would be free.
   */
  takeWithin(key: string, gapMs: number, toleranceMs: number): Promise<number>;
}

/**
 * Counts one request of `key` against `perWindow` per `windowMs` (0 or less: no limit): 0 when it
 * fits, else how long (ms) until one more would, with nothing counted.
 */
export async function takeRateLimit(
  slots: RateSlots,
  key: string,
  perWindow: number,
  windowMs: number,
): Promise<number> {
  if (perWindow <= 0) return 0;
  const gap = windowMs / perWindow;
  return slots.takeWithin(key, gap, windowMs - gap);
}

/** A refusal's "retry in", in whole seconds: at least 1. */
export function retryInSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}
