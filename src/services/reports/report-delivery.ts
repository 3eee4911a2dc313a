// Daily reports as durable jobs. The tick turns each due occurrence into a job keyed by its
// schedule and time, then moves the schedule on; the job builds the report, stages the post (a
// chart's upload, which nobody sees yet), records that intent, publishes it, and records the
// message. A crash at any step resumes after the lease on any replica; a resumed job that finds an
// intent asks Slack whether the post already landed before publishing, so an occurrence is posted
// once. Every post and every final failure is audited once (keyed).
import { CdnError, isTransientCdnError } from '../../cdn/errors.js';
import type { Clock } from '../../clock.js';
import { AppError, isStorageUnavailable } from '../../errors.js';
import {
  type JobContext,
  type JobKind,
  type JobOutcome,
  type JobRunner,
  retryDelay,
} from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { NewAuditEntry } from '../../store/audit-log.js';
import type { Store } from '../../store/index.js';
import type { OccurrencePlan, Schedule } from '../../store/schedules.js';
import type { DailyReport, DailyReportService } from './daily-report.js';
import { nextOccurrence } from './report-times.js';

export const REPORT_JOB = 'daily_report';

/** A post made ready but not yet shown: a chart's uploaded file, or a text-only message. */
export type StagedPost = { fileId: string } | { text: true };

/** Where reports go; src/slack implements it over the Web API. */
export interface ReportPoster {
  /**
   * Makes the post ready where nobody sees it yet (a chart is uploaded, not shared). Each method
   * may wait its turn under Slack's rate limits; `signal` cuts the wait short (the process is
   * stopping, or the job's lease is lost) and the call is then not made.
   */
  stage(schedule: Schedule, report: DailyReport, signal?: AbortSignal): Promise<StagedPost>;
  /** Shows a staged post in the schedule's channel; its message ts when Slack gives it. */
  publish(
    schedule: Schedule,
    report: DailyReport,
    staged: StagedPost,
    signal?: AbortSignal,
  ): Promise<{ ts?: string }>;
  /**
   * Whether a staged post already reached the channel (the process died between publishing it and
   * recording that): where, not yet, or 'unknown' when Slack cannot tell (a text-only post).
   */
  published(
    schedule: Schedule,
    staged: StagedPost,
    signal?: AbortSignal,
  ): Promise<{ ts?: string } | false | 'unknown'>;
  /** Whether a Slack failure may pass by itself (a timeout, a 5xx, a rate limit): then it is retried. */
  transient(error: unknown): boolean;
  /** How long Slack asked to wait (a 429's Retry-After), if it did. */
  retryAfterMs(error: unknown): number | undefined;
  /** Why a report failed, in words for the schedule's list and the notice. */
  reasonFor(error: unknown): string;
  /** One notice that the schedule is paused, and why (best effort). */
  paused(schedule: Schedule, reason: string): Promise<void>;
}

interface ReportPayload {
  scheduleId: string;
  /** The occurrence: "yesterday" is the day before it, in the schedule's time zone. */
  dueAt: number;
}

interface ReportCheckpoint {
  /** Written before the post is published: a resumed job checks it instead of posting again. */
  staged?: StagedPost;
  /** Written once the post is shown: a resumed job only audits and ends. */
  posted?: { ts?: string; at: number };
}

export interface TickResult {
  /** Occurrences turned into jobs by this replica. */
  queued: number;
  /** Occurrences too late to post, moved on. */
  skipped: number;
}

export interface ReportDeliveryOptions {
  store: Store;
  reports: DailyReportService;
  poster: ReportPoster;
  runner: JobRunner;
  clock: Clock;
  logger: Logger;
  /** A missed occurrence later than this is skipped, not posted. Default 6 h. */
  catchUpMs?: number;
  /** Reports built and posted at once in this process. Default 8. */
  concurrency?: number;
  /** Due schedules taken per transaction. Default 200. */
  batch?: number;
  /** Attempts at one occurrence before the schedule pauses. Default 5. */
  maxAttempts?: number;
}

export const reportJobKey = (scheduleId: string, dueAt: number) => `report:${scheduleId}:${dueAt}`;

/**
 * Round-robin over channels: a channel takes one post a second, so consecutive reports for one
 * channel would hold every slot waiting on it while other channels sit idle.
 */
export function interleaveByChannel(schedules: Schedule[]): Schedule[] {
  const byChannel = new Map<string, Schedule[]>();
  for (const schedule of schedules) {
    const queue = byChannel.get(schedule.channelId);
    if (queue) queue.push(schedule);
    else byChannel.set(schedule.channelId, [schedule]);
  }
  const queues = [...byChannel.values()];
  const ordered: Schedule[] = [];
  for (let round = 0; ordered.length < schedules.length; round++) {
    for (const queue of queues) {
      const next = queue[round];
      if (next) ordered.push(next);
    }
  }
  return ordered;
}

