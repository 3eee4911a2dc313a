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

/** A source of uniformly distributed numbers in [0, 1). */
export type Random = () => number;

export const systemRandom: Random = Math.random;
