// 0026_account_watches_reports on a database made by 0001–0022: rows with no account name
// `default`'s id, and a channel's watch and a live report are unique per account.
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrations.js';
import { BACKENDS, testDatabase } from '../helpers/store.js';

type Raw = Kysely<Record<string, Record<string, unknown>>>;

const account = (id: string, name: string) => ({
  id,
  workspace_id: 'T1',
  name,
  name_key: name,
  sealed_as: 'account',
  created_at: 1,
  updated_at: 1,
});

const watch = (id: string, accountId: string | null) => ({
  id,
  workspace_id: 'T1',
  account_id: accountId,
  zone_id: 'zone_1',
  zone_name: 'shop.example',
  channel_id: 'C1',
  created_by: 'U1',
  rules: '[]',
  created_at: 1,
  updated_at: 1,
});

const report = (id: string, accountId: string | null) => ({
  id,
  workspace_id: 'T1',
  account_id: accountId,
  zone_id: 'zone_1',
  zone_name: 'shop.example',
  channel_id: 'C1',
  created_by: 'U1',
  time_of_day: '09:00',
  time_zone: 'UTC',
  status: 'active',
  next_run_at: 1,
  created_at: 1,
  updated_at: 1,
});

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`0026_account_watches_reports on ${backend}`, () => {
    it('names default for rows without an account, and widens the uniques with the account', async () => {
      const { db, dialect } = openDatabase(await testDatabase(backend));
      try {
        await migrate(db, dialect, { upTo: '0022_account_zone_index' });
        const raw = db as unknown as Raw;
        await raw
          .insertInto('workspaces')
          .values({
            id: 'T1',
            approval_ttl_minutes: 30,
            report_time_of_day: '09:00',
            created_at: 1,
            updated_at: 1,
          })
          .execute();
        await raw
          .insertInto('cdn_accounts')
          .values([account('A0', 'default'), account('A1', 'staging')])
          .execute();
        await raw.insertInto('watches').values(watch('W0', null)).execute();
        await raw.insertInto('schedules').values(report('S0', null)).execute();
        // Before: the same zone id in the same channel, in another account, is refused.
        await expect(
          raw.insertInto('watches').values(watch('W1', 'A1')).execute(),
        ).rejects.toThrow();

        expect(await migrate(db, dialect, { upTo: '0026_account_watches_reports' })).toContain(
          '0026_account_watches_reports',
        );
        const accountOf = async (table: string, id: string) =>
          (await raw.selectFrom(table).select('account_id').where('id', '=', id).executeTakeFirst())
            ?.account_id;
        expect(await accountOf('watches', 'W0')).toBe('A0');
        expect(await accountOf('schedules', 'S0')).toBe('A0');

        await raw.insertInto('watches').values(watch('W1', 'A1')).execute();
        await expect(
          raw.insertInto('watches').values(watch('W2', 'A1')).execute(),
        ).rejects.toThrow();
        await expect(
          raw.insertInto('schedules').values(report('S1', 'A0')).execute(),
        ).rejects.toThrow();
        // Another account's watched zone of the same id as `default`'s has its own row.
        await raw
          .insertInto('account_watch_zones')
          .values({
            workspace_id: 'T1',
            account_id: 'A1',
            zone_id: 'zone_1',
            zone_name: 'shop.example',
            status: 'active',
            next_run_at: 1,
            updated_at: 1,
          })
          .execute();
      } finally {
        await db.destroy();
      }
    });
  });
}
