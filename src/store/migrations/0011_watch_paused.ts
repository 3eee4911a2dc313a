// Migration 0011_watch_paused. Why a watch stopped posting.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // Why a watch stopped posting (the bot was removed from its channel, …): a paused watch
  // posts nothing until `/cdn watch` is run again in its channel.
  await db.schema.alterTable('watches').addColumn('paused_reason', 'text').execute();
}
