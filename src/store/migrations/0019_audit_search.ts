// Migration 0019_audit_search. An index for `/cdn audit @person` and its export: a workspace's
// entries by one actor, newest first, paged by (at, id) without reading the others.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('audit_by_actor_time')
    .on('audit_log')
    .columns(['workspace_id', 'actor_id', 'at', 'id'])
    .execute();
}
