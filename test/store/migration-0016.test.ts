// 0016_cdn_accounts on a database made by 0001–0015: the key becomes the account `default`.
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { Keyring } from '../../src/store/crypto.js';
import { openDatabase } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrations.js';
import { rotateSecrets } from '../../src/store/rotate.js';
import { BACKENDS, testDatabase, testKey, testStore } from '../helpers/store.js';

/** Every table that names a zone, as 0016 lists them, and watch_rule_states (through its watch). */
const ZONE_TABLES = [
  'approvals',
  'schedules',
  'audit_log',
  'purges',
  'zone_index',
  'zone_index_state',
  'channel_bindings',
  'watches',
  'watch_zones',
  'watch_rule_states',
  'watch_alerts',
] as const;

type Raw = Kysely<Record<string, Record<string, unknown>>>;

/** One workspace's rows as the schema had them at 0015, each naming `zone_<team>`. */
async function seedWorkspace(raw: Raw, team: string, sealedKey: string | null) {
  const zone = { zone_id: `zone_${team}`, zone_name: `${team.toLowerCase()}.example` };
  await raw
    .insertInto('workspaces')
    .values({
      id: team,
      enterprise_id: null,
      cdn_base_url: sealedKey ? 'https://eu.cdn.example/v1' : null,
      operator_group_id: null,
      approver_group_id: null,
      approval_ttl_minutes: 30,
      report_time_of_day: '09:00',
      created_at: 1,
      updated_at: 1,
    })
    .execute();
  if (sealedKey) {
    await raw
      .insertInto('cdn_credentials')
      .values({
        workspace_id: team,
        api_key: sealedKey,
        key_id: 'k1',
        set_by: 'U1',
        set_at: 100,
        last_validated_at: 100,
        generation: `gen-${team}`,
      })
      .execute();
    await raw
      .insertInto('zone_index_state')
      .values({ workspace_id: team, generation: `gen-${team}`, refreshed_at: 100, updated_at: 100 })
      .execute();
    await raw
      .insertInto('zone_index')
      .values({
        workspace_id: team,
        ...zone,
        zone_name: undefined,
        name: zone.zone_name,
        name_key: zone.zone_name,
        status: 'active',
        zone_created_at: '2026-01-01T00:00:00Z',
      })
      .execute();
  }
  await raw
    .insertInto('channel_bindings')
    .values({
      workspace_id: team,
      channel_id: 'C1',
      ...zone,
      generation: `gen-${team}`,
      set_by: 'U1',
      set_at: 100,
    })
    .execute();
  const watchId = `watch_${team}`;
  await raw
    .insertInto('watches')
    .values({
      id: watchId,
      workspace_id: team,
      ...zone,
      channel_id: 'C1',
      created_by: 'U1',
      rules: '[]',
      created_at: 100,
      updated_at: 100,
    })
    .execute();
  await raw
    .insertInto('watch_zones')
    .values({ workspace_id: team, ...zone, status: 'active', next_run_at: 200, updated_at: 100 })
    .execute();
  await raw
    .insertInto('watch_rule_states')
    .values({ watch_id: watchId, rule: 'spike', updated_at: 100 })
    .execute();
  await raw
    .insertInto('watch_alerts')
    .values({
      id: `alert_${team}`,
      workspace_id: team,
      watch_id: watchId,
      ...zone,
      channel_id: 'C1',
      rule: 'spike',
      status: 'firing',
      started_at: 100,
      detail: '{}',
      created_at: 100,
    })
    .execute();
  await raw
    .insertInto('schedules')
    .values({
      id: `report_${team}`,
      workspace_id: team,
      ...zone,
      channel_id: 'C1',
      created_by: 'U1',
      time_of_day: '09:00',
      time_zone: 'Europe/Paris',
      status: 'active',
      next_run_at: 200,
      created_at: 100,
      updated_at: 100,
    })
    .execute();
  await raw
    .insertInto('audit_log')
    .values({
      workspace_id: team,
      actor_id: 'U1',
      action: 'purge',
      ...zone,
      outcome: 'ok',
      at: 100,
    })
    .execute();
  await raw
    .insertInto('approvals')
    .values({
      id: `approval_${team}`,
      workspace_id: team,
      ...zone,
      requester_id: 'U1',
      reason: 'why',
      channel_id: 'C1',
      status: 'pending',
      expires_at: 200,
      created_at: 100,
      updated_at: 100,
    })
    .execute();
  await raw
    .insertInto('purges')
    .values({
      id: `purge_${team}`,
      workspace_id: team,
      ...zone,
      actor_id: 'U1',
      file_count: 1,
      tag_count: 0,
      status: 'succeeded',
      created_at: 100,
    })
    .execute();
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`0016_cdn_accounts on ${backend}`, () => {
    it("makes each workspace's key and base URL its account default, and every zone row its", async () => {
      const database = await testDatabase(backend);
      const keyring = new Keyring([testKey('k1', 1)]);
      const sealed = keyring.encrypt('sk_live_T1', {
        workspace: 'T1',
        column: 'cdn_credentials.api_key',
      });
      const { db, dialect } = openDatabase(database);
      try {
        await migrate(db, dialect, { upTo: '0015_workspace_limits' });
        const raw = db as unknown as Raw;
        await seedWorkspace(raw, 'T1', sealed);
        // A workspace that never set a key: its rows keep no account (null: `default`).
        await seedWorkspace(raw, 'T2', null);
        expect(await migrate(db, dialect, { upTo: '0016_cdn_accounts' })).toEqual([
          '0016_cdn_accounts',
        ]);

        const accounts = await raw.selectFrom('cdn_accounts').selectAll().execute();
        expect(accounts).toHaveLength(1);
        const account = accounts[0] as Record<string, unknown>;
        expect(account).toMatchObject({
          workspace_id: 'T1',
          name: 'default',
          base_url: 'https://eu.cdn.example/v1',
          api_key: sealed,
          key_id: 'k1',
          sealed_as: 'credentials',
          set_by: 'U1',
          set_at: 100,
          last_validated_at: 100,
          generation: 'gen-T1',
        });
        for (const table of ZONE_TABLES) {
          const rows = await raw.selectFrom(table).select(['account_id']).execute();
          const byTeam = await raw
            .selectFrom(table)
            .select(table === 'watch_rule_states' ? ['watch_id as team'] : ['workspace_id as team'])
            .select('account_id')
            .execute();
          expect(rows.length, table).toBeGreaterThan(0);
          for (const row of byTeam) {
            const t1 = String(row.team).endsWith('T1');
            expect(row.account_id, `${table} ${row.team}`).toBe(t1 ? account.id : null);
          }
        }
      } finally {
        await db.destroy();
      }

      // The store reads it as before, through the account, and the account's key decrypts.
      const { store } = await testStore(backend, { database });
      const id = (await store.accounts.byName('T1', 'default'))?.id as string;
      expect(await store.accounts.credential('T1', id)).toMatchObject({
        apiKey: 'sk_live_T1',
        baseUrl: 'https://eu.cdn.example/v1',
        generation: 'gen-T1',
      });
      expect(await store.credentials.get('T1')).toMatchObject({
        apiKey: 'sk_live_T1',
        generation: 'gen-T1',
      });
      expect((await store.accounts.list('T1'))[0]).toMatchObject({
        name: 'default',
        hasKey: true,
        zoneCount: 0,
      });
      // T2 never had a key, but had zone rows: 0034 gave it a keyless `default` they now name.
      const t2 = await store.accounts.list('T2');
      expect(t2).toMatchObject([{ name: 'default', hasKey: false, generation: null }]);
      expect(await store.approvals.get('approval_T2')).toMatchObject({ accountId: t2[0]?.id });
      // Rotation re-seals the copied key in the account's own context.
      expect((await rotateSecrets(store.db, store.keyring))['cdn_accounts.api_key']).toBe(1);
      const row = await store.db
        .selectFrom('cdn_accounts')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.sealed_as).toBe('account');
      expect(
        store.keyring.decrypt(row.api_key as string, {
          workspace: 'T1',
          column: 'cdn_accounts.api_key',
          row: id,
        }),
      ).toBe('sk_live_T1');
    });
  });
}