export class ReportDelivery {
  readonly #o: ReportDeliveryOptions & Required<Pick<ReportDeliveryOptions, 'catchUpMs' | 'batch'>>;
  readonly job: JobKind<ReportPayload, ReportCheckpoint>;

  constructor(options: ReportDeliveryOptions) {
    this.#o = { catchUpMs: 6 * 3_600_000, batch: 200, ...options };
    this.job = {
      concurrency: options.concurrency ?? 8,
      maxAttempts: options.maxAttempts ?? 5,
      run: (context) => this.#run(context),
      giveUp: (context) => this.#giveUp(context),
    };
  }

  /**
   * Turns every occurrence due now into a job (or skips it when too late) and moves its schedule
   * on, a batch per transaction; replicas ticking at once take different batches.
   */
  async tick(): Promise<TickResult> {
    const { store, batch, runner } = this.#o;
    const result: TickResult = { queued: 0, skipped: 0 };
    for (;;) {
      const taken = await store.schedules.takeDue(batch, (due) => this.#plan(due));
      for (const { schedule, job, nextRunAt } of taken) {
        if (job) result.queued += 1;
        else {
          result.skipped += 1;
          this.#skipped(schedule, nextRunAt);
        }
      }
      if (result.queued > 0) runner.lookNow();
      if (taken.length < batch) return result;
    }
  }

  /**
   * Each occurrence's job, keyed by schedule and time; one too late to be "this morning's" report
   * has none and moves on to the next time after now. Jobs of one channel are spread out among
   * the others' (see interleaveByChannel) by their due times, a millisecond apart: the order
   * the runners take them in.
   */
  #plan(due: Schedule[]): OccurrencePlan[] {
    const { clock, catchUpMs } = this.#o;
    const now = clock.now();
    const order = new Map(interleaveByChannel(due).map((schedule, i) => [schedule.id, i]));
    return due.map((schedule) => {
      const dueAt = schedule.nextRunAt;
      if (now - dueAt > catchUpMs) {
        // Too late: skipped, audited once (keyed by the occurrence) in the batch's transaction.
        const lateMinutes = Math.round((now - dueAt) / 60_000);
        return {
          nextRunAt: nextOccurrence(schedule.timeOfDay, schedule.timeZone, now),
          audit: auditEntry(
            schedule,
            'report.skipped',
            'skipped',
            { dueAt, lateMinutes },
            { id: `${schedule.id}:${dueAt}` },
          ),
        };
      }
      return {
        nextRunAt: nextOccurrence(schedule.timeOfDay, schedule.timeZone, dueAt),
        job: {
          workspaceId: schedule.workspaceId,
          kind: REPORT_JOB,
          key: reportJobKey(schedule.id, dueAt),
          payload: { scheduleId: schedule.id, dueAt } satisfies ReportPayload,
          // Already due: a millisecond apart, ending now.
          runAt: now - due.length + (order.get(schedule.id) ?? 0),
        },
      };
    });
  }

