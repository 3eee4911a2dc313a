// Migration 0006_channel_bindings. Channels' default zones and the channels purges may be run from.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // A channel's default zone, for the key generation it was chosen under: a binding made
  // with an older key is never used (the zone may not exist for the new key).
  await db.schema
    .createTable('channel_bindings')
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('zone_id', 'text', (c) => c.notNull())
    .addColumn('zone_name', 'text', (c) => c.notNull())
    .addColumn('generation', 'text', (c) => c.notNull())
    .addColumn('set_by', 'text', (c) => c.notNull())
    .addColumn('set_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('channel_bindings_pk', ['workspace_id', 'channel_id'])
    .execute();
  // The channels purges may be run from; none listed: any channel.
  await db.schema
    .createTable('purge_channels')
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('set_by', 'text', (c) => c.notNull())
    .addColumn('set_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('purge_channels_pk', ['workspace_id', 'channel_id'])
    .execute();
}
