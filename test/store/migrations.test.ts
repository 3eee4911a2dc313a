import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { Keyring } from '../../src/store/crypto.js';
import { openStore } from '../../src/store/index.js';
import { BACKENDS, testDatabase, testKey, testStore } from '../helpers/store.js';

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`migrations on ${backend}`, () => {
    it('migrate a fresh database once, and nothing on the next start', async () => {
      const database = await testDatabase(backend);
      const { store } = await testStore(backend, { database });
      const executed = await store.db
        .selectFrom('kysely_migration' as never)
        .select(sql<string>`name`.as('name'))
        .execute();
      expect(executed.map((row) => row.name)).toEqual([
        '0001_initial',
        '0002_purges',
        '0003_change_counters',
        '0004_durable_work',
      ]);
      const again = await openStore({ database, keyring: new Keyring([testKey('k1', 1)]) });
      await again.close();
      const count = await store.db
        .selectFrom('kysely_migration' as never)
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(executed.length);
    });

    it('survives several replicas starting at the same moment', async () => {
      const database = await testDatabase(backend);
      const replicas = await Promise.all(
        [1, 2, 3, 4, 5].map(() => testStore(backend, { database })),
      );
      // Every replica works on the one schema.
      await replicas[0]?.store.workspaces.ensure('T1');
      for (const replica of replicas) {
        expect((await replica.store.workspaces.get('T1'))?.id).toBe('T1');
      }
    });
  });
}
