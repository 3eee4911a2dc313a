// What refers to a CDN account (watches, live reports, channel defaults, pending purge-everything
// requests, API tokens bound to it), counted before it is removed and stopped in the removal's
// transaction; and, for `/cdn logout` (the account's key removed), its channel defaults cleared
// and its watches and reports deleted, only its own.
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import { notFound } from './account-model.js';
import type { AccountRepository } from './accounts.js';
import { ACCOUNT_REMOVED_NOTE } from './approvals.js';
import type { JobRepository, NewJob } from './jobs.js';
import type { Database } from './schema.js';

export interface AccountUsage {
  watches: number;
  /** Daily reports not stopped. */
  reports: number;
  /**
   * Channels bound to the account (with or without a default zone of it): once it is removed,
   * their zone commands are refused until they are bound again or unbound.
   */
  bindings: number;
  /** Purge-everything requests still waiting for a decision. */
  approvals: number;
  /**
   * Live HTTP API tokens that reach this account only (not those made for every account): they
   * purge nothing once it is gone (they are not revoked; the token list says so).
   */
  tokens: number;
}

/** What `/cdn logout` deleted when asked to: the account's watches and its live reports. */
export interface AccountWork {
  watches: number;
  reports: number;
}

/** Who removes an account, and the job that shows each request it cancels as cancelled. */
export interface Removal {
  /** The account's name, kept on the channels bound to it. */
  name: string;
  /** The admin removing it: who cancelled its pending purge-everything requests. */
  by: string;
  /** The job bringing a cancelled request's message up to date, stored in the same transaction. */
  messageJob: (approval: { id: string; workspaceId: string }) => NewJob;
  /** Keys of the jobs held for the account's own recurring work (its zone index's refresh). */
  heldJobKeys: string[];
}

/** Which account's rows. */
export interface AccountRef {
  workspaceId: string;
  accountId: string;
}

type Tables =
  | 'watches'
  | 'schedules'
  | 'channel_bindings'
  | 'approvals'
  | 'watch_zones'
  | 'api_tokens';

function ofAccount<T extends Tables>(ref: AccountRef) {
  return (eb: ExpressionBuilder<Database, T>) =>
    // biome-ignore lint/suspicious/noExplicitAny: every table named in Tables has account_id.
    eb(eb.ref('account_id' as any), '=', ref.accountId);
}

