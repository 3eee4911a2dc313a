// Migration 0003_change_counters. Flood control's counters, one row per user per minute.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // One row per user per minute: flood control shared by every replica.
  await db.schema
    .createTable('change_counters')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('change_counters_pk', ['workspace_id', 'user_id', 'window_start'])
    .execute();
}
