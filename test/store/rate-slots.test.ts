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
  });
}
