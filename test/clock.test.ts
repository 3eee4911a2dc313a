// repeat: the loop behind every background tick (reports, watches, approvals).
import { describe, expect, it } from 'vitest';
import { repeat } from '../src/clock.js';
import { ManualClock } from './helpers/clock.js';

describe('repeat', () => {
  it('runs a round now and then one every interval, and ends when the signal aborts', async () => {
    const clock = new ManualClock(0);
    const stop = new AbortController();
    const rounds: number[] = [];
    const loop = repeat(clock, 1_000, stop.signal, async () => {
      rounds.push(clock.now());
    });
    await clock.sleepers(1);
    expect(rounds).toEqual([0]);
    clock.advance(999);
    expect(rounds).toEqual([0]);
    clock.advance(1);
    await clock.sleepers(1);
    expect(rounds).toEqual([0, 1_000]);
    stop.abort();
    await loop;
    expect(rounds).toEqual([0, 1_000]);
  });

  it('runs no round when the signal has already aborted', async () => {
    let rounds = 0;
    await repeat(new ManualClock(0), 1_000, AbortSignal.abort(), async () => {
      rounds += 1;
    });
    expect(rounds).toBe(0);
  });
});
