// Rate slots shared by replicas: racing takers get distinct slots, a gap apart, never in the past.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { BACKENDS, testDatabase, testStore } from '../helpers/store.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`rate slots on ${backend}`, () => {
    it('gives slots a gap apart from now, and starts again from now once they are past', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      expect(await store.rateSlots.take('c', 1_000)).toBe(T0);
      expect(await store.rateSlots.take('c', 1_000)).toBe(T0 + 1_000);
      expect(await store.rateSlots.take('other', 600)).toBe(T0);
      clock.advance(1_500);
      expect(await store.rateSlots.take('c', 1_000)).toBe(T0 + 2_000);
      clock.advance(60_000);
      expect(await store.rateSlots.take('c', 1_000)).toBe(T0 + 61_500);
      clock.advance(2 * 3_600_000);
      expect(await store.rateSlots.prune()).toBe(2);
    });

    it('gives racing replicas distinct slots, each a gap after the one before', async () => {
      const database = await testDatabase(backend);
      const clock = new ManualClock(T0);
      const replicas = await Promise.all(
        (backend === 'postgres' ? [1, 2, 3] : [1]).map(() =>
          testStore(backend, { database, clock, poolSize: 5 }),
        ),
      );
      const slots = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          replicas[i % replicas.length]?.store.rateSlots.take('channel', 1_000),
        ),
      );
      expect([...slots].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        Array.from({ length: 30 }, (_, i) => T0 + i * 1_000),
      );
    });

    it('takes a slot within the tolerance, or nothing, and says how long until one is free', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      // 5 a minute, in a burst of 5: a slot every 12 s, 48 s of tolerance.
      const take = () => store.rateSlots.takeWithin('reads', 12_000, 48_000);
      for (let i = 0; i < 5; i++) expect(await take()).toBe(0);
      expect(await take()).toBe(12_000);
      expect(await take()).toBe(12_000);
      clock.advance(5_000);
      expect(await take()).toBe(7_000);
      clock.advance(7_000);
      expect(await take()).toBe(0);
      expect(await take()).toBe(12_000);
    });

    it('lets exactly the bound through when replicas race for the last slots', async () => {
      const database = await testDatabase(backend);
      const clock = new ManualClock(T0);
      const replicas = await Promise.all(
        (backend === 'postgres' ? [1, 2, 3] : [1]).map(() =>
          testStore(backend, { database, clock, poolSize: 5 }),
        ),
      );
      const waits = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          replicas[i % replicas.length]?.store.rateSlots.takeWithin('reads', 12_000, 48_000),
        ),
      );
      expect(waits.filter((wait) => wait === 0)).toHaveLength(5);
    });
  });
}
