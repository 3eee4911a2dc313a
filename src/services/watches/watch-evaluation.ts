// Watched zones evaluated once per interval, however many replicas run: a tick turns each zone's
// due interval into a job keyed by zone and interval (as daily reports are keyed by occurrence),
// stored in the transaction that moves the zone on.
import { createHash } from 'node:crypto';
import type { CdnClient } from '../../cdn/client.js';
import { CdnError, isCdnError, isTransientCdnError } from '../../cdn/errors.js';
import type { WatchSettings } from '../../config.js';
import { AppError, isStorageUnavailable } from '../../errors.js';
import {
  type JobContext,
  type JobKind,
  type JobOutcome,
  type JobRunner,
  retryDelay,
} from '../../jobs/runner.js';
import type { Watch, WatchedZone } from '../../store/watches.js';
import { takeRateLimit } from '../../throttles/per-key-rate-limit.js';
import {
  type PostPayload,
  WATCH_POST_JOB,
  WatchPosting,
  type WatchPostingOptions,
} from './watch-posting.js';
import { thresholdsOf, WatchRuleStates } from './watch-rule-states.js';
import {
  type Baseline,
  baselineRange,
  baselineStale,
  type Sample,
  windowFor,
} from './watch-rules.js';

export const WATCH_EVAL_JOB = 'watch_eval';

interface EvalPayload {
  zoneId: string;
  /** The zone's CDN account. */
  accountId: string;
  dueAt: number;
}

interface EvalCheckpoint {
  /** The interval's analytics, kept so that a resumed job judges the same numbers. */
  sample?: Sample;
}

export interface WatchEvaluationOptions extends WatchPostingOptions {
  runner: JobRunner;
  /** Zones read per tick. Default 500. */
  batch?: number;
  /** Evaluations at once in this process. Default 8. */
  concurrency?: number;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** The key of a workspace's budget among the store's rate slots. */
const budgetKey = (workspaceId: string) => `watch-cdn:${workspaceId}`;
/**
 * Finished evaluations (one a zone an interval) leave the job table this long after they ran, by
 * the retention sweep; posts stay as long as other jobs: their keys hold off a second post.
 */
export const KEEP_FINISHED_EVALS_MS = HOUR;

/** One zone's interval: `watch:<workspace>:<account>:<zone>:<dueAt>`, one job however often taken. */
export const watchJobKey = (
  workspaceId: string,
  zoneId: string,
  dueAt: number,
  accountId: string,
) => `watch:${workspaceId}:${accountId}:${zoneId}:${dueAt}`;

/** Where in the interval a zone is evaluated: its own phase, so polling is spread over it. */
export function phaseOf(workspaceId: string, zoneId: string, intervalMs: number): number {
  const hash = createHash('sha256').update(`${workspaceId}:${zoneId}`).digest();
  return hash.readUInt32BE(0) % intervalMs;
}

/** The first evaluation of a zone watched from `now`: the next instant of its phase. */
export function firstRunAt(workspaceId: string, zoneId: string, intervalMs: number, now: number) {
  const at = Math.floor(now / intervalMs) * intervalMs + phaseOf(workspaceId, zoneId, intervalMs);
  return at > now ? at : at + intervalMs;
}

/** The CDN's budget for a workspace's watches was spent this minute: try at the next one. */
class BudgetSpentError extends Error {
  override readonly name = 'BudgetSpentError';
  constructor(readonly retryInMs: number) {
    super('watch CDN request budget spent');
  }
}

/**
 * A zone's job makes one analytics request for every channel watching the zone (the baseline is
 * read once a day), applies each rule's hold/clear step once per interval (a conditional write),
 * and leaves each alert, resolution and 'now live' notice to a post job keyed by what it posts.
 * Polling is spread over the interval (each zone has its own phase) and kept within a per-key
 * budget; a 429 delays the evaluation instead of dropping it. Each rule's step lives in
 * watch-rule-states.ts, the posts in watch-posting.ts, the rules themselves (pure) in
 * watch-rules.ts.
 */
export class WatchEvaluation {
  readonly #o: WatchEvaluationOptions;
  readonly #rules: WatchRuleStates;
  readonly posting: WatchPosting;
  readonly evalJob: JobKind<EvalPayload, EvalCheckpoint>;
  readonly postJob: WatchPosting['postJob'];

  constructor(options: WatchEvaluationOptions) {
    this.#o = options;
    this.#rules = new WatchRuleStates(options);
    this.posting = new WatchPosting(options);
    this.postJob = this.posting.postJob;
    this.evalJob = {
      concurrency: options.concurrency ?? 8,
      // A zone's interval is late, never lost: it is tried until its next one has run.
      maxAttempts: 20,
      run: (context) => this.#evaluate(context),
    };
  }

