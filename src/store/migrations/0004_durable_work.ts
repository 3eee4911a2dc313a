// Migration 0004_durable_work. Durable jobs and their steps, audit event keys, one pending approval
// per zone, seen requests.
// Shipped: never changed; a change to the schema is a new migration.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
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
}
