// Repository: the mark an uninstall leaves on a workspace, and the deletion of everything the
// workspace stored once the grace period after it is over (a reinstall before then clears it).
import { type Kysely, sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from './schema.js';
import { newWorkspaceRow } from './workspaces.js';

/**
 * Every table holding a workspace's rows, by `workspace_id`, each with a column naming one row
 * (or a few) within the workspace, for deleting in batches; in the order they are deleted (the
 * rows that point at others first). A test checks that no table with a `workspace_id` is missing:
 * a new table of workspace data is added here, and in docs/privacy.md.
 */
export const WORKSPACE_TABLES = [
  { table: 'jobs', key: 'id', children: { table: 'job_steps', column: 'job_id' } },
  { table: 'watches', key: 'id', children: { table: 'watch_rule_states', column: 'watch_id' } },
  { table: 'watch_zones', key: 'zone_id' },
  { table: 'watch_alerts', key: 'id' },
  { table: 'approvals', key: 'id' },
  { table: 'schedules', key: 'id' },
  { table: 'purges', key: 'id' },
  { table: 'change_counters', key: 'user_id' },
  { table: 'zone_index', key: 'zone_id' },
  { table: 'zone_index_state', key: 'account_id' },
  { table: 'channel_bindings', key: 'channel_id' },
  { table: 'purge_channels', key: 'channel_id' },
  { table: 'audit_log', key: 'id' },
  { table: 'account_roles', key: 'account_id' },
  { table: 'cdn_accounts', key: 'id' },
  { table: 'api_purges', key: 'id' },
  { table: 'api_tokens', key: 'id' },
  { table: 'freeze_exceptions', key: 'id' },
  { table: 'freezes', key: 'id' },
] as const satisfies ReadonlyArray<{
  table: keyof Database;
  key: string;
  children?: { table: keyof Database; column: string };
}>;

export type WorkspaceTable = (typeof WORKSPACE_TABLES)[number]['table'] | 'workspaces';

export class UninstalledWorkspaceRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /**
   * Marks the workspace uninstalled now (creating its row if it had none), unless it already is:
   * a second event for the same uninstall does not push the deletion back. Returns the mark's time.
   */
  async mark(workspaceId: string, enterpriseId: string | null = null): Promise<number> {
    const now = this.clock.now();
    await this.db
      .insertInto('workspaces')
      .values({ ...newWorkspaceRow(workspaceId, enterpriseId, now), uninstalled_at: now })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
    await this.db
      .updateTable('workspaces')
      .set({ uninstalled_at: now })
      .where('id', '=', workspaceId)
      .where('uninstalled_at', 'is', null)
      .execute();
    const row = await this.db
      .selectFrom('workspaces')
      .select('uninstalled_at')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    return Number(row?.uninstalled_at ?? now);
  }

  /**
   * The app is installed again: the workspace's data stays. An org-wide install clears every
   * workspace of its enterprise. Returns how many workspaces were marked.
   */
  async clear(install: { teamId?: string | undefined; enterpriseId?: string | undefined }) {
    let query = this.db
      .updateTable('workspaces')
      .set({ uninstalled_at: null })
      .where('uninstalled_at', 'is not', null);
    const { teamId, enterpriseId } = install;
    if (teamId) query = query.where('id', '=', teamId);
    else if (enterpriseId) query = query.where('enterprise_id', '=', enterpriseId);
    else return 0;
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** When the workspace was marked uninstalled; undefined while installed (or unknown). */
  async markedAt(workspaceId: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('workspaces')
      .select('uninstalled_at')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    return row?.uninstalled_at == null ? undefined : Number(row.uninstalled_at);
  }

  /** Workspaces marked uninstalled before `before`, oldest first. */
  async due(before: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('workspaces')
      .select('id')
      .where('uninstalled_at', '<', before)
      .orderBy('uninstalled_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * Deletes up to `limit` rows of `table` of a workspace still marked uninstalled before `before`
   * (judged in the same statement: a reinstall stops the deletion at once), with the rows that
   * point at them. Returns how many rows of `table` went; fewer than `limit` means none is left.
   * `workspaces` itself goes last, in one statement.
   */
  async deleteBatch(
    table: WorkspaceTable,
    workspaceId: string,
    before: number,
    limit: number,
  ): Promise<number> {
    const stillDue = sql`exists (select 1 from workspaces where id = ${workspaceId} and uninstalled_at < ${before})`;
    if (table === 'workspaces') {
      const result = await this.db
        .deleteFrom('workspaces')
        .where('id', '=', workspaceId)
        .where('uninstalled_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    }
    const target = WORKSPACE_TABLES.find((t) => t.table === table);
    if (!target) throw new Error(`No workspace table ${table}`);
    const t = sql.table(target.table);
    const key = sql.ref(target.key);
    // Ordered, so the children's statement and the table's pick the same rows.
    const some = sql`select ${key} from ${t} where workspace_id = ${workspaceId} order by ${key} limit ${limit}`;
    if ('children' in target) {
      const { table: child, column } = target.children;
      await sql`delete from ${sql.table(child)} where ${sql.ref(column)} in (${some}) and ${stillDue}`.execute(
        this.db,
      );
    }
    const result =
      await sql`delete from ${t} where workspace_id = ${workspaceId} and ${key} in (${some}) and ${stillDue}`.execute(
        this.db,
      );
    return Number(result.numAffectedRows ?? 0n);
  }
}
