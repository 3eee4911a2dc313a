// Migration 0032_freezes. Change freezes (a zone, a CDN account or the workspace; one window or a
// weekly one, in a named time zone) and the exceptions people ask for during one, each used once.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('freezes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    // `workspace`, `account` (account_id) or `zone` (zone_id, of account_id; null: `default`).
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text')
    .addColumn('zone_id', 'text')
    // The zone's or account's name as declared, for lists and messages.
    .addColumn('target_name', 'text', (c) => c.notNull())
    // JSON FreezeRule: { kind: 'once', start, end } (local ISO) or { kind: 'weekly', start, end }.
    .addColumn('rule', 'text', (c) => c.notNull())
    // An IANA time zone name the rule's local times are read in.
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    // 1: URL and tag purges are frozen too; 0: only settings and purge-everything.
    .addColumn('purges', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('removed_at', 'bigint')
    .addColumn('removed_by', 'text')
    // The start and end (epoch ms) of the last window whose start / end was announced; 0: none.
    .addColumn('announced_start', 'bigint', (c) => c.notNull())
    .addColumn('announced_end', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('freezes_by_workspace')
    .on('freezes')
    .columns(['workspace_id', 'removed_at'])
    .execute();
  await db.schema
    .createTable('freeze_exceptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    // The freeze it was asked under (the one that ends last, when several apply).
    .addColumn('freeze_id', 'text', (c) => c.notNull())
    // `everything`, `ratelimit`, `create` or `purge`.
    .addColumn('action', 'text', (c) => c.notNull())
    // The zone (null for `create`, which is the account's) and its account (null: `default`).
    .addColumn('zone_id', 'text')
    .addColumn('account_id', 'text')
    .addColumn('target_name', 'text', (c) => c.notNull())
    .addColumn('requester_id', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('message_ts', 'text')
    // pending → approved | denied | expired; approved → used (once).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'bigint')
    .addColumn('used_at', 'bigint')
    // The end of the freeze window it was asked in: past it, it is worth nothing.
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('freeze_exceptions_by_requester')
    .on('freeze_exceptions')
    .columns(['workspace_id', 'requester_id', 'status'])
    .execute();
}
