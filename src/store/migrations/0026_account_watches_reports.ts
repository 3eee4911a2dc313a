// Migration 0026_account_watches_reports. Watches and daily reports per CDN account: the
// zones watched in an account other than `default` get their own schedule table keyed by
// (workspace, account, zone), as 0022 did for the zone index; a channel's watch and a live report
// are unique per account; rows written before name `default`'s id instead of null.
// Shipped: never changed; a change to the schema is a new migration.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // Null meant `default`: say so with its id, so that the wider uniques below see one account.
  for (const table of ['watches', 'watch_zones', 'watch_alerts', 'schedules'])
    await sql`
      update ${sql.table(table)} set account_id = (
        select a.id from cdn_accounts a
        where a.workspace_id = ${sql.ref(`${table}.workspace_id`)} and a.name_key = 'default')
      where account_id is null
    `.execute(db);

  // `default`'s watched zones stay in watch_zones (an older replica reads and writes it during
  // the rollout, keyed by workspace and zone); every other account's are here.
  await db.schema
    .createTable('account_watch_zones')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    // Removing the account stops evaluating its zones.
    .addColumn('account_id', 'text', (c) =>
      c.notNull().references('cdn_accounts.id').onDelete('cascade'),
    )
    .addColumn('zone_id', 'text', (c) => c.notNull())
    .addColumn('zone_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('next_run_at', 'bigint', (c) => c.notNull())
    .addColumn('baseline', 'text')
    .addColumn('baseline_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_watch_zones_pk', ['workspace_id', 'account_id', 'zone_id'])
    .execute();
  await db.schema
    .createIndex('account_watch_zones_due')
    .on('account_watch_zones')
    .column('next_run_at')
    .execute();

  // No statement names watches_one_per_channel (a watch is looked for, then inserted, under the
  // workspace's lock): it is replaced by its wider form at once.
  await db.schema.dropIndex('watches_one_per_channel').execute();
  await db.schema
    .createIndex('watches_one_per_channel_account')
    .unique()
    .on('watches')
    .columns(['workspace_id', 'account_id', 'zone_id', 'channel_id'])
    .execute();

  // schedules_live_unique is named by an older replica's ON CONFLICT: it stays until the
  // contract release; today's code names this one.
  await db.schema
    .createIndex('schedules_account_live_unique')
    .on('schedules')
    .columns(['workspace_id', 'account_id', 'zone_id', 'channel_id', 'time_of_day', 'time_zone'])
    .unique()
    .where(sql.ref('status'), '<>', 'stopped')
    .execute();
}
