// Migration 0033_approval_not_before. A purge-everything request may be for a later time: approved
// before then, its purge waits for it (a scheduled purge's job runs it, checked again then).
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // Null: a request for now (every row before this one is).
  await db.schema.alterTable('approvals').addColumn('not_before', 'bigint').execute();
}