  get settings(): WatchSettings {
    return this.#o.settings;
  }

  /**
   * Turns every zone interval due now into a job keyed by zone and interval, stored in the
   * transaction that moves the zone on (WatchRepository.takeDue); returns how many.
   */
  async tick(): Promise<number> {
    const { store, clock, runner, settings } = this.#o;
    const batch = this.#o.batch ?? 500;
    let queued = 0;
    for (;;) {
      const now = clock.now();
      const taken = await store.watches.takeDue(batch, (zone) => {
        // Long down: only the latest interval is evaluated (older data would only say "was").
        const behind = Math.floor((now - zone.nextRunAt) / settings.intervalMs);
        const dueAt = zone.nextRunAt + Math.max(0, behind) * settings.intervalMs;
        return {
          nextRunAt: dueAt + settings.intervalMs,
          job: {
            workspaceId: zone.workspaceId,
            kind: WATCH_EVAL_JOB,
            key: watchJobKey(zone.workspaceId, zone.zoneId, dueAt, zone.accountId),
            payload: {
              zoneId: zone.zoneId,
              accountId: zone.accountId,
              dueAt,
            } satisfies EvalPayload,
            runAt: dueAt,
          },
        };
      });
      queued += taken.length;
      if (taken.length > 0) runner.lookNow();
      if (taken.length < batch) break;
    }
    return queued;
  }

  async #evaluate(context: JobContext<EvalPayload, EvalCheckpoint>): Promise<JobOutcome> {
    const { store, logger } = this.#o;
    const { job } = context;
    const { zoneId, dueAt, accountId } = job.payload;
    const zone = await store.watches.zone(job.workspaceId, zoneId, accountId);
    if (!zone) return 'done';
    const all = await store.watches.listForZone(job.workspaceId, zoneId, accountId);
    if (all.length === 0) {
      // Left scheduled by an unwatch that raced an edit of the last watch: no more evaluations.
      await store.watches.dropZoneIfUnwatched(job.workspaceId, zoneId, accountId);
      return 'done';
    }
    // A paused watch (its channel refused the bot) is not evaluated until it is watched again.
    const watches = all.filter((watch) => !watch.pausedReason);
    if (zone.status === 'deleted' || watches.length === 0) return 'done';
    try {
      // The zone's own account: its key, its base URL.
      const client = await this.#o.cdn.clientFor(job.workspaceId, accountId, 'watches');
      if (zone.status === 'pending' || zone.status === 'unknown') {
        const status = await this.#statusOf(client, zone);
        if (status === 'pending') return 'done';
        await this.#moved(zone, watches, status);
        if (status === 'deleted') return 'done';
      }
      const sample = job.checkpoint.sample ?? (await this.#sample(context, client, zone, watches));
      if (!sample) return 'done';
      const baseline = await this.#baseline(client, zone);
      await this.#rules.apply(zone, watches, sample, baseline, dueAt);
      return 'done';
    } catch (error) {
      if (context.lost.aborted) throw error;
      if (error instanceof AppError && error.code === 'no_api_key') return 'done';
      if (error instanceof BudgetSpentError)
        return { retryInMs: error.retryInMs, error: 'request budget spent' };
      if (isTransientCdnError(error) || isStorageUnavailable(error)) {
        const retryInMs = retryDelay(job.attempts, {
          baseMs: 5_000,
          maxMs: this.#o.settings.intervalMs,
          askedMs: error instanceof CdnError ? error.retryAfterMs : undefined,
        });
        // The CDN asked to wait: this interval waits, and the zone's next ones after it.
        if (isCdnError(error, 'rate_limited'))
          await store.watches.delayZone(
            job.workspaceId,
            zoneId,
            this.#o.clock.now() + retryInMs,
            accountId,
          );
        logger.info({ job: job.id, zone: zoneId, retryInMs }, 'watch evaluation delayed');
        return { retryInMs, error: (error as { code?: string }).code ?? 'transient' };
      }
      logger.warn({ err: error, zone: zoneId }, 'watch evaluation failed');
      return 'done';
    }
  }

  /**
   * Takes one CDN request from the workspace's budget (a per-key rate limit), or says when to come
   * back: at the next minute, with the workspace's jitter, not as each slot frees, so that the
   * evaluations it refused wake once a minute rather than racing for every slot.
   */
  async #spend(workspaceId: string): Promise<void> {
    const { store, clock, settings } = this.#o;
    const waitMs = await takeRateLimit(
      store.rateSlots,
      budgetKey(workspaceId),
      settings.cdnRequestsPerMinute,
      MINUTE,
    );
    if (waitMs === 0) return;
    const now = clock.now();
    const nextMinute = Math.floor(now / MINUTE) * MINUTE + MINUTE - now;
    throw new BudgetSpentError(Math.max(waitMs, nextMinute) + phaseOf(workspaceId, '', 5_000));
  }

