import { describe, expect, it } from 'vitest';
import type { NewAuditEntry } from '../../src/store/audit-log.js';
import { BACKENDS, testStore } from '../helpers/store.js';

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`audit log on ${backend}`, () => {
    it('records entries with structured detail and lists the newest first', async () => {
      const { store, clock } = await testStore(backend);
      for (let i = 0; i < 25; i++) {
        await store.audit.record({
          workspaceId: 'T1',
          actorId: 'U1',
          action: 'purge.files',
          zoneId: i % 2 ? 'zone_a' : 'zone_b',
          zoneName: i % 2 ? 'a.example.com' : 'b.example.com',
          accountId: i % 2 ? 'account-a' : 'account-b',
          outcome: 'ok',
          detail: { count: i, purgeIds: [`purge_${i}`] },
        });
        // Same millisecond for pairs: order must still be stable (by id).
        if (i % 2) clock.advance(1_000);
      }
      await store.audit.record({
        workspaceId: 'T2',
        actorId: 'U9',
        action: 'credentials.set',
        outcome: 'ok',
      });

      const recent = await store.audit.recent('T1');
      expect(recent).toHaveLength(20);
      expect(recent[0]?.detail).toEqual({ count: 24, purgeIds: ['purge_24'] });
      expect(recent.map((e) => e.detail?.count)).toEqual(
        Array.from({ length: 20 }, (_, i) => 24 - i),
      );

      const byName = await store.audit.recent('T1', { zone: 'a.example.com', limit: 3 });
      expect(byName.map((e) => e.detail?.count)).toEqual([23, 21, 19]);
      const byId = await store.audit.recent('T1', { zone: 'zone_a', limit: 3 });
      expect(byId).toEqual(byName);
      const byAccount = await store.audit.search(
        'T1',
        { account: { id: 'account-a' } },
        { limit: 3 },
      );
      expect(byAccount).toEqual(byName);
      expect(byAccount[0]?.accountId).toBe('account-a');
      // An entry on a zone names its account (its type says so): the database refuses one that
      // does not, whatever wrote it.
      const unnamed = {
        workspaceId: 'T1',
        actorId: 'U1',
        action: 'purge.files',
        zoneId: 'zone_a',
        zoneName: 'a.example.com',
        outcome: 'ok',
      } as unknown as NewAuditEntry;
      await expect(store.audit.record(unnamed)).rejects.toThrow();

      const other = await store.audit.recent('T2');
      expect(other).toEqual([
        expect.objectContaining({ action: 'credentials.set', zoneId: null, detail: null }),
      ]);
      expect(other[0]).not.toHaveProperty('accountId');
    });

    it('finds a zone’s entries in a time range, oldest first', async () => {
      const { store, clock } = await testStore(backend);
      const start = clock.now();
      for (let i = 0; i < 5; i++) {
        await store.audit.record({
          workspaceId: 'T1',
          actorId: 'U1',
          action: 'ratelimit.on',
          zoneId: 'z',
          zoneName: 'z.example.com',
          accountId: 'account-1',
          outcome: 'ok',
        });
        clock.advance(60_000);
      }
      const entries = await store.audit.forZoneBetween(
        'T1',
        'z',
        start + 60_000,
        start + 3 * 60_000,
      );
      expect(entries.map((e) => e.at)).toEqual([start + 60_000, start + 2 * 60_000]);
    });
  });
}
