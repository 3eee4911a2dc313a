// Did the purge work? Asks the CDN's edge for each purged URL and says which came back fresh,
// which still cached, and which could not be told or checked. A durable job: one step per URL,
// closed with its result, so a restarted or other replica checks only what is left; the summary
// and its thread of details are said once (checkpoints around each). "Purge again" sends the URLs
// still cached through the purge service, with every check a purge has.
import pLimit from 'p-limit';
import type { ProbeResult } from '../../cdn/edge-probe.js';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { JobContext, JobKind, JobOutcome, JobRunner } from '../../jobs/runner.js';
import type { Store } from '../../store/index.js';
import { PerPersonRateLimit, type PersonLimits } from '../../throttles/per-person-rate-limit.js';
import type { Caller } from '../access/access.js';

import type { PurgeService } from '../purge/purge-plan.js';
import type { ReplyTo } from '../reply.js';
import type { ZoneService } from '../zones/zones.js';
import { enqueueVerify, type VerifyJobPayload } from './verify-job.js';

export { VERIFY_JOB } from './verify-job.js';

/** The prober's port: one URL, asked of the edge (src/cdn/edge-probe.ts). */
export interface EdgeProbe {
  probe(
    url: string,
    request: {
      onZone: (hostname: string) => boolean;
      sincePurgeMs: () => number;
      signal?: AbortSignal;
    },
  ): Promise<ProbeResult>;
  /** Asks for the URL in full (refilling the edge's cache), then whether it is now cached. */
  warm(
    url: string,
    request: { onZone: (hostname: string) => boolean; signal?: AbortSignal },
  ): Promise<ProbeResult>;
}

export type VerifyVerdict = 'fresh' | 'cached' | 'unknown' | 'unchecked';

export interface VerifySummary {
  jobId: string;
  actorId: string;
  zoneName: string;
  auto: boolean;
  /** A warming (--warm): `cached` is what the edge now holds, the good outcome. */
  warm?: boolean;
  results: ProbeResult[];
  counts: Record<VerifyVerdict, number>;
  /** URLs purged beyond those checked (MAX_VERIFIED_URLS). */
  skipped: number;
}

/** How a verification is shown: "Checking…", then the summary and its details (src/slack). */
export interface VerifyView {
  started(status: {
    zoneName: string;
    urls: number;
    actorId: string;
    warm?: boolean;
  }): Promise<void>;
  finished(summary: VerifySummary): Promise<void>;
}

export type VerifyViews = (
  workspaceId: string,
  replyTo: ReplyTo,
  state: Record<string, unknown>,
  save: (state: Record<string, unknown>) => Promise<void>,
) => VerifyView;

export interface VerifyLimits {
  /** URLs asked at once. Default 8. */
  concurrency: number;
  /** One attempt at the whole verification; what is left then is "not checked". Default 60 s. */
  totalMs: number;
  /** How often one purge may be verified by clicks (one per window). Default 30 s. */
  clickWindowMs: number;
}

const DEFAULT_LIMITS: VerifyLimits = { concurrency: 8, totalMs: 60_000, clickWindowMs: 30_000 };

interface VerifyCheckpoint {
  /** The view's state: its messages (see src/slack/verify-messages.ts). */
  view?: Record<string, unknown>;
}

export class VerifyService {
  readonly #limits: VerifyLimits;
  readonly #bounds: PerPersonRateLimit;

