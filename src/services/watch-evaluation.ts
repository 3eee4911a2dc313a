// Watched zones evaluated once per interval, however many replicas run: a tick turns each zone's
// due interval into a job keyed by zone and interval (as daily reports are keyed by occurrence),
// then moves the zone on. The job makes one analytics request for every channel watching the zone
// (the baseline is read once a day), applies each rule's hold/clear step once per interval (a
// conditional write), and leaves each alert, resolution and 'now live' notice to a post job keyed
// by what it posts. Polling is spread over the interval (each zone has its own phase) and kept
// within a per-key budget; a 429 delays the evaluation instead of dropping it.
// Too long for one idea (evaluation, alert posting with chart delivery, pausing): issue 27 splits
// it; the post jobs are the first part to move out.
import { createHash } from 'node:crypto';
import type { CdnClient } from '../cdn/client.js';
import { CdnError, isCdnError, isTransientCdnError } from '../cdn/errors.js';
import type { AlertChartInput } from '../charts/alert-chart.js';
import type { ChartRenderer } from '../charts/traffic-chart.js';
import { type Clock, repeat } from '../clock.js';
import type { WatchSettings } from '../config.js';
import { AppError, isStorageUnavailable, logLevelOf } from '../errors.js';
import {
  type JobContext,
  type JobKind,
  type JobOutcome,
  type JobRunner,
  retryDelay,
} from '../jobs/runner.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import type { RuleState, Watch, WatchAlert, WatchedZone } from '../store/watches.js';
import type { CdnAccess } from './cdn-access.js';
import { alertChart, CHART_SPAN_MS, readAlertTraffic } from './watch-chart.js';
import {
  type Baseline,
  baselineRange,
  baselineStale,
  evaluate,
  parseThreshold,
  type Sample,
  step,
  type ThresholdRule,
  type Verdict,
  windowFor,
} from './watch-rules.js';

export const WATCH_EVAL_JOB = 'watch_eval';
export const WATCH_POST_JOB = 'watch_post';

/** Where alerts and notices go; src/slack implements it over the Web API. */
export interface WatchPoster {
  /** Uploads an alert's chart where only the messages showing it see it; its file id. */
  upload(alert: WatchAlert, png: Buffer): Promise<string>;
  /** Posts the alert (showing the uploaded chart when there is one); its message ts. */
  fired(alert: WatchAlert, chartFileId: string | undefined): Promise<{ ts?: string }>;
  /** Updates the alert's message in place as resolved, and says so in its thread. */
  resolved(alert: WatchAlert, chartFileId: string | undefined): Promise<void>;
  /** Shares a chart Slack could not show in the alert's message as a file in its thread. */
  shareChart(alert: WatchAlert, png: Buffer): Promise<void>;
  /** "shop.example.dev is active: …" in the watching channel. */
  notice(watch: Watch, status: 'active' | 'deleted'): Promise<void>;
  /** Tells the watch's creator it paused, why, and what to do (best effort). */
  paused(watch: Watch, reason: string): Promise<void>;
  /** Whether Slack refused a chart because it is still processing its file (the post waits). */
  chartNotReady(error: unknown): boolean;
  /** Whether a Slack failure may pass by itself (then the post is tried again). */
  transient(error: unknown): boolean;
  retryAfterMs(error: unknown): number | undefined;
  /** Why a post failed, in words for the DM that pauses its watch. */
  reasonFor(error: unknown): string;
}

interface EvalPayload {
  zoneId: string;
  dueAt: number;
}

interface EvalCheckpoint {
  /** The interval's analytics, kept so that a resumed job judges the same numbers. */
  sample?: Sample;
}

export type PostPayload =
  | { kind: 'fired' | 'resolved'; alertId: string }
  | { kind: 'notice'; watchId: string; status: 'active' | 'deleted' };

interface PostCheckpoint {
  /** The chart uploaded for this post: a retry shows the same file. */
  fileId?: string;
  /** How many times Slack said the file was still being processed. */
  waits?: number;
  /** The chart could not be uploaded, or Slack refused the post showing it: the alert goes without. */
  withoutChart?: boolean;
}

