// Test clocks: time moves only when a test (or a sleep) moves it.
import type { Clock } from '../../src/clock.js';

/** A clock a test can move. */
export type TestClock = Clock & { advance(ms: number): void };

/** A clock whose sleeps return at once, advancing time and recording how long each was. */
export class InstantClock implements Clock {
  readonly sleeps: number[] = [];
  constructor(private time = Date.parse('2026-11-22T12:00:00Z')) {}

  now(): number {
    return this.time;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.sleeps.push(ms);
    this.time += ms;
  }

  advance(ms: number): void {
    this.time += ms;
  }
}

/** A clock that stands still: sleeps resolve only when a test advances time past them. */
export class ManualClock implements Clock {
  readonly #sleepers: Array<{ at: number; resolve: () => void }> = [];
  readonly #waiting: Array<{ count: number; resolve: () => void }> = [];

  constructor(private time = Date.now()) {}

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    // As the system clock's: a rejected promise, not a throw, when the signal has aborted already.
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const aborted = () => {
        const index = this.#sleepers.indexOf(sleeper);
        if (index >= 0) this.#sleepers.splice(index, 1);
        reject(signal?.reason);
      };
      // A sleep that wakes takes its listener off, as the system clock's does: a loop sleeping on
      // one long-lived signal (repeat) gathered one per round (MaxListenersExceededWarning).
      const sleeper = {
        at: this.time + ms,
        resolve: () => {
          signal?.removeEventListener('abort', aborted);
          resolve();
        },
      };
      this.#sleepers.push(sleeper);
      signal?.addEventListener('abort', aborted, { once: true });
      for (const waiter of this.#waiting.splice(0)) {
        if (this.#sleepers.length >= waiter.count) waiter.resolve();
        else this.#waiting.push(waiter);
      }
    });
  }

  /** Resolves once at least `count` sleeps are pending: the code under test is now waiting. */
  sleepers(count = 1): Promise<void> {
    if (this.#sleepers.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push({ count, resolve }));
  }

  /** When the earliest pending sleep ends, if any sleeps. */
  nextWake(): number | undefined {
    return this.#sleepers.length === 0
      ? undefined
      : Math.min(...this.#sleepers.map((sleeper) => sleeper.at));
  }

  advance(ms: number): void {
    this.time += ms;
    const due = this.#sleepers.filter((sleeper) => sleeper.at <= this.time);
    for (const sleeper of due) {
      this.#sleepers.splice(this.#sleepers.indexOf(sleeper), 1);
      sleeper.resolve();
    }
  }
}
