// Migration 0028_approval_account_name. A purge-everything request records the name of its zone's
// CDN account: two accounts may hold zones of the same name, and the request, the
// confirmation and the approver's modal must say which one would be emptied.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // Null in rows written before, and when one account is in play (nothing to tell apart).
  await db.schema.alterTable('approvals').addColumn('account_name', 'text').execute();
}