/**
 * How long a post waits each time Slack says its chart is still being processed (a second is
 * usually enough, https://github.com/slackapi/python-slack-sdk/issues/1521; Slack suggests
 * doubling waits up to half a minute, https://github.com/slackapi/slack-github-action/issues/413);
 * after the last, the alert goes without the image and its chart is shared in its thread.
 */
const CHART_WAITS_MS = [1_000, 2_000, 4_000, 8_000, 16_000];

/** The chart of a post: an uploaded file to show, or (Slack never got it ready) bytes to share. */
type PostChart = { fileId: string } | { png: Buffer };

export interface WatchEvaluationOptions {
  store: Store;
  cdn: CdnAccess;
  runner: JobRunner;
  renderer: ChartRenderer;
  poster: WatchPoster;
  clock: Clock;
  logger: Logger;
  settings: WatchSettings;
  /** Zones read per tick. Default 500. */
  batch?: number;
  /** Evaluations at once in this process. Default 8. */
  concurrency?: number;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** The budget's counter, beside the per-user change counters. */
const BUDGET_COUNTER = '~watch-cdn';
/**
 * Finished evaluations (one a zone an interval) leave the job table this long after they ran, by
 * the retention sweep; posts stay as long as other jobs: their keys hold off a second post.
 */
export const KEEP_FINISHED_EVALS_MS = HOUR;

export const watchJobKey = (workspaceId: string, zoneId: string, dueAt: number) =>
  `watch:${workspaceId}:${zoneId}:${dueAt}`;

/** An alert's id: the same for a resumed evaluation of the same interval. */
export function alertId(watchId: string, rule: string, dueAt: number): string {
  return `alert_${createHash('sha256').update(`${watchId}\n${rule}\n${dueAt}`).digest('hex').slice(0, 24)}`;
}

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

/** The thresholds of a watch that parse (a stored rule always did). */
export function thresholdsOf(watch: Watch): ThresholdRule[] {
  return watch.rules
    .map((text) => parseThreshold(text))
    .filter((rule): rule is ThresholdRule => !('error' in rule));
}

/** The CDN's budget for a workspace's watches was spent this minute: try at the next one. */
class BudgetSpentError extends Error {
  override readonly name = 'BudgetSpentError';
  constructor(readonly retryInMs: number) {
    super('watch CDN request budget spent');
  }
}

export class WatchEvaluation {
  readonly #o: WatchEvaluationOptions;
  readonly evalJob: JobKind<EvalPayload, EvalCheckpoint>;
  readonly postJob: JobKind<PostPayload, PostCheckpoint>;

  constructor(options: WatchEvaluationOptions) {
    this.#o = options;
    this.evalJob = {
      concurrency: options.concurrency ?? 8,
      // A zone's interval is late, never lost: it is tried until its next one has run.
      maxAttempts: 20,
      run: (context) => this.#evaluate(context),
    };
    this.postJob = {
      concurrency: 4,
      // Room for the chart's waits besides Slack's own hiccups.
      maxAttempts: 8 + CHART_WAITS_MS.length,
      run: (context) => this.#post(context),
      // Out of tries: the alert is said once more, without its chart; failing that, logged.
      giveUp: async (context) => {
        await context.checkpoint({ ...context.job.checkpoint, withoutChart: true });
        const outcome = await this.#post(context);
        if (outcome !== 'done')
          this.#o.logger.error(
            { job: context.job.id, reason: outcome === 'paused' ? 'paused' : outcome.error },
            'watch post given up: the alert was not posted',
          );
      },
    };
  }

  get settings(): WatchSettings {
    return this.#o.settings;
  }

