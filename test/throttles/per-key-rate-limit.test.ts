// A per-key rate limit refills one request a gap (windowMs / perWindow), not all at once at a
// window's end: a refusal says the gap, and a burst at the end of a window buys no second burst at
// the start of the next, as a fixed window would (why no fixed-window limiter library is used).
import { describe, expect, it } from 'vitest';
import { takeRateLimit } from '../../src/throttles/per-key-rate-limit.js';
import { ManualClock } from '../helpers/clock.js';
import { BACKENDS, testStore } from '../helpers/store.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');

describe.each(BACKENDS)('a per-key rate limit on $backend', ({ backend, skip }) => {
  it.skipIf(skip)(
    'refuses past the burst with the gap to wait, then lets one through',
    async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      // 2 an hour, as a person's audit exports: the third waits half an hour, not the hour.
      const take = () => takeRateLimit(store.rateSlots, 'exports:T1:U1', 2, 3_600_000);
      expect([await take(), await take()]).toEqual([0, 0]);
      expect(await take()).toBe(30 * 60_000);
      clock.advance(30 * 60_000);
      expect(await take()).toBe(0);
      expect(await take()).toBe(30 * 60_000);
    },
  );

  it.skipIf(skip)('lets no fresh burst through at the start of the next window', async () => {
    const clock = new ManualClock(T0);
    const { store } = await testStore(backend, { clock });
    const take = () => takeRateLimit(store.rateSlots, 'reads:T1:U1', 10, 60_000);
    expect(await take()).toBe(0);
    clock.advance(59_000);
    let through = 1;
    for (let i = 0; i < 9; i++) if ((await take()) === 0) through++;
    clock.advance(1_500);
    for (let i = 0; i < 10; i++) if ((await take()) === 0) through++;
    // The burst of 10 and the one a gap (6 s) gave back; a fixed window begun by the first request
    // would let 20 through by now, 19 of them in these 2.5 s.
    expect(through).toBe(11);
  });
});
