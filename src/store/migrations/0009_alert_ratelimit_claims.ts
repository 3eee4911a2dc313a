// Migration 0009_alert_ratelimit_claims. An alert's claim on the rate limiting it turned on.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // An alert's "Turn rate limiting on" claim: when it was taken and when the change was
  // made, so a claim left by a crash mid-call can be taken again (WatchRepository).
  await db.schema.alterTable('watch_alerts').addColumn('ratelimit_claimed_at', 'bigint').execute();
  await db.schema.alterTable('watch_alerts').addColumn('ratelimit_done_at', 'bigint').execute();
}
