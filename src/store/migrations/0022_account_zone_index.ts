// Migration 0022_account_zone_index. The zone index of each CDN account other than `default`:
// the same rows as zone_index, keyed by (workspace, account, zone), so two accounts may
// hold a zone of the same name and id. The account `default` keeps zone_index until the contract
// release (an older replica still reads and writes it); an index is a cache, rebuilt from the CDN.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_zone_index_state')
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    // Removing the account drops its index.
    .addColumn('account_id', 'text', (c) =>
      c.notNull().references('cdn_accounts.id').onDelete('cascade'),
    )
    .addColumn('generation', 'text', (c) => c.notNull())
    .addColumn('refreshed_at', 'bigint')
    .addColumn('cdn_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('zone_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('failed_at', 'bigint')
    .addColumn('error', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_zone_index_state_pk', ['workspace_id', 'account_id'])
    .execute();
  await db.schema
    .createTable('account_zone_index')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('zone_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('zone_created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_zone_index_pk', ['workspace_id', 'account_id', 'zone_id'])
    // The rows go with their state.
    .addForeignKeyConstraint(
      'account_zone_index_state_fk',
      ['workspace_id', 'account_id'],
      'account_zone_index_state',
      ['workspace_id', 'account_id'],
      (c) => c.onDelete('cascade'),
    )
    .execute();
  // A name is looked up in every account of the workspace at once (which accounts hold it).
  await db.schema
    .createIndex('account_zone_index_by_name')
    .on('account_zone_index')
    .columns(['workspace_id', 'name_key'])
    .execute();
}
