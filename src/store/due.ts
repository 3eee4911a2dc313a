// Taking timed work that is due (daily reports, watched zones' intervals) across replicas: the
// rows are locked as they are taken, so that replicas skip each other's (FOR UPDATE SKIP LOCKED on
// PostgreSQL; SQLite runs one transaction at a time), and a workspace without a CDN key waits.
import { type SelectQueryBuilder, sql } from 'kysely';
import type { SqlDialect } from './db.js';
import type { Database } from './schema.js';

/**
 * Rows whose CDN account has a key: `default`'s rows (null, or `default`'s id) while
 * the workspace has its key (cdn_credentials, which stays authoritative for `default` until the
 * contract release), another account's while that account has one. Removed (`/cdn logout`, the
 * account's key cleared), its work waits as it is, and runs again by itself once a key is set (a
 * missed time is then caught up or skipped as after any downtime). Nothing is written to pause or
 * resume it, so no replica sees it out of step with the key.
 */
export function withCdnKey(table: 'schedules' | 'watch_zones' | 'account_watch_zones') {
  const account = sql.ref(`${table}.account_id`);
  const workspace = sql.ref(`${table}.workspace_id`);
  const defaultKey = sql<boolean>`exists (select 1 from cdn_credentials where cdn_credentials.workspace_id = ${workspace})`;
  const ownKey = sql<boolean>`exists (select 1 from cdn_accounts a where a.id = ${account} and a.workspace_id = ${workspace} and a.name_key <> 'default' and a.api_key is not null)`;
  if (table === 'account_watch_zones') return ownKey;
  // In parentheses: the caller's other conditions are joined to it with `and`.
  return sql<boolean>`(((${account} is null or exists (select 1 from cdn_accounts d where d.id = ${account} and d.name_key = 'default')) and ${defaultKey}) or ${ownKey})`;
}

/** Reads the due rows of `query` for taking, inside the caller's transaction. */
export function takeRows<T extends keyof Database, O>(
  query: SelectQueryBuilder<Database, T, O>,
  dialect: SqlDialect,
): Promise<O[]> {
  return (dialect === 'postgres' ? query.forUpdate().skipLocked() : query).execute();
}
