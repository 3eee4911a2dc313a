// Migration 0030_channel_binding_removed_account. A channel bound to a CDN account that an admin
// removes keeps its binding, marked with the account's name: every zone command there is refused,
// naming the account, until the channel is bound again or unbound (never `default` in its place).
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // Null: the binding's account (if it names one) exists. Every existing row means that: an
  // account removed before this migration took its bindings with it.
  await db.schema.alterTable('channel_bindings').addColumn('removed_account', 'text').execute();
}
