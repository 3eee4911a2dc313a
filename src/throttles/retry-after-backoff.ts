// A backoff on another side's rate limit: when it answers "too many, retry after N" for one key (a
// window: Slack's workspace, method and channel), that key is closed until then, and calls under it
// wait it out or are refused by the caller; other keys go on. In this process's memory; closed
// keys past their time are swept out once there are many.
import type { Clock } from '../clock.js';

/** Keys kept before those open again are swept out. */
const SWEEP_AT = 5_000;

export class RetryAfterBackoff {
  /** key → when it opens again (clock time). */
  readonly #closedUntil = new Map<string, number>();

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  /** When `key` opens again, if it is closed now. */
  closedUntil(key: string): number | undefined {
    const until = this.#closedUntil.get(key);
    return until !== undefined && until > this.clock.now() ? until : undefined;
  }

  /** How long `key` stays closed from now: 0 when it is open. */
  closedFor(key: string): number {
    const until = this.#closedUntil.get(key);
    if (until === undefined) return 0;
    const left = until - this.clock.now();
    if (left <= 0) this.#closedUntil.delete(key);
    return Math.max(0, left);
  }

  /** Closes `key` for `ms` from now (never sooner than it was already closed until). */
  close(key: string, ms: number): void {
    const now = this.clock.now();
    if (this.#closedUntil.size >= SWEEP_AT) {
      for (const [other, until] of this.#closedUntil)
        if (until <= now) this.#closedUntil.delete(other);
    }
    this.#closedUntil.set(key, Math.max(this.#closedUntil.get(key) ?? 0, now + ms));
  }
}
