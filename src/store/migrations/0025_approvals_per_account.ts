// Migration 0025_approvals_per_account. One open purge-everything request per zone of each CDN
// account, not per zone id of the workspace: two accounts may hold zones of the same
// name and id. The partial unique index is replaced by one that includes the account (null, as
// rows written before accounts were threaded, counts as its own value). Older replicas insert with
// `ON CONFLICT DO NOTHING` and no target, which any unique index satisfies.
// Shipped: never changed; a change to the schema is a new migration.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // An expression index (the same SQL on SQLite and PostgreSQL), partial like the one it replaces.
  await sql`CREATE UNIQUE INDEX approvals_one_pending_per_account_zone
    ON approvals (workspace_id, COALESCE(account_id, ''), zone_id)
    WHERE status = 'pending'`.execute(db);
  await db.schema.dropIndex('approvals_one_pending_per_zone').execute();
}
