// Test clocks: time moves only when a test (or a sleep) moves it.
import type { Clock } from '../../src/clock.js';

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
