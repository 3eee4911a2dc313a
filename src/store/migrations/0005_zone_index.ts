// Migration 0005_zone_index. Each workspace's zone index and its state, and the key generation it
// is tied to.
// Shipped: never changed; a change to the schema is a new migration.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // Each key set gets a generation; an index is only ever read for the generation it was
  // built for. Keys set before this migration get one from their workspace and time.
  await db.schema.alterTable('cdn_credentials').addColumn('generation', 'text').execute();
  await db
    .updateTable('cdn_credentials')
    .set({
      generation: sql`${sql.ref('workspace_id')} || ':' || cast(${sql.ref('set_at')} as text)`,
    })
    .execute();
  await db.schema
    .createTable('zone_index_state')
    .addColumn('workspace_id', 'text', (c) =>
      c.primaryKey().references('workspaces.id').onDelete('cascade'),
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
    .execute();
  // The rows go with their state: dropping a workspace's state drops its index.
  await db.schema
    .createTable('zone_index')
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('zone_index_state.workspace_id').onDelete('cascade'),
    )
    .addColumn('zone_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('zone_created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('zone_index_pk', ['workspace_id', 'zone_id'])
    .execute();
  await db.schema
    .createIndex('zone_index_by_name')
    .on('zone_index')
    .columns(['workspace_id', 'name_key'])
    .execute();
  // Workspaces that already have a key are known: their index is built at the next start.
  await db
    .insertInto('zone_index_state')
    .columns(['workspace_id', 'generation', 'updated_at'])
    .expression(db.selectFrom('cdn_credentials').select(['workspace_id', 'generation', 'set_at']))
    .execute();
}
