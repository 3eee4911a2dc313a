// A pace on background work's turns on the event loop (BACKGROUND_LOOP_PERCENT): Slack's requests
// share this loop with the work nobody waits on at that moment (purge jobs, the HTTP API's
// purges), and want their acks within Slack's 3 seconds and, better, as fast as when the bot is
// idle: background work fills the loop's idle time instead of queueing ahead of an ack.
import { setTimeout as delay } from 'node:timers/promises';

/** The loop's utilisation is judged over windows this short: a turn follows the load closely. */
export const PACE_WINDOW_MS = 20;

export interface EventLoopPaceOptions {
  /** How often the line is looked at while the loop is busy. */
  checkMs?: number;
  /** Turns given per check once the loop is free. */
  perCheck?: number;
  /** The longest a turn waits, however busy the loop (background work is never starved). */
  maxWaitMs?: number;
  /** Monotonic time in ms (tests give their own). */
  now?: () => number;
}

interface Waiting {
  since: number;
  go: () => void;
}

/**
 * A turn is given at once while the loop is not busy (its utilisation over its last short window
 * is under the share) and few turns went lately (`perCheck` per `checkMs`: no burst); otherwise
 * turns wait in line and are given a few per check while the loop is not busy, each check a timer
 * (which itself takes no turn). No turn waits past `maxWaitMs`: background work always moves on.
 */
export class EventLoopPace {
  readonly #line: Waiting[] = [];
  #checking = false;
  readonly #checkMs: number;
  readonly #perCheck: number;
  readonly #maxWaitMs: number;
  readonly #now: () => number;
  /** Turns given at once in the current stretch of `checkMs`, and when it began. */
  #recent = 0;
  #since = Number.NEGATIVE_INFINITY;

  /** `busy`: whether the loop is busy now (EventLoopBusy.busy at BACKGROUND_LOOP_PERCENT). */
  constructor(
    private readonly busy: () => boolean,
    options: EventLoopPaceOptions = {},
  ) {
    this.#checkMs = options.checkMs ?? 5;
    this.#perCheck = options.perCheck ?? 2;
    this.#maxWaitMs = options.maxWaitMs ?? 200;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Turns waiting now. */
  get waiting(): number {
    return this.#line.length;
  }

  /** Resolves when background work may take the loop (at once when it is free); `signal` ends the wait. */
  turn(signal?: AbortSignal): Promise<void> {
    if (this.#line.length === 0 && this.#fewLately() && !this.busy()) {
      this.#recent++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      // Removed once given: a long job's signal must not gather a listener per step.
      const left = () => {
        const at = this.#line.indexOf(entry);
        if (at >= 0) this.#line.splice(at, 1);
        resolve();
      };
      const entry: Waiting = {
        since: this.#now(),
        go: () => {
          signal?.removeEventListener('abort', left);
          resolve();
        },
      };
      this.#line.push(entry);
      signal?.addEventListener('abort', left, { once: true });
      if (!this.#checking) {
        this.#checking = true;
        void this.#check();
      }
    });
  }

  /** Whether fewer than `perCheck` turns went at once in the current stretch of `checkMs`. */
  #fewLately(): boolean {
    const now = this.#now();
    if (now - this.#since >= this.#checkMs) {
      this.#since = now;
      this.#recent = 0;
    }
    return this.#recent < this.#perCheck;
  }

  /** While turns wait: every checkMs, a few of them go if the loop is free, and any overdue one. */
  async #check(): Promise<void> {
    try {
      while (this.#line.length > 0) {
        await delay(this.#checkMs);
        let given = 0;
        const free = !this.busy();
        while (this.#line.length > 0) {
          const first = this.#line[0] as Waiting;
          const overdue = this.#now() - first.since >= this.#maxWaitMs;
          if (!overdue && !(free && given < this.#perCheck)) break;
          this.#line.shift();
          first.go();
          given++;
        }
      }
    } finally {
      this.#checking = false;
    }
  }
}