export class AccountUsageRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly accounts: AccountRepository,
    private readonly jobs: JobRepository,
  ) {}

  async count(ref: AccountRef): Promise<AccountUsage> {
    const { workspaceId } = ref;
    const count = async (
      query: Promise<{ n: number | string | bigint } | undefined>,
    ): Promise<number> => Number((await query)?.n ?? 0);
    const [watches, reports, bindings, approvals, tokens] = await Promise.all([
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
      count(
        boundTokens(this.db, ref)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst(),
      ),
    ]);
    return { watches, reports, bindings, approvals, tokens };
  }

  /**
   * Removes the account (its key and zone index) and, in the same transaction, stops what refers
   * to it: its watches go (with their rule states, alerts and watched zones), its reports are stopped (listed as stopped),
   * the channels bound to it keep their binding marked with its name (their zone commands are
   * refused, never sent to another account), its pending purge-everything requests are cancelled
   * by `removal.by`, each with the job that updates its message, and its own role grants are
   * deleted. Audit entries, purges and API tokens stay (those bound to it reach nothing). Returns
   * what was stopped, and those tokens. AccountError `account_not_found` when it is gone already.
   */
  async remove(ref: AccountRef, removal: Removal): Promise<AccountUsage> {
    const now = this.clock.now();
    return this.db.transaction().execute(async (trx) => {
      const watches = await removeWatches(trx, ref, { alerts: true });
      const reports = await stopReports(trx, ref, now);
      const bindings = await trx
        .updateTable('channel_bindings')
        .set({ removed_account: removal.name })
        .where('workspace_id', '=', ref.workspaceId)
        .where(ofAccount<'channel_bindings'>(ref))
        .executeTakeFirst();
      const cancelled = await trx
        .updateTable('approvals')
        .set({
          status: 'cancelled',
          decided_by: removal.by,
          decided_at: now,
          decision_note: ACCOUNT_REMOVED_NOTE,
          updated_at: now,
        })
        .where('workspace_id', '=', ref.workspaceId)
        .where('status', '=', 'pending')
        .where(ofAccount<'approvals'>(ref))
        .returning(['id', 'workspace_id'])
        .execute();
      await this.jobs.enqueueMany(
        cancelled.map((row) => removal.messageJob({ id: row.id, workspaceId: row.workspace_id })),
        trx,
      );
      // The account's own role grants go with it (a new account of the same name starts without).
      await trx
        .deleteFrom('account_roles')
        .where('workspace_id', '=', ref.workspaceId)
        .where('account_id', '=', ref.accountId)
        .execute();
      // The jobs held for its own recurring work would wait for ever: nothing of it runs again.
      await this.jobs.deleteByKeys(ref.workspaceId, removal.heldJobKeys, trx);
      // Its tokens are left as they are (revoking is an admin's act of its own): they reach nothing.
      const tokens = Number(
        (
          await boundTokens(trx, ref)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirst()
        )?.n ?? 0,
      );
      if (!(await this.accounts.removeIn(trx, ref.workspaceId, ref.accountId))) throw notFound();
      return {
        watches,
        reports,
        bindings: Number(bindings.numUpdatedRows),
        approvals: cancelled.length,
        tokens,
      };
    });
  }

  /**
   * The names of the live tokens `count` counts (`tokens`), in name order, at most `limit`:
   * `/cdn logout` names those that stop purging while the account has no key.
   */
  async boundTokenNames(ref: AccountRef, limit: number): Promise<string[]> {
    const rows = await boundTokens(this.db, ref)
      .select('name')
      .orderBy('name')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.name);
  }

  /** Clears the account's channel defaults (`/cdn logout`: chosen under its key); how many. */
  async clearBindings(ref: AccountRef): Promise<number> {
    const result = await this.db
      .deleteFrom('channel_bindings')
      .where('workspace_id', '=', ref.workspaceId)
      .where(ofAccount<'channel_bindings'>(ref))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Deletes the account's watches (with their rule states, alerts and zones' schedules) and stops
   * its reports, in one transaction (`/cdn logout`, asked to delete them); other accounts' stay.
   */
  async deleteWork(ref: AccountRef): Promise<AccountWork> {
    const now = this.clock.now();
    return this.db.transaction().execute(async (trx) => ({
      watches: await removeWatches(trx, ref, { alerts: true }),
      reports: await stopReports(trx, ref, now),
    }));
  }
}

/** The live tokens that reach the account's zones only (`account_scope` `all` reaches every one). */
function boundTokens(db: Kysely<Database>, ref: AccountRef) {
  return db
    .selectFrom('api_tokens')
    .where('workspace_id', '=', ref.workspaceId)
    .where('account_scope', '<>', 'all')
    .where('revoked_at', 'is', null)
    .where(ofAccount<'api_tokens'>(ref));
}

/**
 * Deletes the account's watches, their rule states (and, with `alerts`, their alerts), and its
 * zones' evaluation schedules; returns how many watches went.
 */
async function removeWatches(
  trx: Transaction<Database>,
  ref: AccountRef,
  options: { alerts?: boolean } = {},
): Promise<number> {
  const { workspaceId } = ref;
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
    // Their alerts name zones and channels: they go with the watches.
    if (options.alerts)
      await trx.deleteFrom('watch_alerts').where('watch_id', 'in', watchIds).execute();
    await trx.deleteFrom('watches').where('id', 'in', watchIds).execute();
  }
  await trx
    .deleteFrom('watch_zones')
    .where('workspace_id', '=', workspaceId)
    .where(ofAccount<'watch_zones'>(ref))
    .execute();
  return watchIds.length;
}

/** Stops the account's live reports (listed as stopped); returns how many. */
async function stopReports(
  trx: Transaction<Database>,
  ref: AccountRef,
  now: number,
): Promise<number> {
  const result = await trx
    .updateTable('schedules')
    .set({ status: 'stopped', updated_at: now })
    .where('workspace_id', '=', ref.workspaceId)
    .where('status', '<>', 'stopped')
    .where(ofAccount<'schedules'>(ref))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
