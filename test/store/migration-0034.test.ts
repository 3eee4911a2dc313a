// 0034_one_account_model on a database left by each earlier version, with a row in every table
// that then existed: afterwards every zone-holding row names its account, `default`'s key is in
// cdn_accounts alone, and one zone index and one watched-zones table hold every account's rows.
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { Keyring } from '../../src/store/crypto.js';
import { openDatabase } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { migrate } from '../../src/store/migrations.js';
import { BACKENDS, testDatabase, testKey } from '../helpers/store.js';

type Raw = Kysely<Record<string, Record<string, unknown>>>;

const keyring = new Keyring([testKey('k1', 1)]);
const zone = { zone_id: 'zone_1', zone_name: 'shop.example' };
const cdnZone = { id: 'zone_1', name: 'shop.example', status: 'active', createdAt: '2026-01-01' };
const at = { created_at: 100, updated_at: 100 };
const work = { ...zone, channel_id: 'C1', created_by: 'U1', account_id: null };

/**
 * Rows in today's columns (and the dropped ones), `default`'s with no account as an older replica
 * wrote them; each insert keeps only the tables and columns the version had.
 */
function rows(sealedKey: string): Array<[table: string, row: Record<string, unknown>]> {
  return [
    ['workspaces', { id: 'T1', cdn_base_url: 'https://eu.cdn.example/v1', ...base() }],
    ['workspaces', { id: 'T2', cdn_base_url: null, ...base() }],
    [
      'cdn_credentials',
      {
        workspace_id: 'T1',
        api_key: sealedKey,
        key_id: 'k1',
        set_by: 'U1',
        set_at: 100,
        last_validated_at: 100,
        generation: 'gen-T1',
      },
    ],
    // From 0016 on, `default` as the expand release mirrored it, and another account.
    ['cdn_accounts', account('A0', 'default', 'stale-mirror')],
    ['cdn_accounts', account('A1', 'staging', 'sealed-staging')],
    [
      'zone_index_state',
      { workspace_id: 'T1', generation: 'gen-T1', refreshed_at: 100, ...state() },
    ],
    ['zone_index', { workspace_id: 'T1', account_id: null, ...indexed() }],
    [
      'account_zone_index_state',
      { workspace_id: 'T1', account_id: 'A1', generation: 'gen-A1', refreshed_at: 100, ...state() },
    ],
    ['account_zone_index', { workspace_id: 'T1', account_id: 'A1', ...indexed() }],
    [
      'channel_bindings',
      {
        workspace_id: 'T1',
        ...zone,
        channel_id: 'C1',
        generation: 'gen-T1',
        set_by: 'U1',
        set_at: 100,
        account_id: null,
      },
    ],
    ['watches', { id: 'W0', workspace_id: 'T1', ...work, rules: '[]', ...at }],
    [
      'watches',
      {
        id: 'W1',
        workspace_id: 'T1',
        ...work,
        channel_id: 'C2',
        account_id: 'A1',
        rules: '[]',
        ...at,
      },
    ],
    [
      'watch_zones',
      {
        workspace_id: 'T1',
        ...zone,
        status: 'active',
        next_run_at: 200,
        updated_at: 100,
        account_id: null,
      },
    ],
    [
      'account_watch_zones',
      {
        workspace_id: 'T1',
        ...zone,
        account_id: 'A1',
        status: 'active',
        next_run_at: 200,
        updated_at: 100,
      },
    ],
    ['watch_rule_states', { watch_id: 'W0', rule: 'spike', updated_at: 100, account_id: null }],
    [
      'watch_alerts',
      {
        id: 'AL0',
        workspace_id: 'T1',
        watch_id: 'W0',
        ...zone,
        channel_id: 'C1',
        rule: 'spike',
        status: 'firing',
        started_at: 100,
        detail: '{}',
        created_at: 100,
        account_id: null,
      },
    ],
    [
      'schedules',
      {
        id: 'S0',
        workspace_id: 'T1',
        ...work,
        time_of_day: '09:00',
        time_zone: 'UTC',
        status: 'active',
        next_run_at: 200,
        ...at,
      },
    ],
    [
      'approvals',
      {
        id: 'AP0',
        workspace_id: 'T1',
        ...zone,
        requester_id: 'U1',
        reason: 'r',
        channel_id: 'C1',
        status: 'pending',
        expires_at: 900,
        ...at,
        account_id: null,
      },
    ],
    [
      'purges',
      {
        id: 'P0',
        workspace_id: 'T1',
        ...zone,
        actor_id: 'U1',
        file_count: 1,
        tag_count: 0,
        status: 'succeeded',
        created_at: 100,
        account_id: null,
      },
    ],
    [
      'audit_log',
      {
        workspace_id: 'T1',
        actor_id: 'U1',
        action: 'purge',
        ...zone,
        outcome: 'ok',
        at: 100,
        account_id: null,
      },
    ],
    [
      'audit_log',
      {
        workspace_id: 'T2',
        actor_id: 'U1',
        action: 'purge',
        ...zone,
        outcome: 'ok',
        at: 100,
        account_id: null,
      },
    ],
    [
      'audit_log',
      {
        workspace_id: 'T1',
        actor_id: 'U1',
        action: 'config',
        zone_id: null,
        zone_name: null,
        outcome: 'ok',
        at: 100,
        account_id: null,
      },
    ],
    ['api_tokens', token('TK0', null)],
    ['api_tokens', { ...token('TK1', null), account_scope: 'all' }],
    [
      'api_purges',
      {
        id: 'AQ0',
        workspace_id: 'T1',
        token_id: 'TK0',
        token_name: 'ci',
        body_hash: 'h',
        ...zone,
        kind: 'urls',
        status: 'queued',
        done: 0,
        total: 1,
        ...at,
        account_id: null,
      },
    ],
    [
      'jobs',
      job('J-purge', 'purge', { actorId: 'U1', groups: [{ zone: cdnZone, files: 1, tags: 0 }] }),
    ],
    ['jobs', job('J-eval', 'watch_eval', { zoneId: 'zone_1', dueAt: 200 })],
    ['jobs', { ...job('J-index', 'zone_index', {}), key: 'zone-index:T1' }],
  ];
}

