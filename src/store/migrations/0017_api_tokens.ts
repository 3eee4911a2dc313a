// Migration 0017_api_tokens. Tokens for the HTTP API (purges from CI) and the purges it was asked for.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // A token is stored only as the SHA-256 of its text (high-entropy random: no salt needed); its
  // first characters are kept to tell tokens apart in lists. Revocation sets revoked_at, read on
  // every request, so it holds on every replica at once.
  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_hint', 'text', (c) => c.notNull())
    // The CDN account its zones belong to; null: the workspace's one (default) account.
    .addColumn('account_id', 'text')
    // JSON array of zone names (normalized); null: every zone of the account.
    .addColumn('zones', 'text')
    // JSON array of kinds: `urls_tags`, `everything`.
    .addColumn('kinds', 'text', (c) => c.notNull())
    // Where its purges are announced (and `everything` asked for approval); null: the zone's bound channel.
    .addColumn('channel_id', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('revoked_by', 'text')
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('api_tokens_by_workspace')
    .on('api_tokens')
    .columns(['workspace_id', 'created_at'])
    .execute();
  // One purge per request; with an Idempotency-Key, one per (token, key) whatever the replica.
  // `everything` purges keep their state on the approval row (approval_id); URL and tag purges on
  // this row, written by the purge job (job key `api-purge:<id>`).
  await db.schema
    .createTable('api_purges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('token_id', 'text', (c) => c.notNull())
    .addColumn('token_name', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('body_hash', 'text', (c) => c.notNull())
    .addColumn('zone_id', 'text', (c) => c.notNull())
    .addColumn('zone_name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('done', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('approval_id', 'text')
    .addColumn('error', 'text')
    .addColumn('reason', 'text')
    // JSON: { repository, commit, run_url, actor }, as sent (free strings).
    .addColumn('context', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Rows without a key (null) never conflict, in SQLite as in PostgreSQL.
  await db.schema
    .createIndex('api_purges_idempotency')
    .on('api_purges')
    .columns(['token_id', 'idempotency_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('api_purges_by_status')
    .on('api_purges')
    .columns(['status', 'updated_at'])
    .execute();
}
