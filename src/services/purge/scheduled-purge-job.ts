// The job due at a scheduled purge's time: it checks again what was checked when it was asked
// (permissions, the channel's account binding, freezes, approval of a purge of everything; for the
// HTTP API, its token), then starts the purge, or does not and tells its requester why.
import type { Clock } from '../../clock.js';
import { AppError, type Problem } from '../../errors.js';
import type { JobContext, JobKind, JobOutcome } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/index.js';
import type { Job } from '../../store/jobs.js';
import type { Caller, SlackDirectory } from '../access/access.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { ApprovalService } from '../approvals/approvals.js';
import type { FreezeCheck, FreezeGate } from '../freezes/gate.js';
import type { ReplyTo } from '../reply.js';
import type { Zone } from '../zones/zones.js';
import type { PurgeService } from './purge-plan.js';
import type { PurgeGroup } from './purge-targets.js';
import {
  auditScheduled,
  type ScheduledApiRef,
  type ScheduledPurge,
  type ScheduledPurgePayload,
  type ScheduledWhat,
  viewOf,
  zonesOf,
} from './scheduled-purge-record.js';

interface ScheduledCheckpoint {
  /** Refused when it came due: said to the requester (again, if the job resumes). */
  skipped?: Problem;
  /** An API purge refused when it came due (its token, a freeze): its status says why. */
  refused?: ApiRefusalWords;
  /**
   * Its checks passed and its purge is being started (keyed): a resumed job starts it again (the
   * key makes that the same purge) without checking again, so it never says "refused" of a purge
   * that started.
   */
  starting?: boolean;
  /** Its purge was stored (keyed): a resumed job only finishes. */
  ran?: boolean;
}

/** How the bot reaches people for a scheduled purge; implemented over the Slack Web API. */
export interface ScheduledPurgeSlack {
  /** Who the workspace's people are, for the checks made when a purge comes due. */
  directory(workspaceId: string): Promise<SlackDirectory>;
  /** Tells the requester their purge did not run, and why (their DM, else the channel). */
  skipped(purge: ScheduledPurge, problem: Problem): Promise<void>;
}

/** Why the HTTP API's service refuses a purge now, as its status then says it. */
export interface ApiRefusalWords {
  code: string;
  detail: string;
}

/**
 * What a scheduled purge asked over the HTTP API needs of the API's service (which stores its
 * record and knows its token): implemented by ApiPurgeService.
 */
export interface ScheduledApiPurges {
  /**
   * Why the purge may not run now (its token revoked, or no longer reaching its zone, kind or
   * account; a change freeze), or undefined when it may.
   */
  scheduledRefusal(
    workspaceId: string,
    api: ScheduledApiRef,
    zone: Zone,
    everything: boolean,
  ): Promise<ApiRefusalWords | undefined>;
  /** Starts its purge of URLs or tags, keyed by its record (once, whoever starts it). */
  startScheduled(workspaceId: string, api: ScheduledApiRef, group: PurgeGroup): Promise<void>;
  /** It will not run (refused when due, or cancelled): its record says so, with `detail`. */
  closeScheduled(api: ScheduledApiRef, detail: string): Promise<void>;
}

/** The HTTP API's purges, there whenever a scheduled purge of theirs is run or cancelled. */
export function apiPurgesOf(
  api: (() => ScheduledApiPurges | undefined) | undefined,
): ScheduledApiPurges {
  const found = api?.();
  if (!found) throw new Error('scheduled purge of the HTTP API, and no API purges wired in');
  return found;
}

