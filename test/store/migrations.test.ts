import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { reachAmong } from '../../src/services/api/api-tokens.js';
import { Keyring } from '../../src/store/crypto.js';
import { openDatabase } from '../../src/store/db.js';
import { openStore } from '../../src/store/index.js';
import { migrate } from '../../src/store/migrations.js';
import { DEFAULT_LIMITS } from '../../src/store/workspaces.js';
import { captureLogs } from '../helpers/logs.js';
import { BACKENDS, testDatabase, testKey, testStore } from '../helpers/store.js';

/** A workspaces row as the schema had it before 0010 (no guest_access). */
const oldWorkspace = (id: string, at: number) => ({
  id,
  enterprise_id: null,
  cdn_base_url: null,
  operator_group_id: null,
  approver_group_id: null,
  approval_ttl_minutes: 30,
  report_time_of_day: '09:00',
  created_at: at,
  updated_at: at,
});

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
        '0005_zone_index',
        '0006_channel_bindings',
        '0007_watches',
        '0008_rate_slots',
        '0009_alert_ratelimit_claims',
        '0010_workspace_guest_access',
        '0011_watch_paused',
        '0012_retention_audit_by_time',
        '0013_reports_unique',
        '0014_once_alert_ratelimit_jobs',
        '0015_workspace_limits',
        '0016_cdn_accounts',
        '0017_api_tokens',
        '0019_audit_search',
        '0021_workspace_uninstalled',
        '0022_account_zone_index',
        '0023_account_roles',
        '0024_approval_api_requester',
        '0025_approvals_per_account',
        '0026_account_watches_reports',
        '0027_api_purge_account',
        '0028_approval_account_name',
        '0029_api_token_account_scope',
        '0030_channel_binding_removed_account',
        '0032_freezes',
        '0033_approval_not_before',
        '0034_one_account_model',
      ]);
      const again = await openStore({ database, keyring: new Keyring([testKey('k1', 1)]) });
      await again.close();
      const count = await store.db
        .selectFrom('kysely_migration' as never)
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(executed.length);
    });

    it('starts on a database a newer version migrated further (a rollback), with a warning', async () => {
      const database = await testDatabase(backend);
      const { store } = await testStore(backend, { database });
      await store.db
        .insertInto('kysely_migration' as never)
        .values({ name: '9999_from_the_future', timestamp: new Date().toISOString() } as never)
        .execute();
      const logs = captureLogs('warn');
      const older = await openStore({
        database,
        keyring: new Keyring([testKey('k1', 1)]),
        logger: logs.logger,
      });
      await older.close();
      expect(logs.text()).toContain('the database was migrated by a newer version');
      expect(logs.text()).toContain('9999_from_the_future');
      // Without one of this version's own migrations, it is no rollback: Kysely refuses as before.
      const { db, dialect } = openDatabase(database);
      try {
        await db
          .deleteFrom('kysely_migration' as never)
          .where(sql`name`, '=', '0005_zone_index')
          .execute();
        await expect(migrate(db, dialect)).rejects.toThrow(/corrupted migrations/);
      } finally {
        await db.destroy();
      }
    });

    it('0015 leaves existing workspaces at the default limits, and stores what an admin sets', async () => {
      const database = await testDatabase(backend);
      const { db, dialect } = openDatabase(database);
      try {
        await migrate(db, dialect, { upTo: '0014_once_alert_ratelimit_jobs' });
        const raw = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
        await raw
          .insertInto('workspaces')
          .values({ ...oldWorkspace('T1', 1), guest_access: 'read' })
          .execute();
        expect(await migrate(db, dialect, { upTo: '0015_workspace_limits' })).toEqual([
          '0015_workspace_limits',
        ]);
      } finally {
        await db.destroy();
      }
      const { store } = await testStore(backend, { database });
      expect((await store.workspaces.get('T1'))?.limits).toEqual(DEFAULT_LIMITS);
      const updated = await store.workspaces.update('T1', { limits: { watches: 300 } });
      expect(updated.limits).toEqual({ ...DEFAULT_LIMITS, watches: 300 });
    });

    it('0029 binds tokens stored without an account to `default`, keeps the others, and widens none', async () => {
      const database = await testDatabase(backend);
      const { db, dialect } = openDatabase(database);
      try {
        await migrate(db, dialect, { upTo: '0028_approval_account_name' });
        const raw = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
        // T1: `default` (its single key, migrated by 0016) and `prod`, added since; T2: `prod`
        // only (no `default`); T3: no account at all.
        for (const id of ['T1', 'T2', 'T3'])
          await raw.insertInto('workspaces').values(oldWorkspace(id, 1)).execute();
        const account = (id: string, workspaceId: string, name: string) => ({
          id,
          workspace_id: workspaceId,
          name,
          name_key: name,
          base_url: null,
          api_key: 'sealed',
          key_id: 'k1',
          set_by: 'U1',
          set_at: 1,
          last_validated_at: null,
          generation: `g-${id}`,
          created_at: 1,
          updated_at: 1,
        });
        await raw
          .insertInto('cdn_accounts')
          .values([
            account('acc-default-1', 'T1', 'default'),
            account('acc-prod-1', 'T1', 'prod'),
            account('acc-prod-2', 'T2', 'prod'),
          ])
          .execute();
        const token = (id: string, workspaceId: string, accountId: string | null, over = {}) => ({
          id,
          workspace_id: workspaceId,
          name: id,
          token_hash: `hash-${id}`,
          token_hint: 'cdnb_AbCd',
          account_id: accountId,
          zones: null,
          kinds: '["urls_tags"]',
          channel_id: null,
          created_by: 'U1',
          created_at: 1,
          revoked_at: null,
          revoked_by: null,
          last_used_at: null,
          ...over,
        });
        await raw
          .insertInto('api_tokens')
          .values([
            token('old-1', 'T1', null),
            token('old-revoked-1', 'T1', null, { revoked_at: 2, revoked_by: 'U1' }),
            token('prod-1', 'T1', 'acc-prod-1'),
            token('old-2', 'T2', null),
            token('old-3', 'T3', null),
          ])
          .execute();
        expect(await migrate(db, dialect, { upTo: '0029_api_token_account_scope' })).toEqual([
          '0029_api_token_account_scope',
        ]);
        const rows = await raw
          .selectFrom('api_tokens')
          .select(['id', 'account_id', 'account_scope'])
          .orderBy('id')
          .execute();
        expect(rows).toEqual([
          { id: 'old-1', account_id: 'acc-default-1', account_scope: 'account' },
          { id: 'old-2', account_id: null, account_scope: 'account' },
          { id: 'old-3', account_id: null, account_scope: 'account' },
          { id: 'old-revoked-1', account_id: 'acc-default-1', account_scope: 'account' },
          { id: 'prod-1', account_id: 'acc-prod-1', account_scope: 'account' },
        ]);
      } finally {
        await db.destroy();
      }
      // As today's code reads them: `default` for T1's old token; T2's and T3's, which had no
      // `default`, name the keyless `default` 0034 made them; never every account.
      const { store } = await testStore(backend, { database });
      const reach = async (workspaceId: string, id: string) => {
        const token = await store.apiTokens.get(workspaceId, id);
        if (!token) throw new Error(`no token ${id}`);
        expect(token.allAccounts).toBe(false);
        return reachAmong(token, await store.accounts.list(workspaceId));
      };
      expect(await reach('T1', 'old-1')).toEqual({
        kind: 'account',
        id: 'acc-default-1',
        name: 'default',
      });
      expect(await reach('T1', 'prod-1')).toEqual({
        kind: 'account',
        id: 'acc-prod-1',
        name: 'prod',
      });
      for (const [workspaceId, id] of [
        ['T2', 'old-2'],
        ['T3', 'old-3'],
      ] as const) {
        const made = await store.accounts.byName(workspaceId, 'default');
        expect(made).toMatchObject({ hasKey: false });
        expect(await reach(workspaceId, id)).toEqual({
          kind: 'account',
          id: made?.id,
          name: 'default',
        });
      }
      expect((await store.accounts.list('T2')).map((a) => a.name)).toEqual(['default', 'prod']);
    });

    it('0030 marks no existing binding removed; binding a marked channel again clears its mark', async () => {
      const database = await testDatabase(backend);
      const { db, dialect } = openDatabase(database);
      try {
        await migrate(db, dialect, { upTo: '0029_api_token_account_scope' });
        const raw = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
        await raw.insertInto('workspaces').values(oldWorkspace('T1', 1)).execute();
        const binding = (channel: string, accountId: string | null) => ({
          workspace_id: 'T1',
          channel_id: channel,
          zone_id: 'z1',
          zone_name: 'example.com',
          generation: 'g1',
          set_by: 'U1',
          set_at: 1,
          account_id: accountId,
        });
        await raw
          .insertInto('channel_bindings')
          .values([binding('C1', null), binding('C2', 'acc-staging')])
          .execute();
        expect(
          await migrate(db, dialect, { upTo: '0030_channel_binding_removed_account' }),
        ).toEqual(['0030_channel_binding_removed_account']);
        const rows = await raw
          .selectFrom('channel_bindings')
          .select(['channel_id', 'removed_account'])
          .orderBy('channel_id')
          .execute();
        expect(rows).toEqual([
          { channel_id: 'C1', removed_account: null },
          { channel_id: 'C2', removed_account: null },
        ]);
      } finally {
        await db.destroy();
      }
      // As today's code reads and writes them: marked when its account is removed, unmarked once
      // the channel is bound again.
      const { store } = await testStore(backend, { database });
      expect((await store.channelBindings.view('T1', 'C2')).binding).not.toHaveProperty(
        'removedAccount',
      );
      await store.db
        .updateTable('channel_bindings')
        .set({ removed_account: 'staging' })
        .where('channel_id', '=', 'C2')
        .execute();
      expect((await store.channelBindings.view('T1', 'C2')).binding?.removedAccount).toBe(
        'staging',
      );
      await store.channelBindings.set(
        'T1',
        'C2',
        { id: 'z2', name: 'shop.example' },
        'g1',
        'U2',
        'acc-staging',
      );
      expect((await store.channelBindings.view('T1', 'C2')).binding).toMatchObject({
        zoneName: 'shop.example',
      });
      expect((await store.channelBindings.view('T1', 'C2')).binding).not.toHaveProperty(
        'removedAccount',
      );
    });

    it('0013 keeps the oldest of identical live reports, stops the others, and refuses another', async () => {
      const database = await testDatabase(backend);
      const { db, dialect } = openDatabase(database);
      try {
        await migrate(db, dialect, { upTo: '0012_retention_audit_by_time' });
        // Rows as the schema had them then.
        const raw = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
        const report = (id: string, createdAt: number, over: Record<string, unknown> = {}) => ({
          id,
          workspace_id: 'T1',
          zone_id: 'zone_1',
          zone_name: 'example.com',
          channel_id: 'C1',
          created_by: 'U1',
          time_of_day: '09:00',
          time_zone: 'Europe/Paris',
          status: 'active',
          next_run_at: 0,
          last_run_at: null,
          paused_reason: null,
          created_at: createdAt,
          updated_at: createdAt,
          ...over,
        });
        await raw
          .insertInto('schedules')
          .values([
            report('later', 3),
            report('oldest', 1),
            // A stopped one older than all: history, not a live duplicate.
            report('stopped', 0, { status: 'stopped' }),
            report('paused-twin', 2, { status: 'paused', paused_reason: 'bot removed' }),
            // Another time, another channel: not the same report.
            report('other-time', 2, { time_of_day: '10:00' }),
            report('other-channel', 2, { channel_id: 'C2' }),
            // Same instant as "tie-b": the smaller id is kept.
            report('tie-b', 5, { zone_id: 'zone_2' }),
            report('tie-a', 5, { zone_id: 'zone_2' }),
          ])
          .execute();
        expect(await migrate(db, dialect, { upTo: '0013_reports_unique' })).toEqual([
          '0013_reports_unique',
        ]);
        const rows = await db
          .selectFrom('schedules')
          .select(['id', 'status'])
          .orderBy('id')
          .execute();
        expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
          later: 'stopped',
          oldest: 'active',
          stopped: 'stopped',
          'paused-twin': 'stopped',
          'other-time': 'active',
          'other-channel': 'active',
          'tie-a': 'active',
          'tie-b': 'stopped',
        });
        await expect(
          raw.insertInto('schedules').values(report('again', 9)).execute(),
        ).rejects.toThrow();
        // A stopped duplicate is still allowed.
        await raw
          .insertInto('schedules')
          .values(report('stopped-again', 9, { status: 'stopped' }))
          .execute();
      } finally {
        await db.destroy();
      }
    });

    it('0014 turns the rate-limit claims stored on alerts into jobs under their keys', async () => {
      const database = await testDatabase(backend);
      const { db, dialect } = openDatabase(database);
      try {
        await migrate(db, dialect, { upTo: '0013_reports_unique' });
        const raw = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
        const alert = (id: string, claim: Record<string, unknown>) => ({
          id,
          workspace_id: 'T1',
          watch_id: 'w1',
          zone_id: 'z1',
          zone_name: 'example.com',
          channel_id: 'C1',
          rule: 'spike',
          status: 'firing',
          started_at: 1,
          resolved_at: null,
          detail: '{}',
          message_ts: null,
          ratelimit_by: null,
          ratelimit_claimed_at: null,
          ratelimit_done_at: null,
          created_at: 1_000,
          ...claim,
        });
        await raw
          .insertInto('watch_alerts')
          .values([
            alert('done', {
              ratelimit_by: 'U1',
              ratelimit_claimed_at: 2_000,
              ratelimit_done_at: 2_500,
            }),
            // Claimed before 0009 recorded times: it was made.
            alert('old', { ratelimit_by: 'U2' }),
            // Claimed, the change on its way (or its process dead): taken for two minutes.
            alert('undone', { ratelimit_by: 'U3', ratelimit_claimed_at: 3_000 }),
            alert('free', {}),
          ])
          .execute();
        expect(await migrate(db, dialect, { upTo: '0015_workspace_limits' })).toEqual([
          '0014_once_alert_ratelimit_jobs',
          '0015_workspace_limits',
        ]);
        const jobs = await db
          .selectFrom('jobs')
          .select(['key', 'kind', 'state', 'payload', 'checkpoint', 'lease_until', 'finished_at'])
          .orderBy('key')
          .execute();
        expect(
          jobs.map((j) => ({
            ...j,
            lease_until: j.lease_until && Number(j.lease_until),
            finished_at: j.finished_at && Number(j.finished_at),
          })),
        ).toEqual([
          {
            key: 'alert-ratelimit:done',
            kind: 'alert_ratelimit',
            state: 'succeeded',
            payload: '{"alertId":"done"}',
            checkpoint: '{"by":"U1"}',
            lease_until: null,
            finished_at: 2_500,
          },
          {
            key: 'alert-ratelimit:old',
            kind: 'alert_ratelimit',
            state: 'succeeded',
            payload: '{"alertId":"old"}',
            checkpoint: '{"by":"U2"}',
            lease_until: null,
            finished_at: 1_000,
          },
          {
            key: 'alert-ratelimit:undone',
            kind: 'alert_ratelimit',
            state: 'running',
            payload: '{"alertId":"undone"}',
            checkpoint: '{"by":"U3"}',
            lease_until: 123_000,
            finished_at: null,
          },
        ]);
        // This schema's columns only: Kysely's introspection reads every schema's catalog, which
        // fails when another test drops its schema at that moment.
        const columns =
          dialect === 'postgres'
            ? (
                await sql<{
                  name: string;
                }>`select column_name as name from information_schema.columns
                  where table_schema = current_schema() and table_name = 'watch_alerts'`.execute(db)
              ).rows.map((c) => c.name)
            : (await db.introspection.getTables())
                .find((t) => t.name === 'watch_alerts')
                ?.columns.map((c) => c.name);
        expect(columns?.length).toBeGreaterThan(0);
        expect(columns?.filter((n) => n.startsWith('ratelimit'))).toEqual([]);
      } finally {
        await db.destroy();
      }
    });

    it('0010 leaves the guests of every existing workspace reading only', async () => {
      const database = await testDatabase(backend);
      const { db, dialect } = openDatabase(database);
      try {
        await migrate(db, dialect, { upTo: '0009_alert_ratelimit_claims' });
        await db.insertInto('workspaces').values(oldWorkspace('T1', 0)).execute();
        expect(await migrate(db, dialect)).toContain('0010_workspace_guest_access');
        const row = await db
          .selectFrom('workspaces')
          .select('guest_access')
          .executeTakeFirstOrThrow();
        expect(row.guest_access).toBe('read');
      } finally {
        await db.destroy();
      }
    });

    it('0005 gives keys set before it a generation, and their workspaces an index to build', async () => {
      const database = await testDatabase(backend);
      const { db, dialect } = openDatabase(database);
      try {
        await migrate(db, dialect, { upTo: '0004_durable_work' });
        for (const [id, setAt] of [
          ['T1', 1_000],
          ['T2', 2_000],
        ] as const) {
          await db.insertInto('workspaces').values(oldWorkspace(id, setAt)).execute();
          await (db as unknown as Kysely<Record<string, Record<string, unknown>>>)
            .insertInto('cdn_credentials')
            .values({
              workspace_id: id,
              api_key: 'sealed',
              key_id: 'k1',
              set_by: 'U1',
              set_at: setAt,
              last_validated_at: null,
            })
            .execute();
        }
        await db.insertInto('workspaces').values(oldWorkspace('T3', 0)).execute();
        expect(await migrate(db, dialect, { upTo: '0005_zone_index' })).toEqual([
          '0005_zone_index',
        ]);
        const keys = await (db as unknown as Kysely<Record<string, Record<string, unknown>>>)
          .selectFrom('cdn_credentials')
          .select(['workspace_id', 'generation'])
          .orderBy('workspace_id')
          .execute();
        expect(keys).toEqual([
          { workspace_id: 'T1', generation: 'T1:1000' },
          { workspace_id: 'T2', generation: 'T2:2000' },
        ]);
        // The workspaces with a key (not T3) are due a build at the next start.
        const states = await db
          .selectFrom('zone_index_state')
          .select(['workspace_id', 'generation', 'refreshed_at'])
          .orderBy('workspace_id')
          .execute();
        expect(states).toEqual([
          { workspace_id: 'T1', generation: 'T1:1000', refreshed_at: null },
          { workspace_id: 'T2', generation: 'T2:2000', refreshed_at: null },
        ]);
      } finally {
        await db.destroy();
      }
    });

    it('0012 indexes audit_log by time alone: the retention sweep reads the oldest rows by it', async () => {
      const { store } = await testStore(backend);
      if (backend === 'sqlite') {
        const plan = await sql<{ detail: string }>`explain query plan
          select id from audit_log where at < ${1} limit ${1000}`.execute(store.db);
        expect(plan.rows.map((row) => row.detail).join('\n')).toContain(
          'INDEX audit_by_time (at<?)',
        );
      } else {
        const indexes = await sql<{ indexdef: string }>`select indexdef from pg_indexes
          where schemaname = current_schema() and indexname = 'audit_by_time'`.execute(store.db);
        expect(indexes.rows.map((row) => row.indexdef)).toEqual([
          expect.stringMatching(/ON \S*audit_log USING btree \(at\)$/),
        ]);
      }
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