  /** A pending zone's status now: still in the pending list, else found by id. */
  async #statusOf(client: CdnClient, zone: WatchedZone): Promise<'pending' | 'active' | 'deleted'> {
    await this.#spend(zone.workspaceId);
    if (zone.status === 'pending') {
      const page = await client.listZones({ status: 'pending', page: 1, perPage: 100 });
      if (page.zones.some((z) => z.id === zone.zoneId)) return 'pending';
    }
    const found = await client.findZone(zone.zoneId);
    if (!found || found.status === 'deleted') return 'deleted';
    return found.status === 'pending' ? 'pending' : 'active';
  }

  /** The zone moved: each watching channel is told once (a job keyed by watch and status). */
  async #moved(zone: WatchedZone, watches: Watch[], status: 'active' | 'deleted'): Promise<void> {
    const { store, runner } = this.#o;
    // A zone first seen already active (watched before we knew) is no news.
    if (zone.status === 'pending') {
      for (const watch of watches) {
        await runner.enqueue({
          workspaceId: zone.workspaceId,
          kind: WATCH_POST_JOB,
          key: `watch-notice:${watch.id}:${status}`,
          payload: { kind: 'notice', watchId: watch.id, status } satisfies PostPayload,
        });
      }
    }
    await store.watches.moveStatus(
      zone.workspaceId,
      zone.zoneId,
      zone.status,
      status,
      zone.accountId,
    );
    zone.status = status;
  }

  /** This interval's analytics (one request for every watch of the zone), checkpointed. */
  async #sample(
    context: JobContext<EvalPayload, EvalCheckpoint>,
    client: CdnClient,
    zone: WatchedZone,
    watches: Watch[],
  ): Promise<Sample | undefined> {
    const { dueAt } = context.job.payload;
    const until = Math.floor(dueAt / MINUTE) * MINUTE;
    const span = windowFor(
      Math.max(MINUTE, this.#o.settings.intervalMs),
      watches.flatMap(thresholdsOf),
    );
    await this.#spend(zone.workspaceId);
    let traffic: Awaited<ReturnType<CdnClient['trafficAnalytics']>>;
    try {
      traffic = await client.trafficAnalytics(zone.zoneId, {
        since: new Date(until - Math.ceil(span / MINUTE) * MINUTE),
        until: new Date(until),
        granularity: 'minute',
      });
    } catch (error) {
      if (isCdnError(error, 'not_found')) {
        await this.#moved({ ...zone, status: 'active' }, watches, 'deleted');
        return undefined;
      }
      throw error;
    }
    const sample: Sample = {
      until,
      series: traffic.series.map((p) => ({
        time: p.time,
        requests: p.requests,
        bandwidth: p.bandwidth,
      })),
      hitRate: traffic.totals.cacheHitRate,
    };
    await context.checkpoint({ sample });
    return sample;
  }

  /** The zone's baseline, read again once a day (hourly, the past eight days). */
  async #baseline(client: CdnClient, zone: WatchedZone): Promise<Baseline | undefined> {
    const { clock, store, logger } = this.#o;
    const now = clock.now();
    if (!baselineStale(zone.baselineAt, now)) return zone.baseline as Baseline | undefined;
    const range = baselineRange(now);
    try {
      await this.#spend(zone.workspaceId);
      const traffic = await client.trafficAnalytics(zone.zoneId, {
        since: new Date(range.since),
        until: new Date(range.until),
        granularity: 'hour',
      });
      const hours = new Array<number>((range.until - range.since) / HOUR).fill(0);
      for (const point of traffic.series) {
        const index = Math.floor((point.time - range.since) / HOUR);
        if (index >= 0 && index < hours.length) hours[index] = point.requests;
      }
      const baseline: Baseline = {
        start: range.since,
        hours,
        hitRate: traffic.totals.cacheHitRate,
      };
      await store.watches.setBaseline(zone.workspaceId, zone.zoneId, baseline, zone.accountId);
      return baseline;
    } catch (error) {
      if (error instanceof BudgetSpentError) throw error;
      // The last one still serves; the thresholds need none.
      logger.info({ err: error, zone: zone.zoneId }, 'watch baseline not refreshed');
      return zone.baseline as Baseline | undefined;
    }
  }
}
