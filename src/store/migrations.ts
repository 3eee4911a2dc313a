// Versioned schema migrations, run at start-up. Kysely's Migrator serializes concurrent runs
// (an advisory lock on Postgres), so several replicas may start at once.
// Long because it holds every migration; one file a migration is issue 27's work.
import { setTimeout as delay } from 'node:timers/promises';
import {
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  sql,
} from 'kysely';
import type { Logger } from '../logger.js';
import type { SqlDialect } from './db.js';

function migrations(dialect: SqlDialect): Record<string, Migration> {
  return {
    '0001_initial': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('workspaces')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('enterprise_id', 'text')
          .addColumn('cdn_base_url', 'text')
          .addColumn('operator_group_id', 'text')
          .addColumn('approver_group_id', 'text')
          .addColumn('approval_ttl_minutes', 'integer', (c) => c.notNull().defaultTo(30))
          .addColumn('report_time_of_day', 'text', (c) => c.notNull().defaultTo('09:00'))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('cdn_credentials')
          .addColumn('workspace_id', 'text', (c) =>
            c.primaryKey().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('api_key', 'text', (c) => c.notNull())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('set_by', 'text', (c) => c.notNull())
          .addColumn('set_at', 'bigint', (c) => c.notNull())
          .addColumn('last_validated_at', 'bigint')
          .execute();

        await db.schema
          .createTable('slack_installations')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('team_id', 'text')
          .addColumn('enterprise_id', 'text')
          .addColumn('is_enterprise_install', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('bot_user_id', 'text')
          .addColumn('installation', 'text', (c) => c.notNull())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('installed_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('approvals')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) => c.notNull())
          .addColumn('zone_id', 'text', (c) => c.notNull())
          .addColumn('zone_name', 'text', (c) => c.notNull())
          .addColumn('requester_id', 'text', (c) => c.notNull())
          .addColumn('reason', 'text', (c) => c.notNull())
          .addColumn('channel_id', 'text', (c) => c.notNull())
          .addColumn('message_ts', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('decided_by', 'text')
          .addColumn('decided_at', 'bigint')
          .addColumn('decision_note', 'text')
          .addColumn('outcome', 'text')
          .addColumn('purge_id', 'text')
          .addColumn('outcome_detail', 'text')
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('approvals_by_status_expiry')
          .on('approvals')
          .columns(['status', 'expires_at'])
          .execute();
        await db.schema
          .createIndex('approvals_by_workspace')
          .on('approvals')
          .columns(['workspace_id', 'status'])
          .execute();

        await db.schema
          .createTable('schedules')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) => c.notNull())
          .addColumn('zone_id', 'text', (c) => c.notNull())
          .addColumn('zone_name', 'text', (c) => c.notNull())
          .addColumn('channel_id', 'text', (c) => c.notNull())
          .addColumn('created_by', 'text', (c) => c.notNull())
          .addColumn('time_of_day', 'text', (c) => c.notNull())
          .addColumn('time_zone', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('next_run_at', 'bigint', (c) => c.notNull())
          .addColumn('last_run_at', 'bigint')
          .addColumn('paused_reason', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('schedules_due')
          .on('schedules')
          .columns(['status', 'next_run_at'])
          .execute();
        await db.schema
          .createIndex('schedules_by_workspace')
          .on('schedules')
          .column('workspace_id')
          .execute();

        await db.schema
          .createTable('audit_log')
          .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigint', (c) =>
            dialect === 'sqlite'
              ? c.primaryKey().autoIncrement()
              : c.primaryKey().generatedAlwaysAsIdentity(),
          )
          .addColumn('workspace_id', 'text', (c) => c.notNull())
          .addColumn('actor_id', 'text', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('zone_id', 'text')
          .addColumn('zone_name', 'text')
          .addColumn('outcome', 'text', (c) => c.notNull())
          .addColumn('detail', 'text')
          .addColumn('at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('audit_by_workspace_time')
          .on('audit_log')
          .columns(['workspace_id', 'at'])
          .execute();
        await db.schema
          .createIndex('audit_by_zone_time')
          .on('audit_log')
          .columns(['workspace_id', 'zone_id', 'at'])
          .execute();
      },
    },
    '0002_purges': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('purges')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) => c.notNull())
          .addColumn('zone_id', 'text', (c) => c.notNull())
          .addColumn('zone_name', 'text', (c) => c.notNull())
          .addColumn('actor_id', 'text', (c) => c.notNull())
          .addColumn('file_count', 'integer', (c) => c.notNull())
          .addColumn('tag_count', 'integer', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('failed_files', 'text')
          .addColumn('failed_tags', 'text')
          .addColumn('purge_ids', 'text')
          .addColumn('retry_of', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('finished_at', 'bigint')
          .execute();
        await db.schema
          .createIndex('purges_by_workspace')
          .on('purges')
          .columns(['workspace_id', 'created_at'])
          .execute();
      },
    },
    '0003_change_counters': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
        // One row per user per minute: flood control shared by every replica.
        await db.schema
          .createTable('change_counters')
          .addColumn('workspace_id', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('window_start', 'bigint', (c) => c.notNull())
          .addColumn('count', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('change_counters_pk', [
            'workspace_id',
            'user_id',
            'window_start',
          ])
          .execute();
      },
    },
    '0004_durable_work': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
        // Work that outlives a request: a state, attempts, a lease, and a small checkpoint.
        await db.schema
          .createTable('jobs')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.unique())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('checkpoint', 'text')
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('run_at', 'bigint', (c) => c.notNull())
          .addColumn('lease_owner', 'text')
          .addColumn('lease_until', 'bigint')
          .addColumn('error', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addColumn('finished_at', 'bigint')
          .execute();
        await db.schema.createIndex('jobs_due').on('jobs').columns(['state', 'run_at']).execute();
        // A job's steps (a purge's batches): written once when planned, each closed once.
        await db.schema
          .createTable('job_steps')
          .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
          .addColumn('idx', 'integer', (c) => c.notNull())
          .addColumn('input', 'text', (c) => c.notNull())
          .addColumn('result', 'text')
          .addPrimaryKeyConstraint('job_steps_pk', ['job_id', 'idx'])
          .execute();
        // An audit entry written by resumable work carries a key, so a resumed job writes it once.
        await db.schema.alterTable('audit_log').addColumn('event_key', 'text').execute();
        await db.schema
          .createIndex('audit_by_event_key')
          .unique()
          .on('audit_log')
          .column('event_key')
          .execute();
        // One open purge-everything request per zone: a second is pointed at the first.
        await db.schema
          .createIndex('approvals_one_pending_per_zone')
          .unique()
          .on('approvals')
          .columns(['workspace_id', 'zone_id'])
          .where(sql.ref('status'), '=', sql.lit('pending'))
          .execute();
        // Deliveries already handled (Slack retries, replays), kept until they expire.
        await db.schema
          .createTable('seen_requests')
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('seen_requests_expiry')
          .on('seen_requests')
          .column('expires_at')
          .execute();
      },
    },
    '0005_zone_index': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
        // Each key set gets a generation; an index is only ever read for the generation it was
        // built for. Keys set before this migration get one from their workspace and time.
        await db.schema.alterTable('cdn_credentials').addColumn('generation', 'text').execute();
        await db
          .updateTable('cdn_credentials')
          .set({
            generation: sql`${sql.ref('workspace_id')} || ':' || cast(${sql.ref('set_at')} as text)`,
          })
          .execute();
        await db.schema
          .createTable('zone_index_state')
          .addColumn('workspace_id', 'text', (c) =>
            c.primaryKey().references('workspaces.id').onDelete('cascade'),
          )
          .addColumn('generation', 'text', (c) => c.notNull())
          .addColumn('refreshed_at', 'bigint')
          .addColumn('cdn_total', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('zone_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('lease_owner', 'text')
          .addColumn('lease_until', 'bigint')
          .addColumn('failed_at', 'bigint')
          .addColumn('error', 'text')
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        // The rows go with their state: dropping a workspace's state drops its index.
        await db.schema
          .createTable('zone_index')
          .addColumn('workspace_id', 'text', (c) =>
            c.notNull().references('zone_index_state.workspace_id').onDelete('cascade'),
          )
          .addColumn('zone_id', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('name_key', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('zone_created_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('zone_index_pk', ['workspace_id', 'zone_id'])
          .execute();
        await db.schema
          .createIndex('zone_index_by_name')
          .on('zone_index')
          .columns(['workspace_id', 'name_key'])
          .execute();
        // Workspaces that already have a key are known: their index is built at the next start.
        await db
          .insertInto('zone_index_state')
          .columns(['workspace_id', 'generation', 'updated_at'])
          .expression(
            db.selectFrom('cdn_credentials').select(['workspace_id', 'generation', 'set_at']),
          )
          .execute();
      },
    },
    '0006_channel_bindings': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
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
      },
    },
    '0007_watches': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
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
        await db.schema
          .createIndex('watch_zones_due')
          .on('watch_zones')
          .column('next_run_at')
          .execute();
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
      },
    },
    '0008_rate_slots': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
        // Per key (a channel, a Web API method of a workspace): the earliest time the next call
        // may go, shared by every replica (see RateSlotRepository).
        await db.schema
          .createTable('rate_slots')
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('next_at', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '0009_alert_ratelimit_claims': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
        // An alert's "Turn rate limiting on" claim: when it was taken and when the change was
        // made, so a claim left by a crash mid-call can be taken again (WatchRepository).
        await db.schema
          .alterTable('watch_alerts')
          .addColumn('ratelimit_claimed_at', 'bigint')
          .execute();
        await db.schema
          .alterTable('watch_alerts')
          .addColumn('ratelimit_done_at', 'bigint')
          .execute();
      },
    },
    '0010_workspace_guest_access': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
        // What a workspace's guests may do (`/cdn config guests read|operate`): reading only
        // unless an admin says otherwise, so existing workspaces start read-only for guests.
        await db.schema
          .alterTable('workspaces')
          .addColumn('guest_access', 'text', (c) => c.notNull().defaultTo('read'))
          .execute();
      },
    },
    '0011_watch_paused': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
        // Why a watch stopped posting (the bot was removed from its channel, …): a paused watch
        // posts nothing until `/cdn watch` is run again in its channel.
        await db.schema.alterTable('watches').addColumn('paused_reason', 'text').execute();
      },
    },
    '0012_reports_unique': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
      async up(db: Kysely<any>) {
        // One live report per zone, channel and time (of day, in its time zone): two creates at
        // once may have made two. The oldest of each is kept; the others are stopped, as
        // `/cdn report stop` would (a stopped report is history, never run and never listed).
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
      },
    },
  };
}