  /** Turns every zone interval due now into a job, and moves each zone on; returns how many. */
  async tick(): Promise<number> {
    const { store, clock, runner, settings } = this.#o;
    const batch = this.#o.batch ?? 500;
    let queued = 0;
    for (;;) {
      const due = await store.watches.dueZones(batch);
      for (const zone of due) {
        const now = clock.now();
        // Long down: only the latest interval is evaluated (older data would only say "was").
        const behind = Math.floor((now - zone.nextRunAt) / settings.intervalMs);
        const dueAt = zone.nextRunAt + Math.max(0, behind) * settings.intervalMs;
        await runner.enqueue({
          workspaceId: zone.workspaceId,
          kind: WATCH_EVAL_JOB,
          key: watchJobKey(zone.workspaceId, zone.zoneId, dueAt),
          payload: { zoneId: zone.zoneId, dueAt } satisfies EvalPayload,
          runAt: dueAt,
        });
        if (
          await store.watches.claimZone(
            zone.workspaceId,
            zone.zoneId,
            zone.nextRunAt,
            dueAt + settings.intervalMs,
          )
        )
          queued += 1;
      }
      if (due.length < batch) break;
    }
    return queued;
  }

  /** Ticks until the signal aborts, several times an interval. */
  async run(signal: AbortSignal): Promise<void> {
    const every = Math.min(5_000, Math.max(1_000, this.#o.settings.intervalMs / 6));
    await repeat(this.#o.clock, every, signal, () =>
      this.tick().catch((error: unknown) =>
        this.#o.logger[logLevelOf(error)]({ err: error }, 'watch tick failed'),
      ),
    );
  }

  async #evaluate(context: JobContext<EvalPayload, EvalCheckpoint>): Promise<JobOutcome> {
    const { store, logger } = this.#o;
    const { job } = context;
    const { zoneId, dueAt } = job.payload;
    const zone = await store.watches.zone(job.workspaceId, zoneId);
    if (!zone) return 'done';
    const all = await store.watches.listForZone(job.workspaceId, zoneId);
    if (all.length === 0) {
      // Left scheduled by an unwatch that raced an edit of the last watch: no more evaluations.
      await store.watches.dropZoneIfUnwatched(job.workspaceId, zoneId);
      return 'done';
    }
    // A paused watch (its channel refused the bot) is not evaluated until it is watched again.
    const watches = all.filter((watch) => !watch.pausedReason);
    if (zone.status === 'deleted' || watches.length === 0) return 'done';
    try {
      const client = await this.#o.cdn.clientFor(job.workspaceId);
      if (zone.status === 'pending' || zone.status === 'unknown') {
        const status = await this.#statusOf(client, zone);
        if (status === 'pending') return 'done';
        await this.#moved(zone, watches, status);
        if (status === 'deleted') return 'done';
      }
      const sample = job.checkpoint.sample ?? (await this.#sample(context, client, zone, watches));
      if (!sample) return 'done';
      const baseline = await this.#baseline(client, zone);
      await this.#apply(zone, watches, sample, baseline, dueAt);
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
          await store.watches.delayZone(job.workspaceId, zoneId, this.#o.clock.now() + retryInMs);
        logger.info({ job: job.id, zone: zoneId, retryInMs }, 'watch evaluation delayed');
        return { retryInMs, error: (error as { code?: string }).code ?? 'transient' };
      }
      logger.warn({ err: error, zone: zoneId }, 'watch evaluation failed');
      return 'done';
    }
  }

  /** Takes one CDN request from the workspace's budget for this minute, or says when to come back. */
  async #spend(workspaceId: string): Promise<void> {
    const { store, clock, settings } = this.#o;
    const now = clock.now();
    const window = Math.floor(now / MINUTE) * MINUTE;
    const count = await store.changeCounters.increment(workspaceId, BUDGET_COUNTER, window);
    if (count === 1) await store.changeCounters.prune(workspaceId, BUDGET_COUNTER, window);
    if (count > settings.cdnRequestsPerMinute) {
      await store.changeCounters.decrement(workspaceId, BUDGET_COUNTER, window);
      throw new BudgetSpentError(window + MINUTE - now + phaseOf(workspaceId, '', 5_000));
    }
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
    await store.watches.moveStatus(zone.workspaceId, zone.zoneId, zone.status, status);
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
      await store.watches.setBaseline(zone.workspaceId, zone.zoneId, baseline);
      return baseline;
    } catch (error) {
      if (error instanceof BudgetSpentError) throw error;
      // The last one still serves; the thresholds need none.
      logger.info({ err: error, zone: zone.zoneId }, 'watch baseline not refreshed');
      return zone.baseline as Baseline | undefined;
    }
  }

