import { describe, expect, it } from 'vitest';
import { BACKENDS, testStore } from '../helpers/store.js';

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`purge jobs on ${backend}`, () => {
    it('keeps counts and what failed, and is finished once', async () => {
      const { store, clock } = await testStore(backend);
      const job = await store.purges.create({
        workspaceId: 'T1',
        zoneId: 'z1',
        zoneName: 'example.com',
        actorId: 'U1',
        fileCount: 95,
        tagCount: 2,
      });
      expect(job).toMatchObject({ status: 'running', fileCount: 95, tagCount: 2, retryOf: null });
      clock.advance(1_000);
      const failed = { files: ['https://example.com/a', 'https://example.com/b'], tags: [] };
      const finished = await store.purges.finish(job, { failed, purgeIds: ['p1', 'p2'] });
      expect(finished).toMatchObject({
        status: 'partial',
        failed,
        purgeIds: ['p1', 'p2'],
        finishedAt: clock.now(),
      });
      expect(await store.purges.get(job.id)).toEqual(finished);
      expect(
        await store.purges.finish(job, { failed: { files: [], tags: [] }, purgeIds: [] }),
      ).toBeUndefined();
    });

    it('calls a job that failed whole "failed", and one with no failure "succeeded"', async () => {
      const { store } = await testStore(backend);
      const base = {
        workspaceId: 'T1',
        zoneId: 'z1',
        zoneName: 'e.com',
        actorId: 'U1',
        fileCount: 1,
        tagCount: 1,
      };
      const all = await store.purges.create(base);
      const none = await store.purges.create({ ...base, retryOf: all.id });
      expect(
        (await store.purges.finish(all, { failed: { files: ['u'], tags: ['t'] }, purgeIds: [] }))
          ?.status,
      ).toBe('failed');
      expect(
        (await store.purges.finish(none, { failed: { files: [], tags: [] }, purgeIds: [] }))
          ?.status,
      ).toBe('succeeded');
      expect((await store.purges.get(none.id))?.retryOf).toBe(all.id);
    });
  });
}