  #skipped(schedule: Schedule, nextRunAt: number): void {
    const dueAt = schedule.nextRunAt;
    const lateMs = this.#o.clock.now() - dueAt;
    this.#o.logger.info(
      { schedule: schedule.id, dueAt, lateMs, nextRunAt },
      'missed daily report skipped',
    );
  }

  async #run(context: JobContext<ReportPayload, ReportCheckpoint>): Promise<JobOutcome> {
    const { job } = context;
    const { dueAt } = job.payload;
    const schedule = await this.#o.store.schedules.get(job.payload.scheduleId);
    if (schedule?.status !== 'active') {
      // Stopped, paused or uninstalled since it fell due: nothing to post.
      this.#o.logger.info(
        { job: job.id, schedule: job.payload.scheduleId },
        'report not posted: schedule no longer active',
      );
      return 'done';
    }
    try {
      const posted = job.checkpoint.posted ?? (await this.#post(context, schedule));
      await this.#audit(schedule, 'report.posted', 'ok', { dueAt, ts: posted.ts }, job);
      return 'done';
    } catch (error) {
      if (context.lost.aborted) throw error;
      // Stopping while waiting for Slack's turn: handed back as it is; whoever resumes it checks
      // the staged post first.
      if (context.stopping.aborted) return 'paused';
      const { poster, logger } = this.#o;
      // The key was removed since this occurrence was queued: the schedule waits for a new one
      // (see ScheduleRepository.takeDue) instead of pausing for good.
      if (error instanceof AppError && error.code === 'no_api_key') {
        logger.info({ job: job.id, schedule: schedule.id }, 'report not posted: no CDN key');
        return 'done';
      }
      const reason = poster.reasonFor(error);
      // The CDN, Slack or the database slow, down or rate limiting: a later try will do.
      if (isTransientCdnError(error) || poster.transient(error) || isStorageUnavailable(error)) {
        const retryInMs = retryDelay(job.attempts, {
          baseMs: 5_000,
          maxMs: 300_000,
          // Never sooner than Slack or the CDN asked (a 429's Retry-After).
          askedMs: error instanceof CdnError ? error.retryAfterMs : poster.retryAfterMs(error),
        });
        logger.warn(
          { err: error, job: job.id, schedule: schedule.id, retryInMs },
          'daily report not posted; trying again',
        );
        // The reason in words is kept: if the tries run out, the schedule pauses with it.
        return { retryInMs, error: reason };
      }
      logger.warn({ err: error, schedule: schedule.id }, 'daily report failed');
      await this.#fail(schedule, dueAt, reason, job);
      return 'done';
    }
  }

  /**
   * Build, stage, record the intent, publish, record the post. A staged post from an earlier
   * attempt is looked for first, and published (again staged once) only if Slack has not got it.
   */
  async #post(
    context: JobContext<ReportPayload, ReportCheckpoint>,
    schedule: Schedule,
  ): Promise<{ ts?: string; at: number }> {
    const { poster, clock, logger, reports } = this.#o;
    const { job } = context;
    let staged = job.checkpoint.staged;
    if (staged) {
      const seen = await poster.published(schedule, staged, waiting(context));
      if (seen === 'unknown') {
        logger.warn(
          { job: job.id, schedule: schedule.id },
          'cannot tell whether the report was posted; posting it',
        );
      } else if (seen) {
        return this.#record(context, { ...seen, at: clock.now() });
      }
    }
    const report = await reports.build(schedule, job.payload.dueAt);
    if (!staged || 'text' in staged !== !report.png) {
      staged = await poster.stage(schedule, report, waiting(context));
      await context.checkpoint({ staged });
    }
    const shown = await poster.publish(schedule, report, staged, waiting(context));
    return this.#record(context, { ...shown, at: clock.now() });
  }

  async #record(
    context: JobContext<ReportPayload, ReportCheckpoint>,
    posted: { ts?: string; at: number },
  ): Promise<{ ts?: string; at: number }> {
    await context.checkpoint({ ...context.job.checkpoint, posted });
    return posted;
  }

  async #giveUp(context: JobContext<ReportPayload, ReportCheckpoint>): Promise<void> {
    const { job } = context;
    const schedule = await this.#o.store.schedules.get(job.payload.scheduleId);
    // The last try's reason, in words (see #run).
    if (schedule?.status === 'active')
      await this.#fail(schedule, job.payload.dueAt, job.error ?? 'it failed too many times', job);
  }

  /** A failure that will not pass by itself: the schedule pauses and its creator is told once. */
  async #fail(
    schedule: Schedule,
    dueAt: number,
    reason: string,
    job: { id: string },
  ): Promise<void> {
    const { store, poster, logger } = this.#o;
    logger.warn({ schedule: schedule.id, reason }, 'daily report schedule paused');
    await store.schedules.pause(schedule.id, reason);
    const first = await this.#audit(schedule, 'report.failed', 'paused', { dueAt, reason }, job);
    if (first) await poster.paused(schedule, reason).catch(() => undefined);
  }

  /** One entry; keyed by the job when there is one, so a resumed job does not write it again. */
  async #audit(
    schedule: Schedule,
    action: string,
    outcome: string,
    detail: Record<string, unknown>,
    job?: { id: string },
  ) {
    return this.#o.store.audit.record(auditEntry(schedule, action, outcome, detail, job));
  }
}

/** A report's audit entry, by the system; keyed (written once) when it belongs to a job. */
function auditEntry(
  schedule: Schedule,
  action: string,
  outcome: string,
  detail: Record<string, unknown>,
  job?: { id: string },
): NewAuditEntry {
  return {
    workspaceId: schedule.workspaceId,
    actorId: 'system',
    action,
    zoneId: schedule.zoneId,
    zoneName: schedule.zoneName,
    accountId: schedule.accountId,
    outcome,
    detail: { schedule: schedule.id, ...detail },
    ...(job ? { key: `${action}:${job.id}` } : {}),
  };
}

/** What cuts a wait for Slack's turn short: the process stopping, or the lease lost. */
function waiting(context: JobContext<ReportPayload, ReportCheckpoint>): AbortSignal {
  return AbortSignal.any([context.lost, context.stopping]);
}
