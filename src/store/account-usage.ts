// What refers to a CDN account (watches, live reports, channel defaults, pending purge-everything
// requests), counted before it is removed and stopped when it is. Rows without an account
// (account_id null) are the account `default`'s.
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from './schema.js';

export interface AccountUsage {
  watches: number;
  /** Daily reports not stopped. */
  reports: number;
  /** Channels whose default zone is of the account. */
  bindings: number;
  /** Purge-everything requests still waiting for a decision. */
  approvals: number;
}

/** Which account's rows: its id, and for `default` also the rows without one. */
export interface AccountRef {
  workspaceId: string;
  accountId: string;
  isDefault: boolean;
}

type Tables = 'watches' | 'schedules' | 'channel_bindings' | 'approvals' | 'watch_zones';

function ofAccount<T extends Tables>(ref: AccountRef) {
  return (eb: ExpressionBuilder<Database, T>) => {
    // biome-ignore lint/suspicious/noExplicitAny: every table named in Tables has account_id.
    const column = eb.ref('account_id' as any);
    const own = eb(column, '=', ref.accountId);
    return ref.isDefault ? eb.or([own, eb(column, 'is', null)]) : own;
  };
}

export class AccountUsageRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async count(ref: AccountRef): Promise<AccountUsage> {
    const { workspaceId } = ref;
    const count = async (
      query: Promise<{ n: number | string | bigint } | undefined>,
    ): Promise<number> => Number((await query)?.n ?? 0);
    const [watches, reports, bindings, approvals] = await Promise.all([
      count(
        this.db
          .selectFrom('watches')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('workspace_id', '=', workspaceId)
          .where(ofAccount<'watches'>(ref))
          .executeTakeFirst(),
      ),
      count(
        this.db
          .selectFrom('schedules')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('workspace_id', '=', workspaceId)
          .where('status', '<>', 'stopped')
          .where(ofAccount<'schedules'>(ref))
          .executeTakeFirst(),
      ),
      count(
        this.db
          .selectFrom('channel_bindings')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('workspace_id', '=', workspaceId)
          .where(ofAccount<'channel_bindings'>(ref))
          .executeTakeFirst(),
      ),
      count(
        this.db
          .selectFrom('approvals')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('workspace_id', '=', workspaceId)
          .where('status', '=', 'pending')
          .where(ofAccount<'approvals'>(ref))
          .executeTakeFirst(),
      ),
    ]);
    return { watches, reports, bindings, approvals };
  }

  /**
   * Stops what refers to the account, in one transaction: its watches go (with their rule states,
   * and their zones' schedules when no other watch is left), its reports are stopped (listed as
   * stopped), its channel defaults are cleared and its pending purge-everything requests are
   * cancelled, and its own role grants are deleted. Audit entries and purges stay. Returns what
   * was stopped.
   */
  async stop(ref: AccountRef): Promise<AccountUsage> {
    const { workspaceId } = ref;
    const now = this.clock.now();
    return this.db.transaction().execute(async (trx) => {
      const watchIds = (
        await trx
          .selectFrom('watches')
          .select('id')
          .where('workspace_id', '=', workspaceId)
          .where(ofAccount<'watches'>(ref))
          .execute()
      ).map((row) => row.id);
      if (watchIds.length > 0) {
        await trx.deleteFrom('watch_rule_states').where('watch_id', 'in', watchIds).execute();
        await trx.deleteFrom('watches').where('id', 'in', watchIds).execute();
      }
      await trx
        .deleteFrom('watch_zones')
        .where('workspace_id', '=', workspaceId)
        .where(ofAccount<'watch_zones'>(ref))
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('watches')
                .select('watches.id')
                .where('watches.workspace_id', '=', workspaceId)
                .whereRef('watches.zone_id', '=', 'watch_zones.zone_id'),
            ),
          ),
        )
        .execute();
      const reports = await trx
        .updateTable('schedules')
        .set({ status: 'stopped', updated_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('status', '<>', 'stopped')
        .where(ofAccount<'schedules'>(ref))
        .executeTakeFirst();
      const bindings = await trx
        .deleteFrom('channel_bindings')
        .where('workspace_id', '=', workspaceId)
        .where(ofAccount<'channel_bindings'>(ref))
        .executeTakeFirst();
      const approvals = await trx
        .updateTable('approvals')
        .set({ status: 'cancelled', decided_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('status', '=', 'pending')
        .where(ofAccount<'approvals'>(ref))
        .executeTakeFirst();
      // The account's own role grants go with it (a new account of the same name starts without).
      await trx
        .deleteFrom('account_roles')
        .where('workspace_id', '=', workspaceId)
        .where('account_id', '=', ref.accountId)
        .execute();
      return {
        watches: watchIds.length,
        reports: Number(reports.numUpdatedRows),
        bindings: Number(bindings.numDeletedRows),
        approvals: Number(approvals.numUpdatedRows),
      };
    });
  }
}
