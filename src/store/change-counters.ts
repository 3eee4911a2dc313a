// Repository: how many changes each person made per minute, counted atomically in the database so
// that every replica enforces one limit (the sliding-window rate limit's counts).
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

export class ChangeCounterRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Adds one to the user's count for the window and returns the new count, in one statement. */
  async increment(workspaceId: string, userId: string, windowStart: number): Promise<number> {
    const row = await this.db
      .insertInto('change_counters')
      .values({ workspace_id: workspaceId, user_id: userId, window_start: windowStart, count: 1 })
      .onConflict((conflict) =>
        conflict
          .columns(['workspace_id', 'user_id', 'window_start'])
          .doUpdateSet({ count: sql`change_counters.count + 1` }),
      )
      .returning('count')
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** Takes back an attempt that was refused, so refusals do not extend the wait. */
  async decrement(workspaceId: string, userId: string, windowStart: number): Promise<void> {
    await this.db
      .updateTable('change_counters')
      .set({ count: sql`count - 1` })
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .where('window_start', '=', windowStart)
      .where('count', '>', 0)
      .execute();
  }

  async count(workspaceId: string, userId: string, windowStart: number): Promise<number> {
    const row = await this.db
      .selectFrom('change_counters')
      .select('count')
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .where('window_start', '=', windowStart)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /** Drops the user's windows older than `before` (kept small: only two are ever read). */
  async prune(workspaceId: string, userId: string, before: number): Promise<void> {
    await this.db
      .deleteFrom('change_counters')
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .where('window_start', '<', before)
      .execute();
  }

  /**
   * Drops `limit` windows at most, of anyone, that began before `before` (the retention sweep: a
   * person who stopped keeps the last two windows otherwise). Returns how many.
   */
  async pruneAll(before: number, limit: number): Promise<number> {
    const old = this.db
      .selectFrom('change_counters')
      .select(['workspace_id', 'user_id', 'window_start'])
      .where('window_start', '<', before)
      .limit(limit);
    const result = await this.db
      .deleteFrom('change_counters')
      .where((eb) =>
        eb(
          eb.refTuple('workspace_id', 'user_id', 'window_start'),
          'in',
          old.$asTuple('workspace_id', 'user_id', 'window_start'),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