  constructor(
    private readonly deps: {
      store: Store;
      runner: JobRunner;
      purges: PurgeService;
      zones: ZoneService;
      prober: EdgeProbe;
      clock: Clock;
      views: VerifyViews;
      limits?: Partial<VerifyLimits>;
      /**
       * Verifications a person, and a whole workspace, may ask for per minute (VERIFY_RATE_LIMIT,
       * VERIFY_RATE_LIMIT_WORKSPACE); absent or 0: no bound.
       */
      perMinute?: PersonLimits;
    },
  ) {
    this.#limits = { ...DEFAULT_LIMITS, ...deps.limits };
    this.#bounds = new PerPersonRateLimit(
      deps.store.rateSlots,
      'verify',
      deps.perMinute ?? { person: 0, workspace: 0 },
      60_000,
      (scope, limit, retryInSeconds) =>
        new AppError({ code: 'too_many_verifications', scope, limit, retryInSeconds }),
    );
  }

  /**
   * The Verify button of a purge's result: checks that purge's URLs at the edge, for a caller
   * who may purge its zone from `channelId`. A second click within the window gets the same job
   * back; a new check is counted against the person's and the workspace's bounds before it is
   * stored (AppError `too_many_verifications` past either: the edge is not asked).
   */
  async verify(
    caller: Caller,
    channelId: string | undefined,
    purgeRecordId: string,
    replyTo: ReplyTo,
  ): Promise<{ jobId: string; created: boolean }> {
    // In the purge's own CDN account, never from a channel
    // bound to another one.
    const record = await this.deps.purges.recordFor(caller, channelId, purgeRecordId);
    const urls = await this.#purgedUrls(purgeRecordId, record.failed.files);
    if (urls.length === 0) throw new AppError({ code: 'nothing_to_verify' });
    const window = Math.floor(this.deps.clock.now() / this.#limits.clickWindowMs);
    const key = `verify:${purgeRecordId}:${window}`;
    const asked = await this.deps.store.jobs.byKey(key);
    if (asked) return { jobId: asked.id, created: false };
    await this.#bounds.take(caller.workspaceId, caller.userId);
    return enqueueVerify(
      this.deps.runner,
      caller.workspaceId,
      {
        actorId: caller.userId,
        replyTo,
        zone: { id: record.zoneId, name: record.zoneName },
        purgeRecordId,
        purgedAt: record.finishedAt ?? record.createdAt,
      },
      urls,
      { key },
    );
  }

  /** "Purge again": the URLs a verification found still cached, as a new purge (all its checks). */
  async purgeAgain(
    caller: Caller,
    channelId: string | undefined,
    verifyJobId: string,
    replyTo: ReplyTo,
  ): Promise<{ jobId: string; created: boolean }> {
    const job = await this.deps.store.jobs.get(verifyJobId);
    if (!job || job.workspaceId !== caller.workspaceId || job.kind !== 'verify')
      throw new AppError({ code: 'nothing_to_repurge' });
    const payload = job.payload as VerifyJobPayload;
    // In the purge's own CDN account, never from a channel bound to another one.
    const record = await this.deps.purges.recordFor(caller, channelId, payload.purgeRecordId);
    const steps = await this.deps.store.jobs.steps<{ url: string }, ProbeResult>(job.id);
    const cached = steps.flatMap((s) => (s.result?.verdict === 'cached' ? [s.input.url] : []));
    if (cached.length === 0) throw new AppError({ code: 'nothing_to_repurge' });
    return this.deps.purges.again(record, payload.zone.id, cached, replyTo);
  }

  /** A purge record's URLs that went through, from its job's steps (kept JOBS_RETENTION_DAYS). */
  async #purgedUrls(purgeRecordId: string, failed: string[]): Promise<string[]> {
    const cut = purgeRecordId.lastIndexOf('-');
    const jobId = purgeRecordId.slice(0, cut);
    const group = Number(purgeRecordId.slice(cut + 1));
    if (cut < 0 || !Number.isInteger(group)) throw new AppError({ code: 'purge_unknown' });
    const steps = await this.deps.store.jobs.steps<
      { kind: string; items: string[]; group: number },
      unknown
    >(jobId);
    if (steps.length === 0) throw new AppError({ code: 'purge_unknown' });
    const notPurged = new Set(failed);
    return steps.flatMap((step) =>
      step.input.group === group && step.input.kind === 'files'
        ? step.input.items.filter((url) => !notPurged.has(url))
        : [],
    );
  }

  readonly job: JobKind<VerifyJobPayload, VerifyCheckpoint> = {
    concurrency: 2,
    run: (context) => this.#run(context),
    // Failed again and again: what was not checked says so, and the summary is still given.
    giveUp: async (context) => {
      await this.#finish(context, 'the check stopped after repeated failures');
    },
  };

  #view(context: JobContext<VerifyJobPayload, VerifyCheckpoint>): VerifyView {
    const { job } = context;
    return this.deps.views(
      job.workspaceId,
      job.payload.replyTo,
      job.checkpoint.view ?? {},
      (view) => context.checkpoint({ ...context.job.checkpoint, view }),
    );
  }

  async #run(context: JobContext<VerifyJobPayload, VerifyCheckpoint>): Promise<JobOutcome> {
    const { job } = context;
    const { payload } = job;
    const { clock, prober } = this.deps;
    const steps = await context.steps<{ url: string }, ProbeResult>();
    const view = this.#view(context);
    await view.started({
      zoneName: payload.zone.name,
      urls: steps.length,
      actorId: payload.actorId,
      ...(payload.warm ? { warm: true } : {}),
    });
    const zone = payload.zone.name.toLowerCase();
    const onZone = (host: string) => {
      const name = host.toLowerCase().replace(/\.$/, '');
      return name === zone || name.endsWith(`.${zone}`);
    };
    // The whole attempt's deadline; each request has its own, shorter one (the prober's). A timer
    // of its own, held here: AbortSignal.any holds AbortSignal.timeout weakly, and a collected
    // timeout signal never fires.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.#limits.totalMs);
    const onLost = () => deadline.abort();
    context.lost.addEventListener('abort', onLost, { once: true });
    const limit = pLimit(this.#limits.concurrency);
    await Promise.all(
      steps
        .filter((step) => step.result === undefined)
        .map((step) =>
          limit(async () => {
            if (context.stopping.aborted || context.lost.aborted) return;
            const result = payload.warm
              ? await prober.warm(step.input.url, { onZone, signal: deadline.signal })
              : await prober.probe(step.input.url, {
                  onZone,
                  sincePurgeMs: () => clock.now() - payload.purgedAt,
                  signal: deadline.signal,
                });
            await context.completeStep(step.idx, result);
            step.result = result;
          }),
        ),
    ).finally(() => {
      clearTimeout(timer);
      context.lost.removeEventListener('abort', onLost);
    });
    if (context.lost.aborted) return 'paused';
    if (steps.some((step) => step.result === undefined)) return 'paused';
    await this.#finish(context);
    return 'done';
  }

  /** The summary and its details, once: each URL without a result is "not checked", for `why`. */
  async #finish(
    context: JobContext<VerifyJobPayload, VerifyCheckpoint>,
    why = 'not checked',
  ): Promise<void> {
    const { job } = context;
    const steps = await context.steps<{ url: string }, ProbeResult>();
    const results = steps.map(
      (step): ProbeResult =>
        step.result ?? { url: step.input.url, verdict: 'unchecked', reason: why },
    );
    const counts: Record<VerifyVerdict, number> = { fresh: 0, cached: 0, unknown: 0, unchecked: 0 };
    for (const result of results) counts[result.verdict] += 1;
    await this.#view(context).finished({
      jobId: job.id,
      actorId: job.payload.actorId,
      zoneName: job.payload.zone.name,
      auto: job.payload.auto === true,
      ...(job.payload.warm ? { warm: true } : {}),
      results,
      counts,
      skipped: job.payload.skipped,
    });
  }
}
