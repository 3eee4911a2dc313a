// Migration 0016_cdn_accounts. Several named CDN accounts per workspace: each
// workspace's key (cdn_credentials) and base URL (workspaces.cdn_base_url) become its account
// `default`, and every table that holds a zone gets the account it belongs to.
// Shipped: never changed; a change to the schema is a new migration.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/** Every table that names a zone by `workspace_id` + `zone_id`: each gets `account_id`. */
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
  'watch_alerts',
] as const;

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('cdn_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    // As an admin typed it; `name_key` (lowercased) is what is unique and looked up.
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    // Null: CDN_API_BASE_URL.
    .addColumn('base_url', 'text')
    // Sealed by the keyring; null while the account has no key (after a logout).
    .addColumn('api_key', 'text')
    .addColumn('key_id', 'text')
    // Which context the key was sealed in: `account` (workspace, column and the account's id), or
    // `credentials` (a key copied here from cdn_credentials, sealed for that column; rotation
    // re-seals it as `account`).
    .addColumn('sealed_as', 'text', (c) => c.notNull().defaultTo('account'))
    .addColumn('set_by', 'text')
    .addColumn('set_at', 'bigint')
    .addColumn('last_validated_at', 'bigint')
    .addColumn('generation', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('cdn_accounts_name_unique')
    .unique()
    .on('cdn_accounts')
    .columns(['workspace_id', 'name_key'])
    .execute();

  // Each stored key becomes the account `default`, ciphertext and generation unchanged (the
  // migration has no keyring: the key stays sealed as it was, `sealed_as` says how).
  const credentials: Array<Record<string, unknown>> = await db
    .selectFrom('cdn_credentials as c')
    .innerJoin('workspaces as w', 'w.id', 'c.workspace_id')
    .select([
      'c.workspace_id',
      'c.api_key',
      'c.key_id',
      'c.set_by',
      'c.set_at',
      'c.last_validated_at',
      'c.generation',
      'w.cdn_base_url',
    ])
    .execute();
  for (const row of credentials) {
    await db
      .insertInto('cdn_accounts')
      .values({
        id: randomUUID(),
        workspace_id: row.workspace_id,
        name: 'default',
        name_key: 'default',
        base_url: row.cdn_base_url,
        api_key: row.api_key,
        key_id: row.key_id,
        sealed_as: 'credentials',
        set_by: row.set_by,
        set_at: row.set_at,
        last_validated_at: row.last_validated_at,
        // As generationOf (credentials.ts) reads a row written without one.
        generation: row.generation ?? `${row.workspace_id}:${row.set_at}`,
        created_at: row.set_at,
        updated_at: row.set_at,
      })
      .execute();
  }

  // Nullable: a row of a workspace without an account yet, or written by an older replica during
  // a rolling upgrade, has none, and null means the workspace's account `default`.
  const defaultOf = (table: string) =>
    sql`(select a.id from cdn_accounts a
         where a.workspace_id = ${sql.ref(`${table}.workspace_id`)} and a.name_key = 'default')`;
  for (const table of ZONE_TABLES) {
    await db.schema.alterTable(table).addColumn('account_id', 'text').execute();
    await db
      .updateTable(table)
      .set({ account_id: defaultOf(table) })
      .execute();
  }
  // A rule's state has no workspace of its own: it is its watch's.
  await db.schema.alterTable('watch_rule_states').addColumn('account_id', 'text').execute();
  await db
    .updateTable('watch_rule_states')
    .set({
      account_id: sql`(select w.account_id from watches w where w.id = watch_rule_states.watch_id)`,
    })
    .execute();
}
