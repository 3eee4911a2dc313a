// Purging URLs and tags: plan, then run as a durable job whose batches are its steps (each
// checkpointed as it ends, so a restarted or other replica resumes at the first unfinished one),
// show progress, record, audit once, and retry what failed. Every way in checks its own
// preconditions: an operator (guests as configured), in a channel purges may be run from, and
// each purge started counted against the person's flood limit. (Over 400 lines: the ways in and
// the job they start share the plan, the payload and the checks; the job could be its own file.)
import pLimit from 'p-limit';
import { isCdnError } from '../../cdn/errors.js';
import {
  outcomeUnknown,
  restoredError,
  type StoredCdnError,
  storedError,
} from '../../cdn/outcome.js';
import {
  type PurgeBatch,
  type PurgeBatchResult,
  type PurgeReport,
  reportOf,
} from '../../cdn/purge.js';
import { AppError } from '../../errors.js';
import type { JobContext, JobKind, JobOutcome, JobRunner } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import { DEFAULT_ACCOUNT } from '../../store/accounts.js';
import type { Store } from '../../store/index.js';
import type { PurgeJob } from '../../store/purges.js';
import { zoneKey } from '../../zone-names.js';
import type { AccessService, Caller } from '../access/access.js';
import type { ChangeRateLimit } from '../access/change-rate-limit.js';
import type { ChannelService } from '../access/channels.js';
import { requireOperatorWhere } from '../access/operators.js';
import { byAccount } from '../accounts/account-lookup.js';
import {
  type AccountScope,
  type AccountScopes,
  indexOf,
  named,
} from '../accounts/account-scope.js';
import type { CdnAccess } from '../accounts/cdn-access.js';
import type { FreezeGate } from '../freezes/gate.js';
import type { ReplyTo } from '../reply.js';
import { DEFAULT_VERIFY_DELAY_MS, verifyAfterPurge } from '../verify/verify-job.js';
import { ViewNotNow } from '../view-not-now.js';
import type { Zone, ZoneService } from '../zones/zones.js';
import { type PurgeArgs, type PurgeGroup, type PurgePlan, planPurge } from './purge-targets.js';

export interface PurgeRun {
  job: PurgeJob;
  report: PurgeReport;
}

/** Where a purge stands, for its progress message. */
export interface PurgeStatus {
  zoneNames: string[];
  /** The zone was the channel's default, not named. */
  fromDefault?: boolean;
  files: number;
  tags: number;
  actorId: string;
  done: number;
  total: number;
}

export interface PurgeOutcome {
  /** One per zone that was purged, in order. */
  runs: PurgeRun[];
  actorId: string;
  /** Why the zones after the last run were not purged, when one failed outright. */
  error?: unknown;
  /** The zone was the channel's default, not named. */
  fromDefault?: boolean;
}

/** How a running purge is shown to people; implemented over Slack messages in src/slack. */
export interface PurgeProgressView {
  started(status: PurgeStatus): Promise<void>;
  progressed(status: PurgeStatus): Promise<void>;
  /** The process is stopping; the purge resumes by itself (here or on another replica). */
  paused(status: PurgeStatus): Promise<void>;
  /**
   * Called once the purge ended, whatever happened: a message saying "Purging…" must not stay so.
   * ViewNotNow when it cannot be said yet (Slack's rate limit): the job says it again then. The
   * other three are progress: they skip what cannot be said now, and never throw ViewNotNow.
   */
  finished(outcome: PurgeOutcome): Promise<void>;
}

/** Opens the view of a purge job: its message, carried across attempts by `state` and `save`. */
export type PurgeViews = (
  workspaceId: string,
  replyTo: ReplyTo,
  state: Record<string, unknown>,
  save: (state: Record<string, unknown>) => Promise<void>,
  /** The job's payload: a purge asked for over the HTTP API carries `api`. */
  payload?: PurgeJobPayload,
) => PurgeProgressView;

export const PURGE_JOB = 'purge';

