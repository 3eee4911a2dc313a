// Taking timed work that is due (daily reports, watched zones' intervals) across replicas: the
// rows are locked as they are taken, so that replicas skip each other's (FOR UPDATE SKIP LOCKED on
// PostgreSQL; SQLite runs one transaction at a time), and a workspace without a CDN key waits.
import { type SelectQueryBuilder, sql } from 'kysely';
import type { SqlDialect } from './db.js';
import type { Database } from './schema.js';

/**
 * Rows of a workspace that has a CDN key. Removed (`/cdn logout`), its work waits as it is, and
 * runs again by itself once a key is set (a missed time is then caught up or skipped as after any
 * downtime). Nothing is written to pause or resume it, so no replica sees it out of step with the
 * key.
 */
export function withCdnKey(table: 'schedules' | 'watch_zones') {
  return sql<boolean>`exists (select 1 from cdn_credentials where cdn_credentials.workspace_id = ${sql.ref(`${table}.workspace_id`)})`;
}

/** Reads the due rows of `query` for taking, inside the caller's transaction. */
export function takeRows<T extends keyof Database, O>(
  query: SelectQueryBuilder<Database, T, O>,
  dialect: SqlDialect,
): Promise<O[]> {
  return (dialect === 'postgres' ? query.forUpdate().skipLocked() : query).execute();
}