/**
 * Brings the schema up to date (or, for tests of a migration, up to `upTo`); returns the names of
 * the migrations it applied.
 *
 * A database a newer version has migrated further (an older replica restarting during a rolling
 * upgrade, or a rollback) holds every migration this version knows and some it does not: it is
 * used as it is, with a warning, instead of refusing to start. Migrations only ever add (tables,
 * nullable columns, indexes), so the older code still reads and writes it (docs/deploy.md).
 */
export async function migrate(
  // biome-ignore lint/suspicious/noExplicitAny: the migrator works below the typed schema.
  db: Kysely<any>,
  dialect: SqlDialect,
  options: { upTo?: string; logger?: Logger } = {},
): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  // Kysely looks for its own tables in every schema unless told which: a database shared by
  // several schemas (one per tenant, or per test) would make it skip creating them in this one.
  const schema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]
          ?.schema
      : undefined;
  if (options.upTo === undefined) {
    const known = Object.keys(migrations(dialect));
    const executed = await executedMigrations(db, schema);
    const unknown = executed.filter((name) => !known.includes(name));
    if (unknown.length > 0 && known.every((name) => executed.includes(name))) {
      options.logger?.warn(
        { unknown },
        'the database was migrated by a newer version; starting on it without migrating',
      );
      return [];
    }
  }
  const migrator = new Migrator({
    db,
    provider,
    ...(schema ? { migrationTableSchema: schema } : {}),
    // Migrations only add, each on its own tables: one developed beside another may land with a
    // lower number after a higher one has run (0006 after 0008); it is run then, not refused.
    allowUnorderedMigrations: true,
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } =
      options.upTo === undefined
        ? await migrator.migrateToLatest()
        : await migrator.migrateTo(options.upTo);
    if (!error) {
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    }
    // Kysely takes no lock on SQLite. Two processes migrating one file at once: the loser's
    // transaction rolls back whole (SQLite DDL is transactional), and a later look finds the
    // winner's work done; the wait lets the winner commit first. On PostgreSQL an advisory lock
    // serializes migrators, but Kysely's look at the catalog (every schema's tables) can fail
    // while another schema is being changed: a second look is enough.
    if (attempt >= 5) throw error;
    await delay(25 * attempt + Math.floor(Math.random() * 25));
  }
}

/** The migrations recorded in the database; none when it has no migration table yet. */
// biome-ignore lint/suspicious/noExplicitAny: the migration table is Kysely's, not in the schema.
async function executedMigrations(db: Kysely<any>, schema: string | undefined): Promise<string[]> {
  try {
    const rows = await (schema ? db.withSchema(schema) : db)
      .selectFrom(DEFAULT_MIGRATION_TABLE)
      .select('name')
      .execute();
    return rows.map((row: { name: string }) => row.name);
  } catch {
    return [];
  }
}
