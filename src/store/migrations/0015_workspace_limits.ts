// Migration 0015_workspace_limits. How much a workspace, and each of its people, may store.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

/** One column each (SQLite adds one column a statement); null is the documented default. */
const COLUMNS = [
  'limit_rules_per_watch',
  'limit_watches',
  'limit_watches_per_person',
  'limit_reports',
  'limit_reports_per_person',
] as const;

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // What an admin set with `/cdn config limits`: rules per watch, watches and daily reports per
  // workspace and per person. Null (every existing workspace) means the default.
  for (const column of COLUMNS)
    await db.schema.alterTable('workspaces').addColumn(column, 'integer').execute();
}
