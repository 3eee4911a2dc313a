// Runs each Slack delivery once: a retry (x-slack-retry-num) or a replay of a signed body within
// its five minutes carries the same trigger, view or action, and is recognized on every replica.
// Expired keys are deleted by the retention sweep (src/jobs/retention.ts).
import type { SeenRequestRepository } from '../store/seen-requests.js';

/** Longer than Slack's retries and the signature's 5-minute replay window. */
const REMEMBER_MS = 60 * 60_000;

export class ReplayGuard {
  constructor(private readonly seen: SeenRequestRepository) {}

  /** True the first time `key` is seen; false for every repeat. */
  first(key: string): Promise<boolean> {
    return this.seen.first(key, REMEMBER_MS);
  }
}
