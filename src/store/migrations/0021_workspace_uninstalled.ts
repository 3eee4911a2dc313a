// Migration 0021_workspace_uninstalled. When the app was uninstalled from a workspace (or its bot
// token revoked): its data is deleted once the grace period after that time is over.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // Null while installed (every existing workspace); set by the uninstall, cleared by a reinstall.
  await db.schema.alterTable('workspaces').addColumn('uninstalled_at', 'bigint').execute();
}
