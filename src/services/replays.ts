// Runs each Slack delivery once: a retry (x-slack-retry-num) or a replay of a signed body within
// its five minutes carries the same trigger, view or action, and is recognized on every replica.
import type { SeenRequestRepository } from '../store/seen-requests.js';

/** Longer than Slack's retries and the signature's 5-minute replay window. */
const REMEMBER_MS = 60 * 60_000;

export class ReplayGuard {
  #pruned = 0;

  constructor(
    private readonly seen: SeenRequestRepository,
    private readonly now: () => number,
  ) {}

  /** True the first time `key` is seen; false for every repeat. */
  async first(key: string): Promise<boolean> {
    const first = await this.seen.first(key, REMEMBER_MS);
    // Old keys are dropped now and then, by whichever replica gets there.
    if (this.now() - this.#pruned > REMEMBER_MS / 4) {
      this.#pruned = this.now();
      await this.seen.prune();
    }
    return first;
  }
}