export class ScheduledPurgeJob {
  constructor(
    private readonly options: {
      purges: PurgeService;
      approvals: ApprovalService;
      accounts: AccountScopes;
      store: Store;
      slack: ScheduledPurgeSlack;
      /**
       * Change freezes, asked when the purge comes due (an exception its requester holds is used
       * up then); default: none.
       */
      freezes?: FreezeGate;
      /** The HTTP API's purges (made after this service, hence asked for when needed). */
      api?: () => ScheduledApiPurges | undefined;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** The job due at the purge's time: checks again, then runs the purge or tells why not. */
  readonly job: JobKind<ScheduledPurgePayload, ScheduledCheckpoint> = {
    concurrency: 4,
    run: (context) => this.#run(context),
  };

  async #run(context: JobContext<ScheduledPurgePayload, ScheduledCheckpoint>): Promise<JobOutcome> {
    const { job } = context;
    if (job.checkpoint.ran) return 'done';
    if (job.payload.api) return this.#runApi(context, job.payload.api);
    const problem = job.checkpoint.starting
      ? undefined
      : (job.checkpoint.skipped ?? (await this.#refusal(job)));
    if (problem) return this.#skip(context, problem);
    if (!job.checkpoint.starting) await context.checkpoint({ starting: true });
    const { payload } = job;
    const { what } = payload;
    if (what.kind === 'items') {
      await this.options.purges.startScheduled(
        job.workspaceId,
        what.groups,
        payload.requesterId,
        replyOf(payload),
        {
          key: `scheduled:${job.id}`,
          ...(what.verify ? { verify: true } : {}),
          ...(what.fromDefault ? { fromDefault: true } : {}),
        },
      );
    } else await this.#runApproved(what);
    return this.#ran(context);
  }

  /**
   * A purge asked over the HTTP API come due: not approved (everything), it does not run (its
   * approval says why); refused by the API's service (its token, a freeze), its record says why;
   * else it runs as a purge asked now would, under its record's keys.
   */
  async #runApi(
    context: JobContext<ScheduledPurgePayload, ScheduledCheckpoint>,
    api: ScheduledApiRef,
  ): Promise<JobOutcome> {
    const { job } = context;
    const { payload } = job;
    const { what } = payload;
    const service = apiPurgesOf(this.options.api);
    let refused = job.checkpoint.refused;
    if (!refused && !job.checkpoint.starting && what.kind === 'everything') {
      const unapproved = await this.#unapproved(what);
      if (unapproved) return this.#skip(context, unapproved);
    }
    if (!refused && !job.checkpoint.starting) {
      for (const zone of zonesOf(what)) {
        refused = await service.scheduledRefusal(
          job.workspaceId,
          api,
          zone,
          what.kind === 'everything',
        );
        if (refused) break;
      }
    }
    if (refused) {
      if (!job.checkpoint.refused) await context.checkpoint({ refused });
      await service.closeScheduled(api, `not run at its time: ${refused.detail}`);
      await this.#audit(job, 'purge.scheduled.skipped', 'refused', { reason: refused.code });
      return 'done';
    }
    if (!job.checkpoint.starting) await context.checkpoint({ starting: true });
    if (what.kind === 'items') {
      for (const group of what.groups) await service.startScheduled(job.workspaceId, api, group);
    } else await this.#runApproved(what);
    return this.#ran(context);
  }

  /** Its purge of everything, approved: run as the approval's own purge (keyed by it). */
  async #runApproved(what: Extract<ScheduledWhat, { kind: 'everything' }>): Promise<void> {
    const approval = await this.options.store.approvals.get(what.approvalId);
    if (approval) await this.options.approvals.runScheduled(approval);
  }

  /** Its purge stored: checkpointed, then audited once (keyed), however often this resumes. */
  async #ran(context: JobContext<ScheduledPurgePayload, ScheduledCheckpoint>): Promise<JobOutcome> {
    const { job } = context;
    await context.checkpoint({ ran: true });
    const late = Math.max(0, this.options.clock.now() - job.payload.dueAt);
    await this.#audit(job, 'purge.scheduled.ran', 'ok', { late });
    return 'done';
  }