const base = () => ({
  enterprise_id: null,
  operator_group_id: null,
  approver_group_id: null,
  approval_ttl_minutes: 30,
  report_time_of_day: '09:00',
  ...at,
});
const account = (id: string, name: string, key: string) => ({
  id,
  workspace_id: 'T1',
  name,
  name_key: name,
  api_key: key,
  key_id: 'k1',
  sealed_as: 'account',
  set_by: 'U1',
  set_at: 50,
  generation: `gen-${id}`,
  ...at,
});
const state = () => ({ cdn_total: 1, zone_count: 1, updated_at: 100 });
const indexed = () => ({
  zone_id: 'zone_1',
  name: 'shop.example',
  name_key: 'shop.example',
  status: 'active',
  zone_created_at: '2026-01-01',
});
const token = (id: string, accountId: string | null) => ({
  id,
  workspace_id: 'T1',
  name: id,
  token_hash: `hash-${id}`,
  token_hint: 'cdnb_x',
  account_id: accountId,
  kinds: '["urls_tags"]',
  created_by: 'U1',
  created_at: 100,
});
const job = (id: string, kind: string, payload: unknown) => ({
  id,
  workspace_id: 'T1',
  kind,
  key: null,
  state: 'queued',
  payload: JSON.stringify(payload),
  attempts: 0,
  run_at: 100,
  ...at,
});

/**
 * The tables of this test's database (on PostgreSQL, its own schema: the introspection lists every
 * schema's, and other tests' run at the same time).
 */
