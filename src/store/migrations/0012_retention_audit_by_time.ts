// Migration 0012_retention_audit_by_time. An index on audit_log.at alone: the retention sweep
// deletes the oldest rows of every workspace, and a search by time across workspaces reads them,
// without scanning the table (the older indexes lead with the workspace).
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('audit_by_time').on('audit_log').column('at').execute();
}
