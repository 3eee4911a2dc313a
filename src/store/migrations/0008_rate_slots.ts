// Migration 0008_rate_slots. Slots that keep background posts within Slack's rate limits.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // Per key (a channel, a Web API method of a workspace): the earliest time the next call
  // may go, shared by every replica (see RateSlotRepository).
  await db.schema
    .createTable('rate_slots')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    .execute();
}
