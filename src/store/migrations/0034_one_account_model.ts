// Migration 0034_one_account_model. The contract step of CDN accounts: every row that holds a zone
// names its account (`default`'s id where it held null), the key of `default` lives in cdn_accounts
// alone, one zone index and one watched-zones table hold every account's rows, and the old shapes
// (cdn_credentials, workspaces.cdn_base_url, the unaccounted tables and indexes) are dropped.
// Every replica must run 0030's version or later before, and none older may run after (deploy.md).
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { SqlDialect } from '../db.js';

/** Tables whose account_id becomes NOT NULL (each names a zone, or its watch's). */
const REQUIRED = [
  'approvals',
  'schedules',
  'purges',
  'channel_bindings',
  'watches',
  'watch_alerts',
  'api_purges',
] as const;

/** Where a null account meant `default` (with the condition under which the row names one). */
const BACKFILLED: ReadonlyArray<readonly [table: string, names: string]> = [
  ...REQUIRED.map((t) => [t, 'true'] as const),
  ['audit_log', 'zone_id is not null'],
  ['api_tokens', "account_scope = 'account'"],
  ['zone_index_state', 'true'],
  ['watch_zones', 'true'],
];

/** Job kinds whose stored payload may hold a zone (or, for watch_eval, a zone id) without account. */
const ZONE_JOBS = ['purge', 'purge_hold', 'ratelimit_follow_up', 'watch_eval'];

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
type Db = Kysely<any>;

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>, dialect: SqlDialect): Promise<void> {
  const defaults = await ensureDefaults(db);
  await moveKeys(db);
  await backfill(db, defaults);
  await rewriteJobs(db, defaults);
  // An API purge says its account's name: those asked before it was kept get today's.
  await db
    .updateTable('api_purges')
    .set({
      account_name: sql`(select a.name from cdn_accounts a where a.id = api_purges.account_id)`,
    })
    .where('account_name', 'is', null)
    .execute();
  await oneZoneIndex(db, dialect);
  await oneWatchZones(db, dialect);

  // Indexes the older code needed beside this code's: the unaccounted one and the COALESCE one.
  await db.schema.dropIndex('schedules_live_unique').ifExists().execute();
  await db.schema.dropIndex('approvals_one_pending_per_account_zone').execute();
  await db.schema
    .createIndex('approvals_one_pending')
    .unique()
    .on('approvals')
    .columns(['workspace_id', 'account_id', 'zone_id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();

  // A token reaches its account, or (account_scope `all`) every account and names none.
  await db
    .updateTable('api_tokens')
    .set({ account_id: null })
    .where('account_scope', '=', 'all')
    .execute();
  const checks: Record<string, string> = {
    api_tokens: `(account_scope = 'all') = (account_id is null)`,
    audit_log: 'zone_id is null or account_id is not null',
  };
  if (dialect === 'postgres') {
    for (const table of REQUIRED)
      await sql`alter table ${sql.table(table)} alter column account_id set not null`.execute(db);
    for (const [table, check] of Object.entries(checks))
      await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_names_account`)} check (${sql.raw(check)})`.execute(
        db,
      );
  } else {
    for (const table of REQUIRED)
      await rebuildSqlite(db, table, (create) =>
        create.replace(/"account_id" text(?! not null)/i, '"account_id" text not null'),
      );
    for (const [table, check] of Object.entries(checks))
      await rebuildSqlite(db, table, (create) => create.replace(/\)\s*$/, `, check (${check}))`));
  }

  await db.schema.dropTable('cdn_credentials').execute();
  await db.schema.alterTable('workspaces').dropColumn('cdn_base_url').execute();
}

/**
 * Each workspace that has a row naming no account, a key in cdn_credentials, or a stored job
 * without its account gets its account `default` (without a key, as a logout leaves it) if it has
 * none. Rows of a workspace that no longer exists are deleted: nothing can run them.
 */
async function ensureDefaults(db: Db): Promise<Map<string, string>> {
  const needing = new Set<string>();
  const add = (rows: Array<{ workspace_id: string }>) => {
    for (const row of rows) needing.add(row.workspace_id);
  };
  for (const [table, names] of BACKFILLED)
    add(
      await db
        .selectFrom(table)
        .select('workspace_id')
        .distinct()
        .where('account_id', 'is', null)
        .where(sql<boolean>`${sql.raw(names)}`)
        .execute(),
    );
  add(await db.selectFrom('cdn_credentials').select('workspace_id').execute());
  add(
    await db
      .selectFrom('jobs')
      .select('workspace_id')
      .distinct()
      .where('kind', 'in', ZONE_JOBS)
      .where('state', 'in', ['queued', 'running'])
      .execute(),
  );
  const workspaces = new Set(
    (await db.selectFrom('workspaces').select('id').execute()).map((row) => row.id as string),
  );
  const defaults = await defaultIds(db);
  for (const workspaceId of needing) {
    if (defaults.has(workspaceId) || !workspaces.has(workspaceId)) continue;
    const id = randomUUID();
    const now = Date.now();
    await db
      .insertInto('cdn_accounts')
      .values({
        id,
        workspace_id: workspaceId,
        name: 'default',
        name_key: 'default',
        sealed_as: 'account',
        created_at: now,
        updated_at: now,
      })
      .execute();
    defaults.set(workspaceId, id);
  }
  return defaults;
}

async function defaultIds(db: Db): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('cdn_accounts')
    .select(['workspace_id', 'id'])
    .where('name_key', '=', 'default')
    .execute();
  return new Map(rows.map((row) => [row.workspace_id as string, row.id as string]));
}

