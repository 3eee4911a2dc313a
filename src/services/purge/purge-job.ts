// The purge job: stored with every batch before anything is sent, then run batch by batch (each
// checkpointed as it ends, so a restarted or other replica resumes at the first unfinished one),
// its progress shown, recorded and audited once, its outcome said once; given up, what was not
// sent is reported as failed (its Retry button sends it again).
import pLimit from 'p-limit';
import { isCdnError } from '../../cdn/errors.js';
import { outcomeUnknown, storedError } from '../../cdn/outcome.js';
import type { PurgeBatch } from '../../cdn/purge.js';
import type { JobContext, JobKind, JobOutcome, JobRunner } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/index.js';
import type { CdnAccess } from '../accounts/cdn-access.js';
import type { ReplyTo } from '../reply.js';
import { DEFAULT_VERIFY_DELAY_MS, verifyAfterPurge } from '../verify/verify-job.js';
import { ViewNotNow } from '../view-not-now.js';
import type { Zone } from '../zones/zones.js';
import { NOT_SENT, type PurgeStep, recordPurge, type StepResult } from './purge-record.js';
import type {
  ApiPurgeOrigin,
  PurgeOutcome,
  PurgeProgressView,
  PurgeStatus,
  PurgeViews,
} from './purge-status.js';
import type { PurgeGroup } from './purge-targets.js';

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
  api?: ApiPurgeOrigin;
}

/** How a purge is stored: see PurgeJobPayload; `key` stores it once. */
export interface PurgeJobOptions {
  retryOf?: string;
  fromDefault?: boolean;
  key?: string;
  api?: ApiPurgeOrigin;
  verify?: boolean;
  warm?: boolean;
}

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

export class PurgeJobs {
  constructor(
    private readonly deps: {
      cdn: CdnAccess;
      store: Store;
      runner: JobRunner;
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
   * Stores the purge as a job (the plan and every batch, before anything is sent) and starts it.
   * From here on it survives a crash or a deploy: any replica finishes it, and its message always
   * reaches a final state, in `replyTo`. With a `key` already used, nothing new is started: the
   * job stored under it is returned, `created` false. Whoever calls this checked the purge first.
   */
  async enqueue(
    workspaceId: string,
    groups: PurgeGroup[],
    actorId: string,
    replyTo: ReplyTo,
    options: PurgeJobOptions = {},
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
      const runs = await recordPurge(
        this.deps.store,
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

    let clients: Map<string, Client>;
    try {
      // Each zone's own account.
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
    const runs = await recordPurge(this.deps.store, job, steps);
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

  /** A client per CDN account the groups' zones belong to. */
  async #clients(
    workspaceId: string,
    groups: ReadonlyArray<{ zone: Zone }>,
  ): Promise<Map<string, Client>> {
    const clients = new Map<string, Client>();
    for (const { zone } of groups) {
      if (!clients.has(zone.accountId))
        clients.set(
          zone.accountId,
          await this.deps.cdn.clientFor(workspaceId, zone.accountId, 'purge'),
        );
    }
    return clients;
  }

  /**
   * One batch; a CDN refusal is its result, anything else (an abort) ends the attempt. One the CDN
   * did not answer (outcomeUnknown) is logged: nothing else would say that it timed out.
   */
  async #send(
    client: Client,
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
}

type Client = Awaited<ReturnType<CdnAccess['clientFor']>>;

function clientOf(clients: Map<string, Client>, zone: Zone): Client {
  const client = clients.get(zone.accountId);
  if (!client) throw new Error(`no CDN client for the account of zone ${zone.id}`);
  return client;
}

/** Whether a purge's zone was the channel's default, for its messages. */
function defaultOf(payload: PurgeJobPayload): { fromDefault?: boolean } {
  return payload.fromDefault ? { fromDefault: true } : {};
}
