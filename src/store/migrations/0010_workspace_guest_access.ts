// Migration 0010_workspace_guest_access. What a workspace's guests may do.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // What a workspace's guests may do (`/cdn config guests read|operate`): reading only
  // unless an admin says otherwise, so existing workspaces start read-only for guests.
  await db.schema
    .alterTable('workspaces')
    .addColumn('guest_access', 'text', (c) => c.notNull().defaultTo('read'))
    .execute();
}
