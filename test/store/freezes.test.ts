import { describe, expect, it } from 'vitest';
import type { NewFreeze } from '../../src/store/freezes.js';
import { BACKENDS, testStore } from '../helpers/store.js';

const freeze: NewFreeze = {
  workspaceId: 'T1',
  scope: 'zone',
  accountId: 'acc-1',
  zoneId: 'zone_1',
  targetName: 'example.com',
  rule: {
    kind: 'weekly',
    start: { weekday: 5, time: '16:00' },
    end: { weekday: 1, time: '08:00' },
  },
  timeZone: 'Europe/Paris',
  reason: 'release train',
  channelId: 'C1',
  purges: true,
  createdBy: 'U_ADMIN',
};

const exception = (freezeId: string, expiresAt: number) => ({
  workspaceId: 'T1',
  freezeId,
  action: 'everything' as const,
  zoneId: 'zone_1',
  accountId: 'acc-1',
  targetName: 'example.com',
  requesterId: 'U_REQ',
  reason: 'hotfix',
  channelId: 'C1',
  expiresAt,
});

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`freezes on ${backend}`, () => {
    it('stores a freeze as declared, lists it until removed once', async () => {
      const { store } = await testStore(backend);
      const made = await store.freezes.create(freeze);
      expect(await store.freezes.list('T1')).toEqual([made]);
      expect(made).toMatchObject({ purges: true, announcedStart: 0, rule: freeze.rule });
      const [first, second] = await Promise.all([
        store.freezes.remove('T1', made.id, 'U_ADMIN'),
        store.freezes.remove('T1', made.id, 'U_OTHER'),
      ]);
      expect([first, second].filter(Boolean)).toHaveLength(1);
      expect(await store.freezes.list('T1')).toEqual([]);
    });

    it('moves an announcement mark for one caller only', async () => {
      const { store } = await testStore(backend);
      const made = await store.freezes.create(freeze);
      const moves = await Promise.all([
        store.freezes.markAnnounced(made.id, 'start', 0, 1_000),
        store.freezes.markAnnounced(made.id, 'start', 0, 1_000),
      ]);
      expect(moves.filter(Boolean)).toHaveLength(1);
      expect((await store.freezes.get('T1', made.id))?.announcedStart).toBe(1_000);
    });

    it('decides an exception once, and uses an approved one once', async () => {
      const { store, clock } = await testStore(backend);
      const made = await store.freezes.create(freeze);
      const asked = await store.freezes.createException(exception(made.id, clock.now() + 60_000));
      const use = () =>
        store.freezes.useException({
          workspaceId: 'T1',
          requesterId: 'U_REQ',
          action: 'everything',
          zoneId: 'zone_1',
          accountId: 'acc-1',
        });
      expect(await use()).toBeUndefined();
      const decisions = await Promise.all([
        store.freezes.decideException(asked.id, 'approved', 'U_A'),
        store.freezes.decideException(asked.id, 'denied', 'U_B'),
      ]);
      expect(decisions.filter(Boolean)).toHaveLength(1);
      const second = await store.freezes.createException(exception(made.id, clock.now() + 60_000));
      expect(await store.freezes.decideException(second.id, 'approved', 'U_A')).toBeDefined();
      // Each approved exception (the second, and the first if its approval won) is used once.
      const approved = decisions[0] === undefined ? 1 : 2;
      const uses = await Promise.all([use(), use(), use()]);
      expect(uses.filter(Boolean)).toHaveLength(approved);
      expect(await use()).toBeUndefined();
    });

    it('an approved exception is worth nothing past its window', async () => {
      const { store, clock } = await testStore(backend);
      const made = await store.freezes.create(freeze);
      const asked = await store.freezes.createException(exception(made.id, clock.now() + 60_000));
      await store.freezes.decideException(asked.id, 'approved', 'U_A');
      clock.advance(60_000);
      expect(
        await store.freezes.useException({
          workspaceId: 'T1',
          requesterId: 'U_REQ',
          action: 'everything',
          zoneId: 'zone_1',
          accountId: 'acc-1',
        }),
      ).toBeUndefined();
    });
  });
}
