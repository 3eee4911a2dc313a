// The event-loop pace, background work's turns on the loop (BACKGROUND_LOOP_PERCENT): at once
// while the loop is free; while it is busy, in line, a few per check once it is free again, and
// never past the longest wait. A test's own `busy` and clock say how busy the loop is and what time it is.
import { setMaxListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { EventLoopPace } from '../../src/throttles/event-loop-pace.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('EventLoopPace', () => {
  it('gives turns at once while the loop is free', async () => {
    const pace = new EventLoopPace(() => false);
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => pace.turn().then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
    expect(pace.waiting).toBe(0);
  });

  it('gives at most perCheck turns at once per checkMs, even while the loop is free', async () => {
    let now = 0;
    const pace = new EventLoopPace(() => false, { checkMs: 5, perCheck: 2, now: () => now });
    const given: number[] = [];
    for (const n of [1, 2, 3]) void pace.turn().then(() => given.push(n));
    await Promise.resolve();
    // Two at once; the third waits in line for the next check.
    expect(given).toEqual([1, 2]);
    expect(pace.waiting).toBe(1);
    now = 5;
    await tick(20);
    expect(given).toEqual([1, 2, 3]);
  });

  it('holds turns while the loop is busy, then gives them in order, a few per check', async () => {
    let busy = true;
    const pace = new EventLoopPace(() => busy, { checkMs: 5, perCheck: 2, maxWaitMs: 60_000 });
    const given: number[] = [];
    for (const n of [1, 2, 3, 4, 5]) void pace.turn().then(() => given.push(n));
    await tick(40);
    expect(given).toEqual([]);
    expect(pace.waiting).toBe(5);
    busy = false;
    // The first check after the loop is free gives two; the next ones the rest, in order.
    await tick(7);
    expect(given.length).toBeGreaterThanOrEqual(2);
    expect(given.length).toBeLessThan(5);
    await tick(40);
    expect(given).toEqual([1, 2, 3, 4, 5]);
    // While turns wait, a new one waits behind them even if the loop looks free.
    busy = true;
    void pace.turn().then(() => given.push(6));
    busy = false;
    const late = pace.turn().then(() => given.push(7));
    expect(pace.waiting).toBe(2);
    await late;
    expect(given).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('never holds a turn past maxWaitMs, however busy the loop stays', async () => {
    let now = 0;
    const pace = new EventLoopPace(() => true, { checkMs: 2, maxWaitMs: 100, now: () => now });
    let given = false;
    void pace.turn().then(() => {
      given = true;
    });
    await tick(20);
    expect(given).toBe(false);
    now = 100;
    await tick(20);
    expect(given).toBe(true);
  });

  it('leaves no listener on a job’s signal once its turn is given', async () => {
    let busy = true;
    const pace = new EventLoopPace(() => busy, { checkMs: 1, perCheck: 100, maxWaitMs: 60_000 });
    const stop = new AbortController();
    // Twenty turns wait on it at once on purpose: not the leak Node warns of past ten.
    setMaxListeners(20, stop.signal);
    let listeners = 0;
    const add = stop.signal.addEventListener.bind(stop.signal);
    const remove = stop.signal.removeEventListener.bind(stop.signal);
    stop.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners++;
      add(...args);
    }) as typeof add;
    stop.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners--;
      remove(...args);
    }) as typeof remove;
    const turns = Array.from({ length: 20 }, () => pace.turn(stop.signal));
    expect(listeners).toBe(20);
    busy = false;
    await Promise.all(turns);
    expect(listeners).toBe(0);
  });

  it('lets a stopping job out of the line at once', async () => {
    const pace = new EventLoopPace(() => true, { maxWaitMs: 60_000 });
    const stop = new AbortController();
    const turn = pace.turn(stop.signal);
    stop.abort();
    await turn;
    expect(pace.waiting).toBe(0);
  });
});
