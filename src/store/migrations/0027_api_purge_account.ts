// Migration 0027_api_purge_account. A purge asked for over the HTTP API records the CDN account of
// its zone: two accounts may hold zones of the same name and id, and its
// status, Slack message and audit say which one it went to.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // cdn_accounts.id, and its name when asked (to name it once renamed or removed). Null in rows
  // written before: those zones were all looked up in the account `default`.
  await db.schema.alterTable('api_purges').addColumn('account_id', 'text').execute();
  await db.schema.alterTable('api_purges').addColumn('account_name', 'text').execute();
}