/**
 * cdn_credentials and workspaces.cdn_base_url were what `default`'s key and base URL were read
 * from: they are copied onto the account as they stand (ciphertext unchanged, still sealed for
 * cdn_credentials until a rotation re-seals it); a `default` with no credentials row has no key.
 */
async function moveKeys(db: Db): Promise<void> {
  const credentialOf = (column: string) =>
    sql`(select ${sql.ref(`c.${column}`)} from cdn_credentials c where c.workspace_id = cdn_accounts.workspace_id)`;
  const hasCredentials = sql<boolean>`exists (select 1 from cdn_credentials c where c.workspace_id = cdn_accounts.workspace_id)`;
  await db
    .updateTable('cdn_accounts')
    .set({
      api_key: credentialOf('api_key'),
      key_id: credentialOf('key_id'),
      sealed_as: 'credentials',
      set_by: credentialOf('set_by'),
      set_at: credentialOf('set_at'),
      last_validated_at: credentialOf('last_validated_at'),
      generation: sql`(select coalesce(c.generation, c.workspace_id || ':' || cast(c.set_at as text))
        from cdn_credentials c where c.workspace_id = cdn_accounts.workspace_id)`,
    })
    .where('name_key', '=', 'default')
    .where(hasCredentials)
    .execute();
  await db
    .updateTable('cdn_accounts')
    .set({
      api_key: null,
      key_id: null,
      sealed_as: 'account',
      set_by: null,
      set_at: null,
      last_validated_at: null,
      generation: null,
    })
    .where('name_key', '=', 'default')
    .where(sql<boolean>`not ${hasCredentials}`)
    .execute();
  await db
    .updateTable('cdn_accounts')
    .set({
      base_url: sql`(select w.cdn_base_url from workspaces w where w.id = cdn_accounts.workspace_id)`,
    })
    .where('name_key', '=', 'default')
    .execute();
}

/** Null named `default`: say so with its id; what still names none belongs to no workspace. */
async function backfill(db: Db, defaults: Map<string, string>): Promise<void> {
  for (const [table, names] of BACKFILLED) {
    for (const [workspaceId, id] of defaults)
      await db
        .updateTable(table)
        .set({ account_id: id })
        .where('workspace_id', '=', workspaceId)
        .where('account_id', 'is', null)
        .where(sql<boolean>`${sql.raw(names)}`)
        .execute();
    await db
      .deleteFrom(table)
      .where('account_id', 'is', null)
      .where(sql<boolean>`${sql.raw(names)}`)
      .execute();
  }
  // A rule's state is its watch's, which names the account: the copy of it (never written by
  // the code since 0016) goes.
  await db.schema.alterTable('watch_rule_states').dropColumn('account_id').execute();
}

/**
 * Stored jobs that were to run on `default` without naming it: each zone in their payload, and a
 * watch evaluation's zone id, gets `default`'s id. A `default` index's refresh job, keyed by the
 * workspace alone, is dropped: the next reader holds one under the account's key.
 */