  /** Its audit entry, by its requester, written once under `<action>:<job>`. */
  #audit(
    job: Job<ScheduledPurgePayload, unknown>,
    action: string,
    outcome: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    const { store } = this.options;
    const { payload } = job;
    return auditScheduled(
      store,
      job.id,
      job.workspaceId,
      payload,
      payload.requesterId,
      action,
      outcome,
      detail,
      `${action}:${job.id}`,
    );
  }

  /** A purge of everything not approved by its time: why (its request expires now, if pending). */
  async #unapproved(
    what: Extract<ScheduledWhat, { kind: 'everything' }>,
  ): Promise<Problem | undefined> {
    const approval = await this.options.store.approvals.get(what.approvalId);
    // Its request expires at its time: one still pending is expired now (and its message says so).
    if (approval?.status === 'pending') await this.options.approvals.expireDue();
    const status = (await this.options.store.approvals.get(what.approvalId))?.status;
    if (status === 'approved') return undefined;
    return {
      code: 'scheduled_purge_unapproved',
      zoneName: what.zone.name,
      status: status === 'pending' || status === undefined ? 'expired' : status,
    };
  }

  /**
   * Why the purge may not run now, or undefined: not approved (everything), the requester no
   * longer allowed there, the channel bound to another account, or a change freeze in force.
   */
  async #refusal(job: Job<ScheduledPurgePayload, unknown>): Promise<Problem | undefined> {
    const { payload } = job;
    const { what } = payload;
    if (what.kind === 'everything') {
      const unapproved = await this.#unapproved(what);
      if (unapproved) return unapproved;
    }
    const zones = zonesOf(what);
    try {
      const caller: Caller = {
        workspaceId: job.workspaceId,
        userId: payload.requesterId,
        directory: await this.options.slack.directory(job.workspaceId),
      };
      await this.options.purges.checks.mayPurgeZones(caller, payload.channelId, zones);
      for (const zone of zones)
        await this.options.accounts.requireInChannel(
          job.workspaceId,
          payload.channelId,
          zone.accountId,
        );
      for (const check of freezeChecksOf(job)) await this.options.freezes?.require(check);
    } catch (error) {
      if (error instanceof AppError) return error.problem;
      throw error;
    }
    return undefined;
  }

  async #skip(
    context: JobContext<ScheduledPurgePayload, ScheduledCheckpoint>,
    problem: Problem,
  ): Promise<JobOutcome> {
    const { job } = context;
    if (!job.checkpoint.skipped) await context.checkpoint({ skipped: problem });
    await this.#audit(job, 'purge.scheduled.skipped', 'refused', { reason: problem.code });
    // A token has no DM: an API purge's status (read from its approval) is how it is told.
    if (job.payload.api) return 'done';
    try {
      await this.options.slack.skipped(viewOf(job), problem);
    } catch (error) {
      // Said at most once more: the decision stands (checkpointed), only the word is retried.
      this.options.logger.warn({ err: error, job: job.id }, 'scheduled purge skip not said');
      if (job.attempts < 3) return { retryInMs: 30_000, error: 'requester not told' };
    }
    return 'done';
  }
}

/** Where the purge's messages go when it runs: a bot message in its channel, else the DM. */
function replyOf(payload: ScheduledPurgePayload): ReplyTo {
  return {
    userId: payload.requesterId,
    issuedAt: payload.dueAt,
    visibility: 'in_channel',
    ...(payload.channelId ? { channelId: payload.channelId } : {}),
  };
}

/**
 * What the freezes are asked when the purge comes due: a purge of everything, or a purge (URLs,
 * tags) of each of its zones, by its requester.
 */
function freezeChecksOf(job: Job<ScheduledPurgePayload, unknown>): FreezeCheck[] {
  const { what, requesterId } = job.payload;
  const of = (zone: Zone, action: FreezeCheck['action']): FreezeCheck => ({
    workspaceId: job.workspaceId,
    actorId: requesterId,
    action,
    zone: { id: zone.id, name: zone.name, accountId: zone.accountId },
  });
  if (what.kind === 'everything') return [of(what.zone, 'everything')];
  return what.groups.map((group) => of(group.zone, 'purge'));
}
