// Alerts, resolutions and 'now live' notices, each posted by a job keyed by what it posts: the
// alert's chart is uploaded once (kept in the job's checkpoint), Slack is given time to process it,
// and an alert Slack will not show with its chart goes without it (the chart then shared in its
// thread). A channel that refuses the bot pauses its watch and tells its creator.

import type { AlertChartInput } from '../../charts/alert-chart.js';
import type { ChartRenderer } from '../../charts/traffic-chart.js';
import type { Clock } from '../../clock.js';
import type { WatchSettings } from '../../config.js';
import { AppError, isStorageUnavailable } from '../../errors.js';
import { type JobContext, type JobKind, type JobOutcome, retryDelay } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/index.js';
import type { WatchAlert } from '../../store/watch-alerts.js';
import type { Watch } from '../../store/watches.js';
import type { CdnAccess } from '../accounts/cdn-access.js';
import { alertChart, CHART_SPAN_MS, readAlertTraffic } from './watch-chart.js';
import type { Baseline } from './watch-rules.js';

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

export interface WatchPostingOptions {
  store: Store;
  cdn: CdnAccess;
  renderer: ChartRenderer;
  poster: WatchPoster;
  clock: Clock;
  logger: Logger;
  settings: WatchSettings;
}

const MINUTE = 60_000;

export class WatchPosting {
  readonly #o: WatchPostingOptions;
  readonly postJob: JobKind<PostPayload, PostCheckpoint>;

  constructor(options: WatchPostingOptions) {
    this.#o = options;
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
            {
              job: context.job.id,
              reason:
                outcome === 'paused'
                  ? 'paused'
                  : 'error' in outcome
                    ? outcome.error
                    : outcome.reason,
            },
            'watch post given up: the alert was not posted',
          );
      },
    };
  }

  async #post(context: JobContext<PostPayload, PostCheckpoint>): Promise<JobOutcome> {
    const { store, poster, logger } = this.#o;
    const { job } = context;
    const payload = job.payload;
    let watch: Watch | undefined;
    try {
      if (payload.kind === 'notice') {
        watch = await store.watches.get(payload.watchId);
        if (watch && !watch.pausedReason) {
          await context.fence();
          await poster.notice(watch, payload.status);
        }
        return 'done';
      }
      const alert = await store.watchAlerts.alert(payload.alertId);
      watch = alert && (await store.watches.get(alert.watchId));
      // Its watch removed since (unwatched, logged out, uninstalled) or paused: nothing is posted.
      if (!alert || !watch || watch.pausedReason) return 'done';
      if (payload.kind === 'fired') {
        if (alert.messageTs) return 'done';
        const chart = await this.#postChart(context, alert);
        const posted = await this.#showing(context, chart, (fileId) => poster.fired(alert, fileId));
        if (posted.ts) await store.watchAlerts.setAlertMessage(alert.id, posted.ts);
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
    // A post cannot be looked for afterwards (docs/architecture.md): no other replica may take
    // this job over while it is made, even if this one's heartbeats were held up.
    await context.fence();
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
      await context.fence();
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
    // The alert's own account.
    const client = await cdn.clientFor(alert.workspaceId, alert.accountId, 'watches');
    const traffic = await readAlertTraffic(client, alert, { since, until });
    const zone = await store.watches.zone(alert.workspaceId, alert.zoneId, alert.accountId);
    return alertChart(alert, {
      since,
      until,
      ...traffic,
      baseline: zone?.baseline as Baseline | undefined,
      settings: this.#o.settings,
    });
  }
}
