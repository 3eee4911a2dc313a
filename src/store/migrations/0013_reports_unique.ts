// Migration 0013_reports_unique. One live daily report per zone, channel and time (of day, in its
// time zone): two creates at once could make two. Duplicates already stored are stopped, the
// oldest kept; then a unique index over live reports makes the store refuse a second one.
// Shipped: never changed; a change to the schema is a new migration.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // The others are stopped, as `/cdn report stop` would (a stopped report is history, never run
  // and never listed).
  await sql`
    update schedules set status = 'stopped'
    where status <> 'stopped' and exists (
      select 1 from schedules older
      where older.workspace_id = schedules.workspace_id
        and older.zone_id = schedules.zone_id
        and older.channel_id = schedules.channel_id
        and older.time_of_day = schedules.time_of_day
        and older.time_zone = schedules.time_zone
        and older.status <> 'stopped'
        and (older.created_at < schedules.created_at
          or (older.created_at = schedules.created_at and older.id < schedules.id)))
  `.execute(db);
  // Stopped reports may repeat (stop one, schedule it again): only live ones are unique.
  await db.schema
    .createIndex('schedules_live_unique')
    .on('schedules')
    .columns(['workspace_id', 'zone_id', 'channel_id', 'time_of_day', 'time_zone'])
    .unique()
    .where(sql.ref('status'), '<>', 'stopped')
    .execute();
}
