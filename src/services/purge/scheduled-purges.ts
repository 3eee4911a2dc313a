// Purges for a later time: a durable job due then (any replica, once, after a restart too) that
// checks again, when it runs, what was checked when it was asked: the requester may still purge
// there (operators, guests, purge channels, the channel's account binding; for the HTTP API, its
// token, through the ScheduledApiPurges port), no change freeze holds it back (FreezeGate), and a
// purge of everything was approved. Refused, it does not run and its requester is told. Listed,
// and cancelled by its requester or an admin.
// (About 600 lines: asking, the due job and cancelling share one payload; one idea, one file.)
import { DateTime } from 'luxon';
import type { Clock } from '../../clock.js';
import { AppError, type Problem } from '../../errors.js';
import type { JobContext, JobKind, JobOutcome, JobRunner } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { ZoneOfEntry } from '../../store/audit-log.js';
import type { Store } from '../../store/index.js';
import type { Job } from '../../store/jobs.js';
import type { AccessService, Caller, SlackDirectory } from '../access/access.js';
import type { ChangeRateLimit } from '../access/change-rate-limit.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { ApprovalService } from '../approvals/approvals.js';
import { knownZone } from '../audit/activity.js';
import type { FreezeCheck, FreezeGate } from '../freezes/gate.js';
import type { ReplyTo } from '../reply.js';
import type { Zone } from '../zones/zones.js';
import type { CheckedPurge, PurgeService } from './purge-plan.js';
import type { PurgeGroup } from './purge-targets.js';
import { resolveSpec, type ScheduleSpec } from './schedule-time.js';

export const SCHEDULED_PURGE_JOB = 'scheduled_purge';

/** How many scheduled purges a list shows (and a cancel by a short id looks among). */
const LIST_LIMIT = 50;
/** How many the App Home shows. */
const HOME_LIMIT = 10;
/** The short id people see and type: the job id's first characters. */
export const SHORT_ID = 8;

export type ScheduledWhat =
  | {
      kind: 'items';
      groups: Array<{ zone: Zone; files: string[]; tags: string[] }>;
      verify?: boolean;
      fromDefault?: boolean;
    }
  | { kind: 'everything'; zone: Zone; approvalId: string };

/** A scheduled purge asked over the HTTP API: its record there and the token that asked. */
export interface ScheduledApiRef {
  purgeId: string;
  tokenId: string;
  /** URLs only: once purged, asked of the edge again. */
  warm?: boolean;
}

export interface ScheduledPurgePayload {
  /** A Slack user, or `token:<name>` for one asked over the HTTP API (then `api` is set). */
  requesterId: string;
  api?: ScheduledApiRef;
  channelId?: string;
  dueAt: number;
  /** The requester's time zone when asked (users.info `tz`, else UTC): how their time was read. */
  timeZone: string;
  what: ScheduledWhat;
}

/** A scheduled purge as its list and messages show it. */
export interface ScheduledPurge {
  id: string;
  workspaceId: string;
  shortId: string;
  requesterId: string;
  channelId?: string;
  dueAt: number;
  timeZone: string;
  /** The time as the requester's clock reads it (`2026-12-03 02:00`). */
  localTime: string;
  zoneNames: string[];
  everything: boolean;
  files: number;
  tags: number;
}

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

export interface ScheduledPurgeOptions {
  purges: PurgeService;
  approvals: ApprovalService;
  access: AccessService;
  accounts: AccountScopes;
  flood: ChangeRateLimit;
  store: Store;
  runner: JobRunner;
  slack: ScheduledPurgeSlack;
  /**
   * Change freezes, asked when the purge comes due (an exception its requester holds is used up
   * then); default: none.
   */
  freezes?: FreezeGate;
  /** The HTTP API's purges (made after this service, hence asked for when needed). */
  api?: () => ScheduledApiPurges | undefined;
  clock: Clock;
  logger: Logger;
}

export class ScheduledPurgeService {
  constructor(private readonly options: ScheduledPurgeOptions) {}

  /** The instant `spec` names for the caller (their Slack time zone, else UTC), and that zone. */
  async when(caller: Caller, spec: ScheduleSpec): Promise<{ at: number; timeZone: string }> {
    const timeZone = knownZone(await this.options.access.timeZoneOf(caller).catch(() => 'UTC'));
    return { at: resolveSpec(spec, timeZone, this.options.clock.now()), timeZone };
  }

