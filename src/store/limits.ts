// Creating under a workspace's limits: the count and the insert decide together, so two creates
// at once at the limit (on any replicas) never both get in.
import { type Kysely, sql, type Transaction } from 'kysely';
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

/**
 * Refuses (limit_reached, nothing stored) when the workspace has `limits.all` rows of `table`
 * already, or their creator `limits.perPerson`; rows a `stopped` status ends (reports) are not
 * counted. Run under withWorkspaceLock, so that the counts hold until the insert.
 */
export async function refuseAtLimits(
  trx: Kysely<Database>,
  table: 'schedules' | 'watches',
  owner: { workspaceId: string; createdBy: string },
  limits: Record<'all' | 'perPerson', { limit: LimitName; max: number }>,
): Promise<void> {
  const counted = async (check: { limit: LimitName; max: number }, createdBy?: string) => {
    const row = await trx
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where('workspace_id', '=', owner.workspaceId)
      .$if(table === 'schedules', (q) => q.where(sql.ref('status'), '<>', 'stopped'))
      .$if(createdBy !== undefined, (q) => q.where('created_by', '=', createdBy as string))
      .executeTakeFirstOrThrow();
    const count = Number(row.n);
    if (count >= check.max) throw new AppError({ code: 'limit_reached', ...check, count });
  };
  await counted(limits.all);
  await counted(limits.perPerson, owner.createdBy);
}
