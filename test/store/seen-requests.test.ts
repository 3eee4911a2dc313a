import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { ManualClock } from '../helpers/clock.js';
import { BACKENDS, testDatabase, testStore } from '../helpers/store.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');

async function keys(store: Store): Promise<Array<{ key: string; expires_at: number }>> {
  return store.db
    .selectFrom('seen_requests')
    .select(['key', 'expires_at'])
    .orderBy('key')
    .execute();
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`seen requests on ${backend}`, () => {
    it('is first once, then a repeat until the ttl has passed (a repeat does not extend it)', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      expect(await store.seenRequests.first('k', 1_000)).toBe(true);
      expect(await store.seenRequests.first('k', 1_000)).toBe(false);
      expect(await store.seenRequests.first('k', 1_000)).toBe(false);
      expect(await store.seenRequests.first('other', 60_000)).toBe(true);
      expect(await keys(store)).toEqual([
        { key: 'k', expires_at: T0 + 1_000 },
        { key: 'other', expires_at: T0 + 60_000 },
      ]);
      clock.advance(999);
      expect(await store.seenRequests.first('k', 1_000)).toBe(false);
      clock.advance(1);
      // Remembered until T0 + 1000 exactly (the repeat at T0 + 999 left it as it was).
      expect(await store.seenRequests.first('k', 1_000)).toBe(true);
      expect((await keys(store))[0]).toEqual({ key: 'k', expires_at: T0 + 2_000 });
      clock.advance(999);
      expect(await store.seenRequests.first('k', 1_000)).toBe(false);
      clock.advance(1);
      expect(await store.seenRequests.first('k', 5_000)).toBe(true);
      expect((await keys(store))[0]).toEqual({ key: 'k', expires_at: T0 + 7_000 });
    });

    it('lets exactly one of 20 concurrent deliveries across two replicas be first', async () => {
      const clock = new ManualClock(T0);
      const database = await testDatabase(backend);
      const a = await testStore(backend, { clock, database, poolSize: 4 });
      const b = await testStore(backend, { clock, database, poolSize: 4 });
      const race = () =>
        Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 ? a : b).store.seenRequests.first('retry-me', 1_000),
          ),
        );
      expect((await race()).filter(Boolean)).toHaveLength(1);
      // And once it has expired: the upsert path, racing too.
      clock.advance(1_000);
      expect((await race()).filter(Boolean)).toHaveLength(1);
      expect(await keys(a.store)).toEqual([{ key: 'retry-me', expires_at: T0 + 2_000 }]);
    });

    it('prunes expired keys only', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      expect(await store.seenRequests.prune(1_000)).toBe(0);
      await store.seenRequests.first('a', 1_000);
      await store.seenRequests.first('b', 2_000);
      await store.seenRequests.first('c', 3_000);
      clock.advance(1_999);
      expect(await store.seenRequests.prune(1_000)).toBe(1);
      expect((await keys(store)).map((k) => k.key)).toEqual(['b', 'c']);
      clock.advance(1);
      expect(await store.seenRequests.prune(1_000)).toBe(1);
      expect(await store.seenRequests.prune(1_000)).toBe(0);
      expect(await keys(store)).toEqual([{ key: 'c', expires_at: T0 + 3_000 }]);
      // What is left is still remembered; what was pruned is new again.
      expect(await store.seenRequests.first('c', 3_000)).toBe(false);
      expect(await store.seenRequests.first('a', 1_000)).toBe(true);
    });
  });
}