export interface PurgeJobPayload {
  actorId: string;
  retryOf?: string;
  replyTo: ReplyTo;
  groups: Array<{ zone: Zone; files: number; tags: number }>;
  /** The zone was the channel's default, not named: the messages say so. */
  fromDefault?: boolean;
  /** Asked with --verify: once done, its URLs are checked at the edge (a verify job per zone). */
  verify?: boolean;
  /** Asked with --warm: once done, its URLs are asked of the edge again to refill its cache. */
  warm?: boolean;
  /** Asked for over the HTTP API: the API's record of it (see ApiPurgeService). */
  api?: {
    purgeId: string;
    sample?: string[];
    /**
     * The id of the zone's account as the API's record stored it (`default`'s for `default`):
     * recorded on the purge and its audit entry without reading it again.
     */
    accountId?: string;
  };
}

interface PurgeStep extends PurgeBatch {
  /** Which group (zone) of the payload the batch belongs to. */
  group: number;
}

type StepResult = { ok: true; purgeId?: string } | { ok: false; error: StoredCdnError };

/** What a batch that was never sent counts as, when a purge job is given up: a failure. */
const NOT_SENT: StepResult = {
  ok: false,
  error: {
    code: 'unavailable',
    message: 'not sent: the purge stopped after repeated failures',
    notSent: true,
  },
};

interface PurgeCheckpoint {
  /**
   * The "Purging…" message went out (or is going out): a resumed job does not say it again.
   * Written with the message's own state, never on its own: a message that saved nothing said
   * nothing, and is said again.
   */
  announced?: boolean;
  /** Where that message is (see src/slack/durable-message.ts). */
  message?: Record<string, unknown>;
}

/** Progress is shown at a third and two thirds: with the first post and the result, within a response_url's 5 uses. */
const MILESTONES = 3;
/** Below this many CDN requests, progress would flash by: only the result is shown. */
const PROGRESS_MIN_REQUESTS = 4;

export class PurgeService {
  constructor(
    private readonly deps: {
      cdn: CdnAccess;
      zones: ZoneService;
      access: AccessService;
      channels: ChannelService;
      /** Which CDN accounts a purge may use; without it, the account `default` only. */
      accounts?: AccountScopes;
      flood: ChangeRateLimit;
      store: Store;
      runner: JobRunner;
      /** Change freezes: URL and tag purges are refused during one that says so. */
      freezes?: FreezeGate;
      views: PurgeViews;
      /** Progress updates must never stop a purge; their failures are only logged. */
      onViewError: (error: unknown) => void;
      logger: Logger;
      /** How long after a purge asked with --verify the edge is asked. */
      verifyDelayMs?: number;
      clock?: { now(): number };
    },
  ) {}

  /**
   * Refuses a caller who may not purge from `channelId`: not an operator (a guest unless guests
   * may operate), or a channel other than those purges are limited to. Every method that plans,
   * holds or starts a purge checks it first; so does the hold service. `accountId`: the CDN
   * account of the zone purged (none: `default`), whose operators the caller must be.
   */
  async mayPurge(caller: Caller, channelId: string | undefined, accountId?: string): Promise<void> {
    await this.deps.access.requireOperator(caller, 'purge', accountId);
    await this.deps.channels.requirePurgeChannel(caller, channelId);
  }

  /**
   * Refuses a caller who may purge (mayPurge) in none of the CDN accounts a command may use from
   * `channelId` (`account`: the one typed): checked before any zone is looked for. Once the zones
   * are known, each one's own account is checked (mayPurgeZones): operators of `staging` purge
   * its zones and not `default`'s.
   */
  async mayPurgeAny(
    caller: Caller,
    channelId: string | undefined,
    account?: string,
  ): Promise<void> {
    const { access, accounts } = this.deps;
    await requireOperatorWhere({ access, accountScopes: accounts }, caller, 'purge', {
      channelId,
      account,
    });
    await this.deps.channels.requirePurgeChannel(caller, channelId);
  }

  /**
   * A purge record of the caller's workspace (its Retry, Verify or Purge again button), for a
   * caller who may purge in the record's own account from `channelId`: a channel bound to another
   * account refuses it (AppError account_bound), as it refuses that account typed. A record not
   * found is AppError purge_unknown, said only to one who may purge at all (mayPurgeAny).
   */
  async recordFor(caller: Caller, channelId: string | undefined, recordId: string) {
    const record = await this.deps.store.purges.get(recordId);
    if (!record || record.workspaceId !== caller.workspaceId) {
      await this.mayPurgeAny(caller, channelId);
      throw new AppError({ code: 'purge_unknown' });
    }
    await this.deps.accounts?.requireInChannel(caller.workspaceId, channelId, record.accountId);
    await this.mayPurge(caller, channelId, record.accountId);
    return record;
  }