  /**
   * Stores URL and tag purges of a plan checked as it was made (PurgeService.plan), to run at
   * `spec`'s time. Counted against the caller's change limit now, when it is asked.
   */
  async schedule(
    caller: Caller,
    channelId: string | undefined,
    plan: CheckedPurge,
    spec: ScheduleSpec,
    options: { verify?: boolean } = {},
  ): Promise<ScheduledPurge> {
    const { flood } = this.options;
    const { at, timeZone } = await this.when(caller, spec);
    await flood.take(caller.workspaceId, caller.userId);
    const payload: ScheduledPurgePayload = {
      requesterId: caller.userId,
      ...(channelId ? { channelId } : {}),
      dueAt: at,
      timeZone,
      what: {
        kind: 'items',
        groups: plan.groups.map(({ zone, files, tags }) => ({ zone, files, tags })),
        ...(options.verify ? { verify: true } : {}),
        ...(plan.fromDefault ? { fromDefault: true } : {}),
      },
    };
    return this.#store(caller.workspaceId, payload);
  }

  /**
   * A purge of everything for later: its request is posted now for a second person, and expires
   * at its time; the job due then runs it only if it was approved (ApprovalService.execute leaves
   * a request for later to this job). The caller was checked by ApprovalService.prepareRequest.
   */
  async requestEverything(
    caller: Caller,
    input: { zone: Zone; reason: string; channelId: string; notBefore: number; timeZone?: string },
  ): Promise<ScheduledPurge> {
    const { approvals, clock } = this.options;
    const now = clock.now();
    const at = resolveSpec({ kind: 'instant', at: input.notBefore, text: '' }, 'UTC', now);
    const timeZone =
      input.timeZone ?? knownZone(await this.options.access.timeZoneOf(caller).catch(() => 'UTC'));
    const approval = await approvals.request(caller.workspaceId, {
      zone: input.zone,
      requesterId: caller.userId,
      reason: input.reason,
      channelId: input.channelId,
      ttlMs: at - now,
      notBefore: at,
    });
    return this.#store(
      caller.workspaceId,
      {
        requesterId: caller.userId,
        channelId: input.channelId,
        dueAt: at,
        timeZone,
        what: { kind: 'everything', zone: input.zone, approvalId: approval.id },
      },
      `scheduled-approval:${approval.id}`,
    );
  }

  /**
   * A purge asked over the HTTP API with a future `not_before`, its record stored and checked by
   * ApiPurgeService: stored once per record (keyed), to run at `dueAt`. A purge of everything
   * names its approval request, which must be approved by then.
   */
  async scheduleForApi(
    workspaceId: string,
    input: {
      api: ScheduledApiRef;
      actorId: string;
      channelId?: string | undefined;
      dueAt: number;
      what: ScheduledWhat;
    },
  ): Promise<ScheduledPurge> {
    return this.#store(
      workspaceId,
      {
        requesterId: input.actorId,
        api: input.api,
        ...(input.channelId ? { channelId: input.channelId } : {}),
        dueAt: input.dueAt,
        timeZone: 'UTC',
        what: input.what,
      },
      scheduledApiKey(input.api.purgeId),
    );
  }

  async #store(
    workspaceId: string,
    payload: ScheduledPurgePayload,
    key?: string,
  ): Promise<ScheduledPurge> {
    const { job } = await this.options.runner.enqueue({
      workspaceId,
      kind: SCHEDULED_PURGE_JOB,
      payload,
      runAt: payload.dueAt,
      ...(key ? { key } : {}),
    });
    const purge = viewOf(job as Job<ScheduledPurgePayload>);
    await this.#audit(job.id, workspaceId, payload, payload.requesterId, 'purge.scheduled', 'ok', {
      dueAt: new Date(payload.dueAt).toISOString(),
      timeZone: payload.timeZone,
    });
    return purge;
  }

  /** The workspace's purges waiting for their time, soonest first, that the caller may read. */
  async list(caller: Caller): Promise<{ shown: ScheduledPurge[]; hidden: number }> {
    await this.options.access.requireFullMember(caller, 'read_audit');
    const jobs = await this.options.store.jobs.queuedOf(
      caller.workspaceId,
      SCHEDULED_PURGE_JOB,
      LIST_LIMIT,
    );
    const all = jobs.map((job) => viewOf(job as Job<ScheduledPurgePayload>));
    // One asked in a conversation the caller is not in is counted, not shown.
    const inChannels = all.flatMap((p) => (p.channelId ? [{ ...p, channelId: p.channelId }] : []));
    const { shown, hidden } = await this.options.access.visibleIn(caller, inChannels);
    const own = all.filter((p) => !p.channelId && p.requesterId === caller.userId);
    return {
      shown: [...shown, ...own].sort((a, b) => a.dueAt - b.dueAt),
      hidden: hidden + all.filter((p) => !p.channelId && p.requesterId !== caller.userId).length,
    };
  }

  /**
   * For the App Home: the caller's own purges waiting for their time, or (an admin) every one,
   * soonest first: at most `limit` of the workspace's next LIST_LIMIT, and how many more.
   */
  async forHome(
    caller: Caller,
    limit = HOME_LIMIT,
  ): Promise<{ shown: ScheduledPurge[]; hidden: number; everyone: boolean }> {
    const everyone = await this.options.access.requireAdmin(caller, 'purge').then(
      () => true,
      (error: unknown) => {
        if (error instanceof AppError) return false;
        throw error;
      },
    );
    const jobs = await this.options.store.jobs.queuedOf(
      caller.workspaceId,
      SCHEDULED_PURGE_JOB,
      LIST_LIMIT,
    );
    const mine = jobs
      .map((job) => viewOf(job as Job<ScheduledPurgePayload>))
      .filter((purge) => everyone || purge.requesterId === caller.userId);
    return { shown: mine.slice(0, limit), hidden: Math.max(0, mine.length - limit), everyone };
  }

  /** Cancels a purge still waiting, for its requester or an admin; `id` may be its short id. */
  async cancel(caller: Caller, id: string): Promise<ScheduledPurge> {
    const { store, access } = this.options;
    const job = await this.#find(caller.workspaceId, id.trim());
    const purge = viewOf(job);
    if (purge.requesterId !== caller.userId) {
      await access.requireAdmin(caller, 'purge').catch((error: unknown) => {
        throw error instanceof AppError
          ? new AppError({ code: 'scheduled_purge_not_yours' })
          : error;
      });
    }
    if (!(await store.jobs.cancelQueued(job.id, 'cancelled'))) {
      const now = await store.jobs.get(job.id);
      throw new AppError({
        code: 'scheduled_purge_closed',
        state: now?.state === 'running' ? 'running' : 'over',
      });
    }
    const { what } = job.payload;
    if (what.kind === 'everything') {
      const decided = await this.options.approvals.decide(what.approvalId, 'cancelled', {
        userId: caller.userId,
        note: 'scheduled purge cancelled',
      });
      if (decided.won) await this.options.approvals.closed(decided.approval);
    }
    if (job.payload.api)
      await this.#api().closeScheduled(job.payload.api, `cancelled in Slack by ${caller.userId}`);
    await this.#audit(
      job.id,
      caller.workspaceId,
      job.payload,
      caller.userId,
      'purge.scheduled.cancelled',
      'ok',
      purge.requesterId === caller.userId ? {} : { requestedBy: purge.requesterId },
    );
    return purge;
  }

  async #find(workspaceId: string, id: string): Promise<Job<ScheduledPurgePayload>> {
    // Its whole id (a button's) first, whatever its length; else a short id, among those waiting.
    const exact = id === '' ? undefined : await this.options.store.jobs.get(id);
    const found =
      exact ??
      (id.length >= 4
        ? (
            await this.options.store.jobs.queuedOf(workspaceId, SCHEDULED_PURGE_JOB, LIST_LIMIT)
          ).find((job) => job.id.startsWith(id.toLowerCase()))
        : undefined);
    if (!found || found.workspaceId !== workspaceId || found.kind !== SCHEDULED_PURGE_JOB)
      throw new AppError({ code: 'scheduled_purge_unknown', id });
    return found as Job<ScheduledPurgePayload>;
  }

  /** The job due at the purge's time: checks again, then runs the purge or tells why not. */
  readonly job: JobKind<ScheduledPurgePayload, ScheduledCheckpoint> = {
    concurrency: 4,
    run: (context) => this.#run(context),
  };

  #api(): ScheduledApiPurges {
    const api = this.options.api?.();
    if (!api) throw new Error('scheduled purge of the HTTP API, and no API purges wired in');
    return api;
  }

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
    } else {
      const approval = await this.options.store.approvals.get(what.approvalId);
      if (approval) await this.options.approvals.runScheduled(approval);
    }
    await context.checkpoint({ ran: true });
    await this.#audit(
      job.id,
      job.workspaceId,
      payload,
      payload.requesterId,
      'purge.scheduled.ran',
      'ok',
      { late: Math.max(0, this.options.clock.now() - payload.dueAt) },
      `purge.scheduled.ran:${job.id}`,
    );
    return 'done';
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
    const service = this.#api();
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
      await this.#audit(
        job.id,
        job.workspaceId,
        payload,
        payload.requesterId,
        'purge.scheduled.skipped',
        'refused',
        { reason: refused.code },
        `purge.scheduled.skipped:${job.id}`,
      );
      return 'done';
    }
    if (!job.checkpoint.starting) await context.checkpoint({ starting: true });
    if (what.kind === 'items') {
      for (const group of what.groups) await service.startScheduled(job.workspaceId, api, group);
    } else {
      const approval = await this.options.store.approvals.get(what.approvalId);
      if (approval) await this.options.approvals.runScheduled(approval);
    }
    await context.checkpoint({ ran: true });
    await this.#audit(
      job.id,
      job.workspaceId,
      payload,
      payload.requesterId,
      'purge.scheduled.ran',
      'ok',
      { late: Math.max(0, this.options.clock.now() - payload.dueAt) },
      `purge.scheduled.ran:${job.id}`,
    );
    return 'done';
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
        await this.options.accounts?.requireInChannel(
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
    await this.#audit(
      job.id,
      job.workspaceId,
      job.payload,
      job.payload.requesterId,
      'purge.scheduled.skipped',
      'refused',
      { reason: problem.code },
      `purge.scheduled.skipped:${job.id}`,
    );
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

  async #audit(
    jobId: string,
    workspaceId: string,
    payload: ScheduledPurgePayload,
    actorId: string,
    action: string,
    outcome: string,
    detail: Record<string, unknown>,
    key?: string,
  ): Promise<void> {
    const { what } = payload;
    const zone = what.kind === 'everything' ? what.zone : what.groups[0]?.zone;
    const onZone: ZoneOfEntry = zone
      ? { zoneId: zone.id, zoneName: zone.name, accountId: zone.accountId }
      : {};
    await this.options.store.audit.record({
      ...(key ? { key } : {}),
      workspaceId,
      actorId,
      action,
      ...onZone,
      outcome,
      detail: {
        scheduled: jobId,
        everything: what.kind === 'everything',
        ...(what.kind === 'items'
          ? {
              zones: what.groups.length,
              files: what.groups.reduce((n, g) => n + g.files.length, 0),
              tags: what.groups.reduce((n, g) => n + g.tags.length, 0),
            }
          : { approval: what.approvalId }),
        ...detail,
      },
    });
  }
}