  /**
   * Each watch's rules take this interval's step once. The step is written first, conditional on
   * the state it was computed from (another replica evaluating the zone's next interval at the
   * same time makes it read again); an alert it fires is then stored and its post queued, both
   * keyed, which a resumed job (finding its own interval applied) does again harmlessly.
   */
  async #apply(
    zone: WatchedZone,
    watches: Watch[],
    sample: Sample,
    baseline: Baseline | undefined,
    dueAt: number,
  ): Promise<void> {
    const { store, settings } = this.#o;
    const states = new Map(
      (await store.watches.ruleStates(watches.map((w) => w.id))).map((s) => [
        `${s.watchId}\n${s.rule}`,
        s,
      ]),
    );
    for (const watch of watches) {
      for (const verdict of evaluate(sample, thresholdsOf(watch), baseline, settings)) {
        let state = states.get(`${watch.id}\n${verdict.rule}`);
        for (let attempt = 0; attempt < 5; attempt++) {
          if (await this.#stepRule(zone, watch, verdict, state, sample, dueAt)) break;
          [state] = await store.watches.ruleStates([watch.id], verdict.rule);
        }
      }
    }
  }

  /** One rule's step for one interval; false when its state moved meanwhile (read it again). */
  async #stepRule(
    zone: WatchedZone,
    watch: Watch,
    verdict: Verdict,
    state: RuleState | undefined,
    sample: Sample,
    dueAt: number,
  ): Promise<boolean> {
    const { store, settings, clock } = this.#o;
    const fired = alertId(watch.id, verdict.rule, dueAt);
    if (state && state.lastInterval >= dueAt) {
      // Applied already: by this job before a crash when it fired or resolved here (its alert and
      // post are made sure of; both are keyed, so a second time changes nothing).
      if (state.lastInterval === dueAt && state.alertId === fired)
        await this.#fire(zone, watch, verdict, sample, fired);
      else if (state.lastInterval === dueAt && !state.firing && state.alertId)
        await this.#resolve(zone, verdict, sample, state.alertId);
      return true;
    }
    // A rule that never breached and is not tracked yet needs no row.
    if (!state && !verdict.breached) return true;
    const next = step(state ?? { firing: false, streak: 0 }, verdict.breached, settings);
    const quiet = state?.muted || (state?.snoozedUntil ?? 0) > clock.now();
    const current =
      next.transition === 'fired'
        ? quiet
          ? null
          : fired
        : // Resolved: the id is kept (not firing), so a resume can finish resolving it.
          (state?.alertId ?? null);
    const applied = await store.watches.applyRuleState(
      watch.id,
      verdict.rule,
      { from: state?.lastInterval ?? 0, to: dueAt },
      { firing: next.firing, streak: next.streak, alertId: current },
      state?.muted ?? false,
    );
    if (!applied) return false;
    if (next.transition === 'fired' && current)
      await this.#fire(zone, watch, verdict, sample, current);
    if (next.transition === 'resolved' && state?.alertId)
      await this.#resolve(zone, verdict, sample, state.alertId);
    return true;
  }

  /** Marks a firing alert resolved and queues its post (once, by its id). */
  async #resolve(zone: WatchedZone, verdict: Verdict, sample: Sample, id: string): Promise<void> {
    const { store } = this.#o;
    const alert = await store.watches.alert(id);
    // Resolved by an earlier interval (a resume of a later, quiet one): nothing to do.
    if (!alert || (alert.status !== 'firing' && alert.resolvedAt !== sample.until)) return;
    if (alert.status === 'firing')
      await store.watches.resolveAlert(id, sample.until, {
        ...alert.detail,
        last: detailOf(verdict),
      });
    await this.#enqueuePost(zone.workspaceId, { kind: 'resolved', alertId: id });
  }

  /** Stores the alert and queues its post (both once, by its id). */
  async #fire(
    zone: WatchedZone,
    watch: Watch,
    verdict: Verdict,
    sample: Sample,
    id: string,
  ): Promise<void> {
    const { store, settings } = this.#o;
    const span = Math.max(MINUTE, settings.intervalMs);
    await store.watches.createAlert({
      id,
      workspaceId: zone.workspaceId,
      watchId: watch.id,
      zoneId: zone.zoneId,
      zoneName: zone.zoneName,
      channelId: watch.channelId,
      rule: verdict.rule,
      status: 'firing',
      startedAt: sample.until - settings.holdIntervals * span,
      resolvedAt: null,
      detail: detailOf(verdict),
    });
    await this.#enqueuePost(zone.workspaceId, { kind: 'fired', alertId: id });
  }

  async #enqueuePost(workspaceId: string, payload: PostPayload): Promise<void> {
    const key =
      payload.kind === 'notice'
        ? `watch-notice:${payload.watchId}:${payload.status}`
        : `watch-${payload.kind}:${payload.alertId}`;
    await this.#o.runner.enqueue({ workspaceId, kind: WATCH_POST_JOB, key, payload });
  }

  async #post(context: JobContext<PostPayload, PostCheckpoint>): Promise<JobOutcome> {
    const { store, poster, logger } = this.#o;
    const { job } = context;
    const payload = job.payload;
    let watch: Watch | undefined;
    try {
      if (payload.kind === 'notice') {
        watch = await store.watches.get(payload.watchId);
        if (watch && !watch.pausedReason) await poster.notice(watch, payload.status);
        return 'done';
      }
      const alert = await store.watches.alert(payload.alertId);
      watch = alert && (await store.watches.get(alert.watchId));
      // Its watch removed since (unwatched, logged out, uninstalled) or paused: nothing is posted.
      if (!alert || !watch || watch.pausedReason) return 'done';
      if (payload.kind === 'fired') {
        if (alert.messageTs) return 'done';
        const chart = await this.#postChart(context, alert);
        const posted = await this.#showing(context, chart, (fileId) => poster.fired(alert, fileId));
        if (posted.ts) await store.watches.setAlertMessage(alert.id, posted.ts);
        await this.#shareChart({ ...alert, messageTs: posted.ts ?? null }, chart);
        return 'done';
      }
      // The alert's own post comes first: its message is what is updated.
      if (!alert.messageTs) return { retryInMs: 5_000, error: 'alert not posted yet' };
      const chart = await this.#postChart(context, alert);
      await this.#showing(context, chart, (fileId) => poster.resolved(alert, fileId));
      await this.#shareChart(alert, chart);
      return 'done';
    } catch (error) {
      if (context.lost.aborted) throw error;
      const waits = job.checkpoint.waits ?? 0;
      if (poster.chartNotReady(error) && waits < CHART_WAITS_MS.length) {
        await context.checkpoint({ ...job.checkpoint, waits: waits + 1 });
        return { retryInMs: CHART_WAITS_MS[waits] ?? 0, error: 'chart still processed by Slack' };
      }
      if (poster.transient(error) || isStorageUnavailable(error)) {
        const retryInMs = retryDelay(job.attempts, {
          baseMs: 2_000,
          maxMs: 120_000,
          askedMs: poster.retryAfterMs(error),
        });
        return { retryInMs, error: 'slack unavailable' };
      }
      if (watch && error instanceof AppError && error.code === 'cannot_post') {
        // The channel refuses the bot (removed, archived, private): trying again would not help.
        await this.#pause(watch, poster.reasonFor(error));
        return 'done';
      }
      logger.warn({ err: error, job: job.id }, 'watch post failed');
      return 'done';
    }
  }

  /**
   * The chart this post shows: the file uploaded by an earlier try, else a fresh upload (kept in
   * the checkpoint); once Slack has had every wait to process it, the bytes to share instead.
   * Undefined when the CDN cannot give the traffic now, or Slack will not take the chart (an
   * upload refused for good, a post showing it refused): the alert goes without.
   */
  async #postChart(
    context: JobContext<PostPayload, PostCheckpoint>,
    alert: WatchAlert,
  ): Promise<PostChart | undefined> {
    const { poster, logger } = this.#o;
    const { fileId, waits = 0, withoutChart } = context.job.checkpoint;
    if (withoutChart) return undefined;
    if (waits >= CHART_WAITS_MS.length) {
      const png = await this.chart(alert);
      return png && { png };
    }
    if (fileId) return { fileId };
    const png = await this.chart(alert);
    if (!png) return undefined;
    try {
      const uploaded = await poster.upload(alert, png);
      await context.checkpoint({ ...context.job.checkpoint, fileId: uploaded });
      return { fileId: uploaded };
    } catch (error) {
      // Not now (a 429, a 5xx): the post is tried again. No (a missing scope, a token type): the
      // alert still goes, without its chart.
      if (context.lost.aborted || poster.transient(error) || isStorageUnavailable(error))
        throw error;
      logger.warn(
        { err: error, alert: alert.id },
        'alert chart not uploaded; the alert goes without',
      );
      await context.checkpoint({ ...context.job.checkpoint, withoutChart: true });
      return undefined;
    }
  }

  /**
   * Posts with the chart's file; when Slack refuses that post for good and not for where it goes
   * (blocks it will not take, other than a file still processed), at once again without it.
   */
  async #showing<T>(
    context: JobContext<PostPayload, PostCheckpoint>,
    chart: PostChart | undefined,
    post: (fileId: string | undefined) => Promise<T>,
  ): Promise<T> {
    const { poster, logger } = this.#o;
    if (!chart || !('fileId' in chart)) return post(undefined);
    try {
      return await post(chart.fileId);
    } catch (error) {
      const refusedThere = error instanceof AppError && error.code === 'cannot_post';
      if (
        context.lost.aborted ||
        refusedThere ||
        poster.chartNotReady(error) ||
        poster.transient(error) ||
        isStorageUnavailable(error)
      )
        throw error;
      logger.warn(
        { err: error, job: context.job.id },
        'alert refused with its chart; posted without',
      );
      await context.checkpoint({ ...context.job.checkpoint, withoutChart: true });
      return post(undefined);
    }
  }

  /** A chart Slack never showed goes in the alert's thread; the alert itself is already posted. */
  async #shareChart(alert: WatchAlert, chart: PostChart | undefined): Promise<void> {
    if (!chart || !('png' in chart)) return;
    await this.#o.poster.shareChart(alert, chart.png).catch((error: unknown) => {
      this.#o.logger.warn({ err: error, alert: alert.id }, 'alert chart not shared in its thread');
    });
  }

  /** Pauses a watch whose channel refuses the bot; its creator is told once. */
  async #pause(watch: Watch, reason: string): Promise<void> {
    const { store, poster, logger } = this.#o;
    logger.warn({ watch: watch.id, reason }, 'watch paused: its channel refuses the bot');
    if (!(await store.watches.pause(watch.id, reason))) return;
    await poster.paused(watch, reason).catch((error: unknown) => {
      logger.warn({ err: error, watch: watch.id }, 'watch paused, its creator not told');
    });
  }

  /**
   * The alert's chart: the last hours by minute, the usual band or the threshold, the alert's
   * window shaded; undefined when the CDN cannot give the traffic now (the alert goes without).
   */
  async chart(alert: WatchAlert): Promise<Buffer | undefined> {
    const input = await this.chartInput(alert).catch((error: unknown) => {
      this.#o.logger.info({ err: error, alert: alert.id }, 'alert chart without traffic');
      return undefined;
    });
    return input && this.#o.renderer.render(input, { wait: true });
  }

  async chartInput(alert: WatchAlert): Promise<AlertChartInput | undefined> {
    const { store, cdn, clock } = this.#o;
    const end = Math.floor((alert.resolvedAt ?? clock.now()) / MINUTE) * MINUTE;
    const until = Math.max(end, Math.floor(clock.now() / MINUTE) * MINUTE);
    const since = until - CHART_SPAN_MS;
    const client = await cdn.clientFor(alert.workspaceId);
    const traffic = await readAlertTraffic(client, alert, { since, until });
    const zone = await store.watches.zone(alert.workspaceId, alert.zoneId);
    return alertChart(alert, {
      since,
      until,
      ...traffic,
      baseline: zone?.baseline as Baseline | undefined,
      settings: this.#o.settings,
    });
  }
}

function detailOf(verdict: Verdict): Record<string, unknown> {
  return {
    value: verdict.value,
    bound: verdict.bound,
    ...(verdict.band ? { median: verdict.band.median } : {}),
  };
}
