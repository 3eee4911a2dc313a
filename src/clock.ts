// Time and randomness as values passed in, so expiry, backoff and schedules are testable without sleeping.
import { setTimeout as delay } from 'node:timers/promises';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
};

/**
 * `promise`, or what `onTimeout` gives (or throws) once `ms` have passed on `clock`, whichever
 * comes first. The sleep is cancelled when the promise wins.
 */
export async function within<T, U>(
  clock: Clock,
  ms: number,
  promise: Promise<T>,
  onTimeout: () => U,
): Promise<T | U> {
  if (ms <= 0) return Promise.race([promise, Promise.resolve().then(onTimeout)]);
  const timer = new AbortController();
  let slept = false;
  const sleep = clock.sleep(ms, timer.signal).then(() => {
    slept = true;
    return onTimeout();
  });
  try {
    return await Promise.race([promise, sleep]);
  } finally {
    // Only a sleep still pending is cancelled (the race subscribed to it: its rejection is handled).
    if (!slept) timer.abort();
  }
}

/**
 * Runs `round` now and then every `ms` on `clock` until the signal aborts. A round handles its own
 * failures (a background loop logs them and goes on).
 */
export async function repeat(
  clock: Clock,
  ms: number,
  signal: AbortSignal,
  round: () => Promise<unknown>,
): Promise<void> {
  while (!signal.aborted) {
    await round();
    try {
      await clock.sleep(ms, signal);
    } catch {
      return;
    }
  }
}

/** A source of uniformly distributed numbers in [0, 1). */
export type Random = () => number;

export const systemRandom: Random = Math.random;
