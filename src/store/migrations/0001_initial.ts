// Migration 0001_initial. The first schema: workspaces, credentials, installations, approvals,
// schedules, the audit log.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../db.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>, dialect: SqlDialect): Promise<void> {
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
}
