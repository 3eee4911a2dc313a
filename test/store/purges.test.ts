import { describe, expect, it } from 'vitest';
import { BACKENDS, testStore } from '../helpers/store.js';

const base = {
  workspaceId: 'T1',
  accountId: 'account-1',
  zoneId: 'z1',
  zoneName: 'example.com',
  actorId: 'U1',
  fileCount: 95,
  tagCount: 2,
  failed: { files: [], tags: [] },
  purgeIds: [],
};

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`purge records on ${backend}`, () => {
    it('keeps counts and what failed, and the first record of an id stays', async () => {
      const { store, clock } = await testStore(backend);
      const failed = { files: ['https://example.com/a', 'https://example.com/b'], tags: [] };
      const recorded = await store.purges.record({
        ...base,
        id: 'job-1-0',
        failed,
        purgeIds: ['p1', 'p2'],
      });
      expect(recorded).toMatchObject({
        id: 'job-1-0',
        accountId: 'account-1',
        status: 'partial',
        failed,
        purgeIds: ['p1', 'p2'],
        retryOf: null,
        finishedAt: clock.now(),
      });
      // A resumed job records again: nothing changes.
      clock.advance(1_000);
      const again = await store.purges.record({ ...base, id: 'job-1-0' });
      expect(again).toEqual(recorded);
      expect(await store.purges.get('job-1-0')).toEqual(recorded);
    });

    it('calls a purge that failed whole "failed", and one with no failure "succeeded"', async () => {
      const { store } = await testStore(backend);
      const small = { ...base, fileCount: 1, tagCount: 1 };
      const all = await store.purges.record({
        ...small,
        id: 'a',
        failed: { files: ['u'], tags: ['t'] },
      });
      const none = await store.purges.record({ ...small, id: 'b', retryOf: all.id });
      expect([all.status, none.status]).toEqual(['failed', 'succeeded']);
      expect((await store.purges.get('b'))?.retryOf).toBe('a');
    });

    it('calls a purge confirmed for none of it "unknown" when the CDN did not answer for some', async () => {
      const { store } = await testStore(backend);
      const small = { ...base, fileCount: 1, tagCount: 1 };
      const failed = { files: ['u'], tags: ['t'] };
      const unanswered = await store.purges.record({ ...small, id: 'a', failed, unconfirmed: 1 });
      const some = await store.purges.record({
        ...small,
        id: 'b',
        failed: { files: ['u'], tags: [] },
        unconfirmed: 1,
      });
      expect([unanswered.status, some.status]).toEqual(['unknown', 'partial']);
      expect((await store.purges.get('a'))?.status).toBe('unknown');
    });
  });
}
