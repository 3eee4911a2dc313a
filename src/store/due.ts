// Taking timed work that is due (daily reports, watched zones' intervals) across replicas: the
// rows are locked as they are taken, so that replicas skip each other's (FOR UPDATE SKIP LOCKED on
// PostgreSQL; SQLite runs one transaction at a time), and a workspace without a CDN key waits.
import { type SelectQueryBuilder, sql } from 'kysely';
import type { SqlDialect } from './db.js';
import type { Database } from './schema.js';

/**
 * Rows whose CDN account has a key. Its key removed (`/cdn logout`, the account's key cleared),
 * an account's work waits as it is, and runs again by itself once a key is set (a missed time is
 * then caught up or skipped as after any downtime). Nothing is written to pause or resume it, so
 * no replica sees it out of step with the key.
 */
export function withCdnKey(table: 'schedules' | 'watch_zones') {
  const account = sql.ref(`${table}.account_id`);
  const workspace = sql.ref(`${table}.workspace_id`);
  return sql<boolean>`exists (select 1 from cdn_accounts a where a.id = ${account} and a.workspace_id = ${workspace} and a.api_key is not null)`;
}

/** Reads the due rows of `query` for taking, inside the caller's transaction. */
export function takeRows<T extends keyof Database, O>(
  query: SelectQueryBuilder<Database, T, O>,
  dialect: SqlDialect,
): Promise<O[]> {
  return (dialect === 'postgres' ? query.forUpdate().skipLocked() : query).execute();
}
