// Backoff and Retry-After: when to try a request again, and how long to wait first.
import type { Random } from '../clock.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff ceiling; doubles each retry. */
  baseDelayMs: number;
  /** Ceiling of one computed backoff (a server's Retry-After may ask for more). */
  maxDelayMs: number;
  /** Total time spent waiting between attempts; a wait that would pass it is not made. */
  budgetMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  budgetMs: 20_000,
};

/** "Full jitter" (AWS architecture blog): uniform in [0, min(cap, base·2^retry)). */
export function backoffDelay(retry: number, policy: RetryPolicy, random: Random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * Retry-After is delta-seconds or an HTTP-date (RFC 9110 §10.2.3). Returns milliseconds to wait,
 * or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Date.parse reads "-5" as a year; an HTTP-date always names its day, month and zone in letters.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