  /** mayPurge in the account of each zone (absent: `default`); `default`'s when there is none. */
  async mayPurgeZones(
    caller: Caller,
    channelId: string | undefined,
    zones: ReadonlyArray<{ accountId?: string }>,
  ): Promise<void> {
    const accountIds = [...new Set(zones.map((zone) => zone.accountId))];
    for (const accountId of accountIds.length > 0 ? accountIds : [undefined])
      await this.mayPurge(caller, channelId, accountId);
  }

  /**
   * The zone a purge form or a purge-everything confirmation is about, for a caller who may
   * purge it from `channelId` (in its own account): the one named, else the channel's default.
   */
  async zoneFor(
    caller: Caller,
    channelId: string | undefined,
    zoneName?: string,
    account?: string,
  ): Promise<Zone> {
    await this.mayPurgeAny(caller, channelId, account);
    const zone =
      zoneName !== undefined
        ? await this.#zoneIn(caller, channelId, zoneName, account)
        : await this.#channelDefault(caller.workspaceId, channelId, account);
    await this.mayPurge(caller, channelId, zone.accountId);
    return zone;
  }

  /**
   * The channel's default zone, for a command that named no zone; with an account typed, only if
   * the zone is that account's (AppError channel_default_elsewhere: never another account's zone
   * in place of the one the person named).
   */
  async #channelDefault(
    workspaceId: string,
    channelId: string | undefined,
    account: string | undefined,
  ): Promise<Zone> {
    const zone = await this.deps.channels.defaultZone(workspaceId, channelId, 'purge');
    // A binding that names no account is `default`'s (src/services/access/channels.ts).
    const own = zone.accountName ?? DEFAULT_ACCOUNT;
    if (account !== undefined && own.toLowerCase() !== account.toLowerCase())
      throw new AppError({
        code: 'channel_default_elsewhere',
        zoneName: zone.name,
        account: own,
        asked: account,
      });
    return zone;
  }

  /**
   * The zone named, in the accounts the command may use (the channel's, the one typed, else
   * each: AppError zone_ambiguous when several hold it).
   */
  async #zoneIn(
    caller: Caller,
    channelId: string | undefined,
    zoneName: string,
    account: string | undefined,
  ): Promise<Zone> {
    const { accounts } = this.deps;
    const scope = await accounts?.scope(caller.workspaceId, channelId, account);
    if (accounts && scope && byAccount(scope))
      return accounts.resolve(caller.workspaceId, scope, zoneName);
    return this.deps.zones.resolve(caller.workspaceId, zoneName);
  }

  /**
   * Checks and groups what the caller gave; nothing is sent. Paths and tags name no host: with no
   * zone named, they are the channel's default zone's (`fromDefault`).
   */
  async plan(
    caller: Caller,
    channelId: string | undefined,
    args: Extract<PurgeArgs, { kind: 'items' }>,
    account?: string,
  ): Promise<PurgePlan & { fromDefault?: true }> {
    await this.mayPurgeAny(caller, channelId, account);
    const plan = await this.#plan(caller, channelId, args, account);
    // What would be purged, in each zone's own account (nothing: its refusal says why).
    if (plan.groups.length > 0)
      await this.mayPurgeZones(
        caller,
        channelId,
        plan.groups.map((group) => group.zone),
      );
    return plan;
  }

  async #plan(
    caller: Caller,
    channelId: string | undefined,
    args: Extract<PurgeArgs, { kind: 'items' }>,
    account: string | undefined,
  ): Promise<PurgePlan & { fromDefault?: true }> {
    const { zones } = this.deps;
    const { workspaceId } = caller;
    const needsDefault =
      args.zone === undefined && ((args.paths?.length ?? 0) > 0 || args.tags.length > 0);
    const scope = await this.deps.accounts?.scope(workspaceId, channelId, account);
    if (scope && byAccount(scope))
      return this.#planIn(caller, channelId, args, { scope, account }, needsDefault);
    const zone =
      args.zone !== undefined
        ? await zones.resolve(workspaceId, args.zone)
        : needsDefault
          ? await this.#channelDefault(workspaceId, channelId, account)
          : undefined;
    const plan = planPurge(itemsIn(zone, args), await zones.all(workspaceId));
    return needsDefault ? { ...plan, fromDefault: true } : plan;
  }

  /**
   * `plan` where several CDN accounts may hold the zones: the zone named is looked for
   * in the scope's accounts; URLs find their zone across them, and a URL whose zone name is in
   * several accounts is AppError zone_ambiguous (the person names the account).
   */
  async #planIn(
    caller: Caller,
    channelId: string | undefined,
    args: Extract<PurgeArgs, { kind: 'items' }>,
    { scope, account }: { scope: AccountScope; account: string | undefined },
    needsDefault: boolean,
  ): Promise<PurgePlan & { fromDefault?: true }> {
    const accounts = this.deps.accounts as AccountScopes;
    const { workspaceId } = caller;
    const zone =
      args.zone !== undefined
        ? await accounts.resolve(workspaceId, scope, args.zone)
        : needsDefault
          ? await this.#channelDefault(workspaceId, channelId, account)
          : undefined;
    // A zone named: the URLs are its account's to serve; none named: any account's.
    const all = (await accounts.all(workspaceId, scope)).filter(
      (candidate) => !zone || candidate.accountId === zone.accountId,
    );
    const plan = planPurge(itemsIn(zone, args), all);
    if (!zone) {
      for (const group of plan.groups) {
        const key = zoneKey(group.zone.name);
        const holders = all.filter(
          (other) => other.status !== 'deleted' && zoneKey(other.name) === key,
        );
        if (holders.length > 1)
          throw new AppError({
            code: 'zone_ambiguous',
            zoneName: group.zone.name,
            accounts: holders.map((other) => other.accountName ?? DEFAULT_ACCOUNT),
          });
      }
    }
    return needsDefault ? { ...plan, fromDefault: true } : plan;
  }

  /**
   * Starts a purge for a caller who may purge from `channelId`, counted against their flood
   * limit. See #enqueue for what happens next, and for `key`.
   */
  async start(
    caller: Caller,
    channelId: string | undefined,
    groups: PurgeGroup[],
    replyTo: ReplyTo,
    options: { fromDefault?: boolean; key?: string; verify?: boolean; warm?: boolean } = {},
  ): Promise<{ jobId: string; created: boolean; kind: string }> {
    await this.mayPurgeZones(
      caller,
      channelId,
      groups.map((group) => group.zone),
    );
    for (const group of groups)
      await this.deps.freezes?.require({
        workspaceId: caller.workspaceId,
        actorId: caller.userId,
        action: 'purge',
        zone: group.zone,
      });
    await this.deps.flood.take(caller.workspaceId, caller.userId);
    return this.#enqueue(caller.workspaceId, groups, caller.userId, replyTo, options);
  }

  /**
   * A purge asked for over the HTTP API, stored once under `key`. No Slack person asks: the
   * token's scope was checked by ApiPurgeService, and the API has its own rate limit (no flood
   * limit, no operator or channel check).
   */
  async startForApi(
    workspaceId: string,
    group: PurgeGroup,
    input: {
      apiPurgeId: string;
      /** A few of its URLs (and `tag:` tags), for its message. */
      sample?: string[];
      actorId: string;
      replyTo: ReplyTo;
      key: string;
      /** The zone's account id, as the API's record stored it. */
      accountId?: string | null;
      warm?: boolean;
    },
  ): Promise<{ jobId: string; created: boolean; kind: string }> {
    return this.#enqueue(workspaceId, [group], input.actorId, input.replyTo, {
      key: input.key,
      ...(input.warm ? { warm: true } : {}),
      api: {
        purgeId: input.apiPurgeId,
        ...(input.sample ? { sample: input.sample } : {}),
        ...(input.accountId ? { accountId: input.accountId } : {}),
      },
    });
  }

  /**
   * A scheduled purge come due, stored once under `key`: ScheduledPurgeService checked the
   * requester (operator, purge channel, binding) and the change window as it ran, and counted it
   * against their change limit when it was asked.
   */
  async startScheduled(
    workspaceId: string,
    groups: PurgeGroup[],
    actorId: string,
    replyTo: ReplyTo,
    options: { key: string; verify?: boolean; fromDefault?: boolean },
  ): Promise<{ jobId: string; created: boolean; kind: string }> {
    return this.#enqueue(workspaceId, groups, actorId, replyTo, options);
  }

  /** Sends again what failed in an earlier purge of this workspace, as a new purge. */
  async retry(
    caller: Caller,
    channelId: string | undefined,
    jobId: string,
    replyTo: ReplyTo,
  ): Promise<{ jobId: string; created: boolean; kind: string }> {
    const group = await this.#retryGroup(
      caller.workspaceId,
      await this.recordFor(caller, channelId, jobId),
    );
    await this.deps.flood.take(caller.workspaceId, caller.userId);
    return this.#enqueue(caller.workspaceId, [group], caller.userId, replyTo, { retryOf: jobId });
  }

  /**
   * Stores the purge as a job (the plan and every batch, before anything is sent) and starts it.
   * From here on it survives a crash or a deploy: any replica finishes it, and its message always
   * reaches a final state, in `replyTo`. With a `key` already used, nothing new is started: the
   * job stored under it is returned, `created` false.
   */
  async #enqueue(
    workspaceId: string,
    groups: PurgeGroup[],
    actorId: string,
    replyTo: ReplyTo,
    options: {
      retryOf?: string;
      fromDefault?: boolean;
      key?: string;
      api?: PurgeJobPayload['api'];
      verify?: boolean;
      warm?: boolean;
    } = {},
  ): Promise<{ jobId: string; created: boolean; kind: string }> {
    // No key, or a base URL the bot won't call: said now, before anything is stored.
    const clients = await this.#clients(workspaceId, groups);
    const steps: PurgeStep[] = groups.flatMap((group, index) =>
      clientOf(clients, group.zone)
        .purgeBatches({ files: group.files, tags: group.tags })
        .map((batch) => ({ ...batch, group: index })),
    );
    const payload: PurgeJobPayload = {
      actorId,
      replyTo,
      ...(options.retryOf ? { retryOf: options.retryOf } : {}),
      ...(options.fromDefault ? { fromDefault: true } : {}),
      ...(options.verify ? { verify: true } : {}),
      ...(options.warm ? { warm: true } : {}),
      ...(options.api ? { api: options.api } : {}),
      groups: groups.map((g) => ({ zone: g.zone, files: g.files.length, tags: g.tags.length })),
    };
    const { job, created } = await this.deps.runner.enqueue({
      workspaceId,
      kind: PURGE_JOB,
      payload,
      steps,
      ...(options.key ? { key: options.key } : {}),
    });
    return { jobId: job.id, created, kind: job.kind };
  }

  /** The purge job: announce, send the batches not yet done, then record, audit and answer once. */
  readonly job: JobKind<PurgeJobPayload, PurgeCheckpoint> = {
    concurrency: 4,
    run: (context) => this.#run(context),
    // Failed again and again (the database, a bug): what was not sent is reported as failed, so
    // the message ends, and its Retry button can send it when things are well again.
    giveUp: async (context) => {
      const steps = await context.steps<PurgeStep, StepResult>();
      const view = this.#view(context);
      const runs = await this.#record(
        context.job,
        steps.map((step) => ({ input: step.input, result: step.result ?? NOT_SENT })),
      );
      await view.finished({
        runs,
        actorId: context.job.payload.actorId,
        ...defaultOf(context.job.payload),
      });
    },
  };

  /**
   * The job's message, its state saved in the job's checkpoint (each change awaits its save), with
   * `announced` once `announcing` says its opening was asked for.
   */
  #view(
    context: JobContext<PurgeJobPayload, PurgeCheckpoint>,
    announcing: () => boolean = () => false,
  ): PurgeProgressView {
    const { job } = context;
    return this.deps.views(
      job.workspaceId,
      job.payload.replyTo,
      job.checkpoint.message ?? {},
      (message) =>
        context.checkpoint({
          ...context.job.checkpoint,
          message,
          ...(announcing() ? { announced: true } : {}),
        }),
      job.payload,
    );
  }

  async #run(context: JobContext<PurgeJobPayload, PurgeCheckpoint>): Promise<JobOutcome> {
    const { job } = context;
    const { payload } = job;
    let announcing = false;
    const view = this.#view(context, () => announcing);
    const steps = await context.steps<PurgeStep, StepResult>();
    const total = steps.reduce((sum, step) => sum + step.input.items.length, 0);
    let done = steps.reduce((sum, s) => sum + (s.result ? s.input.items.length : 0), 0);
    const status = (): PurgeStatus => ({
      zoneNames: payload.groups.map((g) => g.zone.name),
      files: payload.groups.reduce((sum, g) => sum + g.files, 0),
      tags: payload.groups.reduce((sum, g) => sum + g.tags, 0),
      actorId: payload.actorId,
      done,
      total,
      ...defaultOf(payload),
    });
    // "Purging…" goes out beside the first batches, not before them: a Slack round trip is no
    // reason to hold the purge (progress edits wait for it, and so does the end). That it went
    // out is saved with the message's state (see PurgeCheckpoint): no write of its own.
    announcing = !job.checkpoint.announced;
    const announced = announcing ? view.started(status()) : Promise.resolve();
    announced.catch(() => undefined);

    let clients: Map<string | undefined, Client>;
    try {
      // Each zone's own account (absent in a stored payload: `default`).
      clients = await this.#clients(job.workspaceId, payload.groups);
    } catch (error) {
      // The key was removed (or the workspace uninstalled) since: nothing more is sent.
      await announced;
      return this.#finished(view, {
        runs: [],
        actorId: payload.actorId,
        error,
        ...defaultOf(payload),
      });
    }
    let reached = Math.floor((done * MILESTONES) / total);
    let updates: Promise<void> = announced.catch(this.deps.onViewError);
    // A purge whose batches all go out at once shows no progress: its result is one round trip
    // away. An update shows the status when it runs, not when its milestone was reached: one
    // still waiting shows the later milestones too, and one that would run once every batch is
    // done is left out (the result follows).
    const pending = steps.filter((step) => step.result === undefined);
    const concurrency = Math.min(...[...clients.values()].map((c) => c.purgeConcurrency));
    const showProgress = steps.length >= PROGRESS_MIN_REQUESTS && pending.length > concurrency;
    let updateWaiting = false;
    const progressed = async () => {
      updateWaiting = false;
      if (done < total) await view.progressed(status());
    };
    // Each batch's result is stored before its slot takes the next batch: a crash re-sends at
    // most the batches in flight (`purgeConcurrency`), never also answered ones not yet stored.
    // Writes ending together still go in one statement (StepWrites).
    const limit = pLimit(concurrency);
    await Promise.all(
      pending.map((step) =>
        limit(async () => {
          // Each batch in background work's turn (BACKGROUND_LOOP_PERCENT): Slack's acks first.
          await context.turn();
          // Stopping: the batches under way finish; no new one starts.
          if (context.stopping.aborted || context.lost.aborted) return;
          const zone = payload.groups[step.input.group]?.zone;
          if (!zone) throw new Error(`purge job ${job.id}: step ${step.idx} has no zone`);
          const client = clientOf(clients, zone);
          const result = await this.#send(client, zone, step.input, context.lost);
          await context.completeStep(step.idx, result);
          step.result = result;
          done += step.input.items.length;
          const milestone = Math.floor((done * MILESTONES) / total);
          if (!showProgress || milestone <= reached || milestone >= MILESTONES) return;
          reached = milestone;
          if (updateWaiting) return;
          updateWaiting = true;
          updates = updates.then(progressed).catch(this.deps.onViewError);
        }),
      ),
    );
    await announced;
    await updates;
    if (steps.some((step) => step.result === undefined)) {
      await view.paused(status()).catch(this.deps.onViewError);
      return 'paused';
    }
    const runs = await this.#record(job, steps);
    const said = await this.#finished(view, {
      runs,
      actorId: payload.actorId,
      ...defaultOf(payload),
    });
    if (said !== 'done') return said;
    if (payload.verify) {
      await verifyAfterPurge(this.deps.runner, job, steps, runs, {
        now: this.deps.clock?.now() ?? Date.now(),
        delayMs: this.deps.verifyDelayMs ?? DEFAULT_VERIFY_DELAY_MS,
      });
    }
    if (payload.warm) {
      await verifyAfterPurge(this.deps.runner, job, steps, runs, {
        now: this.deps.clock?.now() ?? Date.now(),
        delayMs: 0,
        warm: true,
      });
    }
    return 'done';
  }

  /**
   * Says the outcome. When Slack's rate limit lets it be said only later (ViewNotNow), the job is
   * deferred till then: its purge is done and recorded, the next attempt only says it (its steps
   * have their results, so nothing is sent to the CDN again), and it holds no job slot meanwhile.
   */
  async #finished(view: PurgeProgressView, outcome: PurgeOutcome): Promise<JobOutcome> {
    try {
      await view.finished(outcome);
      return 'done';
    } catch (error) {
      if (!(error instanceof ViewNotNow)) throw error;
      return { deferMs: error.afterMs, reason: 'its message waits for Slack’s rate limit' };
    }
  }

  /** A client per CDN account the groups' zones belong to (undefined: `default`). */
  async #clients(
    workspaceId: string,
    groups: ReadonlyArray<{ zone: Zone }>,
  ): Promise<Map<string | undefined, Client>> {
    const clients = new Map<string | undefined, Client>();
    for (const { zone } of groups) {
      if (!clients.has(zone.accountId))
        clients.set(
          zone.accountId,
          await this.deps.cdn.clientFor(workspaceId, zone.accountId, 'purge'),
        );
    }
    if (clients.size === 0)
      clients.set(undefined, await this.deps.cdn.clientFor(workspaceId, undefined, 'purge'));
    return clients;
  }

  /**
   * One batch; a CDN refusal is its result, anything else (an abort) ends the attempt. One the CDN
   * did not answer (outcomeUnknown) is logged: nothing else would say that it timed out.
   */
  async #send(
    client: Awaited<ReturnType<CdnAccess['clientFor']>>,
    zone: Zone,
    batch: PurgeBatch,
    signal: AbortSignal,
  ): Promise<StepResult> {
    try {
      const { purgeId } = await client.sendPurgeBatch(zone.id, batch, { signal });
      return purgeId === undefined ? { ok: true } : { ok: true, purgeId };
    } catch (error) {
      if (!isCdnError(error)) throw error;
      if (outcomeUnknown(error))
        this.deps.logger.warn(
          {
            zoneId: zone.id,
            kind: batch.kind,
            batchSize: batch.items.length,
            code: error.code,
            ...(error.status === undefined ? {} : { status: error.status }),
            ...(error.requestId ? { requestId: error.requestId } : {}),
          },
          'purge batch outcome unknown: the CDN did not answer, it may have been purged',
        );
      return { ok: false, error: storedError(error) };
    }
  }

  /** Each zone's purge record and audit entry, written once however often this runs. */
  async #record(
    job: JobContext<PurgeJobPayload, PurgeCheckpoint>['job'],
    steps: Array<{ input: PurgeStep; result: StepResult | undefined }>,
  ): Promise<PurgeRun[]> {
    const { store } = this.deps;
    const { payload } = job;
    const runs: PurgeRun[] = [];
    // Each zone's account, recorded on its purge and audit entry: `default`'s id for `default`
    // (an API purge's one zone: the id its record stored, not read again).
    const defaultId = payload.groups.some((g) => !g.zone.accountId)
      ? (payload.api?.accountId ?? (await store.accounts.defaultId(job.workspaceId)))
      : undefined;
    for (const [index, group] of payload.groups.entries()) {
      const accountId = group.zone.accountId ?? defaultId;
      const account = accountId ? { accountId } : {};
      const results: PurgeBatchResult[] = steps
        .filter((step) => step.input.group === index)
        .map(({ input, result }) => {
          const batch: PurgeBatch = { kind: input.kind, items: input.items };
          if (result?.ok)
            return { ...batch, ok: true, ...(result.purgeId ? { purgeId: result.purgeId } : {}) };
          const error = result?.error ?? { code: 'unexpected_response', message: 'no result' };
          return { ...batch, ok: false, error: restoredError(error) };
        });
      const report = reportOf(results);
      // Not purged: failed, or not confirmed (the CDN did not answer; they may have been).
      const unconfirmed = report.unknown.files.length + report.unknown.tags.length;
      const record = await store.purges.record({
        id: `${job.id}-${index}`,
        workspaceId: job.workspaceId,
        zoneId: group.zone.id,
        zoneName: group.zone.name,
        actorId: payload.actorId,
        fileCount: group.files,
        tagCount: group.tags,
        failed: report.failed,
        unconfirmed,
        purgeIds: report.purgeIds,
        ...(payload.retryOf ? { retryOf: payload.retryOf } : {}),
        ...account,
      });
      const failedCount = report.failed.files.length + report.failed.tags.length - unconfirmed;
      const errors = [...new Set(results.flatMap((r) => (r.ok ? [] : [r.error.code])))];
      await store.audit.record({
        key: `purge:${record.id}`,
        workspaceId: job.workspaceId,
        actorId: payload.actorId,
        action:
          group.tags === 0 ? 'purge.urls' : group.files === 0 ? 'purge.tags' : 'purge.urls_tags',
        zoneId: group.zone.id,
        zoneName: group.zone.name,
        ...account,
        outcome: record.status === 'succeeded' ? 'ok' : record.status,
        detail: {
          files: group.files,
          tags: group.tags,
          failed: failedCount,
          ...(unconfirmed > 0 ? { unconfirmed } : {}),
          requests: results.length,
          purgeIds: report.purgeIds.slice(0, 20),
          job: record.id,
          ...(errors.length > 0 ? { errors } : {}),
          ...(payload.retryOf ? { retryOf: payload.retryOf } : {}),
        },
      });
      runs.push({ job: record, report });
    }
    return runs;
  }

  /**
   * The zone `zoneId` of the account `accountId` (absent, or `default`'s id: `default`), carrying
   * its account; AppError zone_not_found when it has none of that id.
   */
  async zoneById(workspaceId: string, zoneId: string, accountId?: string): Promise<Zone> {
    const account = accountId
      ? await this.deps.store.accounts.get(workspaceId, accountId)
      : undefined;
    if (accountId && !account)
      throw new AppError({ code: 'zone_not_found', query: zoneId, suggestions: [] });
    return account && indexOf(account) !== undefined
      ? named(await this.deps.zones.resolve(workspaceId, zoneId, indexOf(account)), account)
      : this.deps.zones.resolve(workspaceId, zoneId);
  }

  /** What failed in an earlier purge of this workspace, as a group to send again. */
  async #retryGroup(workspaceId: string, job: PurgeJob): Promise<PurgeGroup> {
    if (job.failed.files.length + job.failed.tags.length === 0)
      throw new AppError({ code: 'nothing_to_retry' });
    // The zone in the purge's own account (none recorded: `default`).
    const zone = await this.zoneById(workspaceId, job.zoneId, job.accountId);
    return { zone, files: job.failed.files, tags: job.failed.tags };
  }
}

type Client = Awaited<ReturnType<CdnAccess['clientFor']>>;

function clientOf(clients: Map<string | undefined, Client>, zone: Zone): Client {
  const client = clients.get(zone.accountId) ?? clients.get(undefined);
  if (!client) throw new Error(`no CDN client for the account of zone ${zone.id}`);
  return client;
}

/** Whether a purge's zone was the channel's default, for its messages. */
function defaultOf(payload: PurgeJobPayload): { fromDefault?: boolean } {
  return payload.fromDefault ? { fromDefault: true } : {};
}

/** What planPurge reads: the items asked for, in `zone` when one was named or is the channel's default. */
function itemsIn(
  zone: Parameters<typeof planPurge>[0]['zone'],
  args: Extract<PurgeArgs, { kind: 'items' }>,
): Parameters<typeof planPurge>[0] {
  return {
    ...(zone ? { zone } : {}),
    urls: args.urls,
    tags: args.tags,
    unknown: args.unknown,
    ...(args.paths ? { paths: args.paths } : {}),
  };
}
