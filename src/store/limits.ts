// Creating under a workspace's limits: the count and the insert decide together, so two creates
// at once at the limit (on any replicas) never both get in.
import type { Kysely, Transaction } from 'kysely';
import { AppError, type LimitName } from '../errors.js';
import type { SqlDialect } from './db.js';
import type { Database } from './schema.js';

/**
 * Runs `work` in a transaction in which no other create of the workspace runs. On PostgreSQL the
 * workspace's row is locked first (every counted create takes the same lock, so counts cannot
 * change under it; the row must exist: the caller read the limits from it); SQLite is one
 * process's, and runs one transaction at a time.
 */
export async function withWorkspaceLock<T>(
  db: Kysely<Database>,
  dialect: SqlDialect,
  workspaceId: string,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    if (dialect === 'postgres')
      await trx
        .selectFrom('workspaces')
        .select('id')
        .where('id', '=', workspaceId)
        .forUpdate()
        .execute();
    return work(trx);
  });
}

/** Refuses (limit_reached, nothing stored) when one of `checks` counts its limit already. */
export function refuseAtLimit(
  checks: ReadonlyArray<{ limit: LimitName; max: number; count: number }>,
): void {
  const reached = checks.find((check) => check.count >= check.max);
  if (reached) throw new AppError({ code: 'limit_reached', ...reached });
}