async function tablesOf(raw: Raw): Promise<Map<string, Set<string>>> {
  const { rows } = await sql<{ s: string | null }>`select current_schema() as s`
    .execute(raw)
    .catch(() => ({ rows: [{ s: null }] }));
  const schema = rows[0]?.s ?? undefined;
  if (schema === undefined)
    return new Map(
      (await raw.introspection.getTables()).map((t) => [
        t.name,
        new Set(t.columns.map((c) => c.name)),
      ]),
    );
  // Only this schema's catalog: Kysely's introspection reads every schema's, and fails when another
  // test drops its own schema meanwhile.
  const columns = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = ${schema}`.execute(raw);
  const tables = new Map<string, Set<string>>();
  for (const { table_name, column_name } of columns.rows)
    tables.set(table_name, (tables.get(table_name) ?? new Set()).add(column_name));
  return tables;
}

/** Each row into its table as the version had it: tables and columns it lacked are left out. */
async function seed(raw: Raw, sealedKey: string): Promise<Set<string>> {
  const tables = await tablesOf(raw);
  for (const [table, row] of rows(sealedKey)) {
    const columns = tables.get(table);
    if (!columns) continue;
    const kept = Object.fromEntries(Object.entries(row).filter(([column]) => columns.has(column)));
    await raw.insertInto(table).values(kept).execute();
  }
  return new Set(tables.keys());
}

const EARLIER = MIGRATIONS.map(([name]) => name).filter((name) => name < '0034');

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`0034_one_account_model on ${backend}`, () => {
    it.each(EARLIER)(
      'from a database at %s',
      async (version) => {
        const database = await testDatabase(backend);
        const { db, dialect } = openDatabase(database);
        const raw = db as unknown as Raw;
        const sealed = keyring.encrypt('cdn-key-T1', {
          workspace: 'T1',
          column: 'cdn_credentials.api_key',
        });
        try {
          await migrate(db, dialect, { upTo: version });
          const had = await seed(raw, sealed);
          // Every later migration, this one last.
          expect((await migrate(db, dialect)).at(-1)).toBe('0034_one_account_model');

          const tables = await tablesOf(raw);
          for (const gone of [
            'cdn_credentials',
            'account_zone_index',
            'account_zone_index_state',
            'account_watch_zones',
          ])
            expect(tables.has(gone)).toBe(false);
          expect(tables.get('workspaces')?.has('cdn_base_url')).toBe(false);

          const defaults = await raw
            .selectFrom('cdn_accounts')
            .selectAll()
            .where('name_key', '=', 'default')
            .orderBy('workspace_id')
            .execute();
          // T2 had zone rows (an audit entry) and never a key: its `default` is made, keyless.
          expect(defaults.map((a) => [a.workspace_id, a.api_key])).toEqual([
            ['T1', sealed],
            ['T2', null],
          ]);
          const [t1] = defaults;
          expect(t1).toMatchObject({
            sealed_as: 'credentials',
            generation: version >= '0005' ? 'gen-T1' : 'T1:100',
            base_url: 'https://eu.cdn.example/v1',
            set_by: 'U1',
            set_at: expect.anything(),
          });
          const id = t1?.id;
          // `default`'s key opens as it was sealed (for cdn_credentials, until a rotation).
          const opened = keyring.decrypt(String(t1?.api_key), {
            workspace: 'T1',
            column: 'cdn_credentials.api_key',
          });
          expect(opened).toBe('cdn-key-T1');

          const accountsOf = async (table: string) =>
            (await raw.selectFrom(table).select('account_id').execute()).map((r) => r.account_id);
          // What each table held at the version; before 0016, every row was `default`'s.
          const since = (v: string) => version >= v;
          for (const table of [
            'approvals',
            'schedules',
            'purges',
            'channel_bindings',
            'watch_alerts',
            'api_purges',
          ])
            expect(await accountsOf(table), table).toEqual(had.has(table) ? [id] : []);
          // A rule's state is its watch's: it no longer copies the account.
          expect(tables.get('watch_rule_states')?.has('account_id')).toBe(false);
          const sorted = (ids: unknown[]) => ids.sort();
          const watches = !had.has('watches') ? [] : since('0016') ? [id, 'A1'] : [id, id];
          expect(sorted(await accountsOf('watches')), 'watches').toEqual(sorted(watches));
          const watched = !had.has('watch_zones') ? [] : since('0026') ? [id, 'A1'] : [id];
          expect(sorted(await accountsOf('watch_zones')), 'watch_zones').toEqual(sorted(watched));
          const indexed = !had.has('zone_index') ? [] : since('0022') ? [id, 'A1'] : [id];
          expect(sorted(await accountsOf('zone_index')), 'zone_index').toEqual(sorted(indexed));
          // 0005 gave each workspace with a key a state, to be built at the next start.
          const states = had.has('zone_index') ? indexed : [id];
          expect(sorted(await accountsOf('zone_index_state')), 'state').toEqual(sorted(states));
          const audit = await raw
            .selectFrom('audit_log')
            .select(['workspace_id', 'zone_id', 'account_id'])
            .orderBy('id')
            .execute();
          expect(audit).toEqual([
            { workspace_id: 'T1', zone_id: 'zone_1', account_id: id },
            { workspace_id: 'T2', zone_id: 'zone_1', account_id: defaults[1]?.id },
            // 0016 named `default` on every row it found, a zone's or not.
            { workspace_id: 'T1', zone_id: null, account_id: since('0016') ? null : id },
          ]);
          const tokens = await raw
            .selectFrom('api_tokens')
            .select(['id', 'account_id'])
            .orderBy('id')
            .execute();
          // Before 0029 no token reached every account: TK1 was `default`'s too.
          expect(tokens).toEqual(
            !had.has('api_tokens')
              ? []
              : [
                  { id: 'TK0', account_id: id },
                  { id: 'TK1', account_id: since('0029') ? null : id },
                ],
          );
          const payloads = new Map(
            (await raw.selectFrom('jobs').select(['id', 'payload']).execute()).map((j) => [
              j.id,
              JSON.parse(String(j.payload)),
            ]),
          );
          if (had.has('jobs')) {
            expect(payloads.get('J-purge').groups[0].zone).toEqual({ ...cdnZone, accountId: id });
            expect(payloads.get('J-eval')).toEqual({ zoneId: 'zone_1', dueAt: 200, accountId: id });
            expect(payloads.has('J-index')).toBe(false);
          }

          // Not null now: a row without its account is refused.
          await expect(
            raw
              .insertInto('purges')
              .values({
                id: 'P9',
                workspace_id: 'T1',
                ...zone,
                actor_id: 'U1',
                file_count: 1,
                tag_count: 0,
                status: 'running',
                created_at: 1,
                account_id: null,
              })
              .execute(),
          ).rejects.toThrow();
          await expect(
            raw
              .insertInto('audit_log')
              .values({
                workspace_id: 'T1',
                actor_id: 'U1',
                action: 'purge',
                ...zone,
                outcome: 'ok',
                at: 1,
                account_id: null,
              })
              .execute(),
          ).rejects.toThrow();
        } finally {
          await db.destroy();
        }
        // Every migration runs on each database: generous on a loaded machine.
      },
      30_000,
    );
  });
}
