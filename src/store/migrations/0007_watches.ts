// Migration 0007_watches. Watched zones, their state and their alerts.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // A channel watching a zone: its explicit thresholds besides the automatic rules.
  await db.schema
    .createTable('watches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('zone_id', 'text', (c) => c.notNull())
    .addColumn('zone_name', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('watches_one_per_channel')
    .unique()
    .on('watches')
    .columns(['workspace_id', 'zone_id', 'channel_id'])
    .execute();
  // One row per watched zone: when it is evaluated next (claimed like a report occurrence),
  // its last known status, and its baseline (hourly requests of the past days).
  await db.schema
    .createTable('watch_zones')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('zone_id', 'text', (c) => c.notNull())
    .addColumn('zone_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('next_run_at', 'bigint', (c) => c.notNull())
    .addColumn('baseline', 'text')
    .addColumn('baseline_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('watch_zones_pk', ['workspace_id', 'zone_id'])
    .execute();
  await db.schema.createIndex('watch_zones_due').on('watch_zones').column('next_run_at').execute();
  // Where each rule of a watch stands: firing or not, for how many intervals, snoozed, muted.
  await db.schema
    .createTable('watch_rule_states')
    .addColumn('watch_id', 'text', (c) => c.notNull())
    .addColumn('rule', 'text', (c) => c.notNull())
    .addColumn('firing', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('streak', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_interval', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('alert_id', 'text')
    .addColumn('snoozed_until', 'bigint')
    .addColumn('muted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('watch_rule_states_pk', ['watch_id', 'rule'])
    .execute();
  // Alerts posted (or to be posted): one message each, updated when resolved.
  await db.schema
    .createTable('watch_alerts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('watch_id', 'text', (c) => c.notNull())
    .addColumn('zone_id', 'text', (c) => c.notNull())
    .addColumn('zone_name', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('rule', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('resolved_at', 'bigint')
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('message_ts', 'text')
    .addColumn('ratelimit_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