async function rewriteJobs(db: Db, defaults: Map<string, string>): Promise<void> {
  const jobs = await db
    .selectFrom('jobs')
    .select(['id', 'workspace_id', 'kind', 'payload'])
    .where('kind', 'in', ZONE_JOBS)
    .where('state', 'in', ['queued', 'running'])
    .execute();
  for (const job of jobs) {
    const accountId = defaults.get(job.workspace_id);
    if (accountId === undefined) continue;
    const payload = JSON.parse(job.payload) as unknown;
    const named = nameAccount(payload, accountId);
    if (job.kind === 'watch_eval' && isRecord(payload) && payload.accountId === undefined)
      payload.accountId = accountId;
    else if (!named) continue;
    await db
      .updateTable('jobs')
      .set({ payload: JSON.stringify(payload) })
      .where('id', '=', job.id)
      .execute();
  }
  await db
    .deleteFrom('jobs')
    .where('kind', '=', 'zone_index')
    .where('key', '=', sql`'zone-index:' || workspace_id`)
    .execute();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Gives every zone (id, name, status, createdAt) under `value` without an account this one. */
export function nameAccount(value: unknown, accountId: string): boolean {
  if (Array.isArray(value)) return value.map((item) => nameAccount(item, accountId)).some(Boolean);
  if (!isRecord(value)) return false;
  let changed = false;
  const zone = ['id', 'name', 'status', 'createdAt'].every((k) => typeof value[k] === 'string');
  if (zone && value.accountId === undefined) {
    value.accountId = accountId;
    changed = true;
  }
  for (const child of Object.values(value)) changed = nameAccount(child, accountId) || changed;
  return changed;
}

/** zone_index (`default`'s) moves into account_zone_index, which becomes zone_index. */
async function oneZoneIndex(db: Db, dialect: SqlDialect): Promise<void> {
  await sql`
    insert into account_zone_index_state
      (workspace_id, account_id, generation, refreshed_at, cdn_total, zone_count, failed_at, error, updated_at)
    select s.workspace_id, s.account_id, s.generation, s.refreshed_at, s.cdn_total, s.zone_count,
      s.failed_at, s.error, s.updated_at
    from zone_index_state s
    where exists (select 1 from cdn_accounts a where a.id = s.account_id)
      and not exists (select 1 from account_zone_index_state x
        where x.workspace_id = s.workspace_id and x.account_id = s.account_id)
  `.execute(db);
  await sql`
    insert into account_zone_index
      (workspace_id, account_id, zone_id, name, name_key, status, zone_created_at)
    select z.workspace_id, s.account_id, z.zone_id, z.name, z.name_key, z.status, z.zone_created_at
    from zone_index z join zone_index_state s on s.workspace_id = z.workspace_id
    where exists (select 1 from account_zone_index_state x
        where x.workspace_id = s.workspace_id and x.account_id = s.account_id)
      and not exists (select 1 from account_zone_index y
        where y.workspace_id = z.workspace_id and y.account_id = s.account_id and y.zone_id = z.zone_id)
  `.execute(db);
  await db.schema.dropTable('zone_index').execute();
  await db.schema.dropTable('zone_index_state').execute();
  await db.schema.alterTable('account_zone_index_state').renameTo('zone_index_state').execute();
  await db.schema.alterTable('account_zone_index').renameTo('zone_index').execute();
  // A refresh is held under the job runner's lease: the index's own lease columns go.
  await db.schema.alterTable('zone_index_state').dropColumn('lease_owner').execute();
  await db.schema.alterTable('zone_index_state').dropColumn('lease_until').execute();
  await db.schema.dropIndex('account_zone_index_by_name').execute();
  await db.schema
    .createIndex('zone_index_by_name')
    .on('zone_index')
    .columns(['workspace_id', 'name_key'])
    .execute();
  if (dialect === 'postgres') {
    await sql`alter table zone_index_state rename constraint account_zone_index_state_pk to zone_index_state_pk`.execute(
      db,
    );
    await sql`alter table zone_index rename constraint account_zone_index_pk to zone_index_pk`.execute(
      db,
    );
    await sql`alter table zone_index rename constraint account_zone_index_state_fk to zone_index_state_fk`.execute(
      db,
    );
  }
}

/** watch_zones (`default`'s) moves into account_watch_zones, which becomes watch_zones. */
async function oneWatchZones(db: Db, dialect: SqlDialect): Promise<void> {
  await sql`
    insert into account_watch_zones
      (workspace_id, account_id, zone_id, zone_name, status, next_run_at, baseline, baseline_at, updated_at)
    select w.workspace_id, w.account_id, w.zone_id, w.zone_name, w.status, w.next_run_at,
      w.baseline, w.baseline_at, w.updated_at
    from watch_zones w
    where exists (select 1 from cdn_accounts a where a.id = w.account_id)
      and not exists (select 1 from account_watch_zones x
        where x.workspace_id = w.workspace_id and x.account_id = w.account_id and x.zone_id = w.zone_id)
  `.execute(db);
  await db.schema.dropTable('watch_zones').execute();
  await db.schema.alterTable('account_watch_zones').renameTo('watch_zones').execute();
  await db.schema.dropIndex('account_watch_zones_due').execute();
  await db.schema.createIndex('watch_zones_due').on('watch_zones').column('next_run_at').execute();
  if (dialect === 'postgres')
    await sql`alter table watch_zones rename constraint account_watch_zones_pk to watch_zones_pk`.execute(
      db,
    );
}

/**
 * SQLite changes a column's constraints only by rebuilding its table: the table's own statement,
 * edited, makes a new one; the rows are copied, the old one dropped, the new one renamed and the
 * indexes made again (none of these tables is referenced by a foreign key).
 */
async function rebuildSqlite(db: Db, table: string, edit: (create: string) => string) {
  const { rows } = await sql<{ type: string; sql: string }>`
    select type, sql from sqlite_master where tbl_name = ${table} and sql is not null
  `.execute(db);
  const create = rows.find((row) => row.type === 'table')?.sql;
  if (create === undefined) throw new Error(`No table ${table}`);
  const next = `${table}_next`;
  const edited = edit(create);
  if (edited === create) throw new Error(`Nothing changed in ${table}`);
  await sql.raw(edited.replace(/^create table\s+("?)\w+\1/i, `create table "${next}"`)).execute(db);
  const columns = (
    await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)
  ).rows.map((row) => `"${row.name}"`);
  await sql
    .raw(
      `insert into "${next}" (${columns.join(', ')}) select ${columns.join(', ')} from "${table}"`,
    )
    .execute(db);
  await db.schema.dropTable(table).execute();
  await db.schema.alterTable(next).renameTo(table).execute();
  for (const row of rows) if (row.type === 'index') await sql.raw(row.sql).execute(db);
}