/** The job key of a scheduled purge asked over the HTTP API: one per API record. */
export const scheduledApiKey = (apiPurgeId: string) => `api-scheduled:${apiPurgeId}`;

function zonesOf(what: ScheduledWhat): Zone[] {
  return what.kind === 'items' ? what.groups.map((g) => g.zone) : [what.zone];
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

export function viewOf(job: Job<ScheduledPurgePayload, unknown>): ScheduledPurge {
  const { payload } = job;
  const { what } = payload;
  const groups = what.kind === 'items' ? what.groups : [];
  return {
    id: job.id,
    workspaceId: job.workspaceId,
    shortId: job.id.slice(0, SHORT_ID),
    requesterId: payload.requesterId,
    ...(payload.channelId ? { channelId: payload.channelId } : {}),
    dueAt: payload.dueAt,
    timeZone: payload.timeZone,
    localTime: DateTime.fromMillis(payload.dueAt, { zone: payload.timeZone }).toFormat(
      'yyyy-LL-dd HH:mm',
    ),
    zoneNames: what.kind === 'everything' ? [what.zone.name] : groups.map((g) => g.zone.name),
    everything: what.kind === 'everything',
    files: groups.reduce((n, g) => n + g.files.length, 0),
    tags: groups.reduce((n, g) => n + g.tags.length, 0),
  };
}
