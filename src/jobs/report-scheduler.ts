// The report scheduler, in every bot process: each due occurrence is claimed with one conditional
// update, so with several replicas each report is posted once. Late occurrences are caught up
// within a window and skipped beyond it; a failing report pauses its schedule instead of failing
// again every day.
import pLimit, { type LimitFunction } from 'p-limit';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { DailyReport, DailyReportService } from '../services/daily-report.js';
import { nextOccurrence } from '../services/report-times.js';
import type { Store } from '../store/index.js';
import type { Schedule } from '../store/schedules.js';

/** Where reports go; implemented over the Slack Web API. */
export interface ReportPoster {
  post(schedule: Schedule, report: DailyReport): Promise<void>;
  /** Why a report failed, in words for the schedule's list and the notice. */
  reasonFor(error: unknown): string;
  /** One notice that the schedule is paused, and why (best effort). */
  paused(schedule: Schedule, reason: string): Promise<void>;
}

export interface SchedulerOptions {
  store: Store;
  reports: DailyReportService;
  poster: ReportPoster;
  clock: Clock;
  logger: Logger;
  /** A missed occurrence later than this is skipped, not posted. */
  catchUpMs?: number;
  /** Reports built and posted at once. */
  concurrency?: number;
  /** Schedules read per tick. */
  batch?: number;
}

export interface TickResult {
  posted: number;
  skipped: number;
  paused: number;
  /** Occurrences another replica claimed first. */
  lost: number;
}

/**
 * Round-robin over channels: a channel takes one post a second, so consecutive reports for one
 * channel would hold every concurrency slot waiting on it while other channels sit idle.
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

export class ReportScheduler {
  readonly #options: Required<Pick<SchedulerOptions, 'catchUpMs' | 'concurrency' | 'batch'>> &
    SchedulerOptions;

  constructor(options: SchedulerOptions) {
    this.#options = { catchUpMs: 6 * 3_600_000, concurrency: 8, batch: 500, ...options };
  }

  /** Handles every occurrence due now. */
  async tick(): Promise<TickResult> {
    const { store, clock, concurrency, batch } = this.#options;
    const result: TickResult = { posted: 0, skipped: 0, paused: 0, lost: 0 };
    const limit = pLimit(concurrency);
    for (;;) {
      const due = await store.schedules.due(batch);
      if (due.length === 0) return result;
      const outcomes = await Promise.all(
        interleaveByChannel(due).map((schedule) => this.#handle(schedule, clock.now(), limit)),
      );
      for (const outcome of outcomes) result[outcome] += 1;
      if (due.length < batch) return result;
    }
  }

  /** Ticks every `intervalMs` until the signal aborts. */
  async run(signal: AbortSignal, intervalMs = 30_000): Promise<void> {
    while (!signal.aborted) {
      await this.tick().catch((error: unknown) =>
        this.#options.logger.error({ err: error }, 'report tick failed'),
      );
      try {
        await this.#options.clock.sleep(intervalMs, signal);
      } catch {
        return;
      }
    }
  }

  /**
   * `limit` bounds the building (analytics and rendering, the costly part). Posting waits for its
   * channel's turn outside it, so a slow channel never holds a slot other channels could use.
   */
  async #handle(schedule: Schedule, now: number, limit: LimitFunction): Promise<keyof TickResult> {
    const { store, catchUpMs, logger } = this.#options;
    const dueAt = schedule.nextRunAt;
    if (now - dueAt > catchUpMs) {
      // Too late to be "this morning's" report: move on to the next one after now.
      const next = nextOccurrence(schedule.timeOfDay, schedule.timeZone, now);
      if (!(await store.schedules.claim(schedule.id, dueAt, next))) return 'lost';
      logger.info(
        { schedule: schedule.id, dueAt, lateMs: now - dueAt },
        'missed daily report skipped',
      );
      await this.#audit(schedule, 'report.skipped', 'skipped', {
        dueAt,
        lateMinutes: Math.round((now - dueAt) / 60_000),
      });
      return 'skipped';
    }
    const next = nextOccurrence(schedule.timeOfDay, schedule.timeZone, dueAt);
    if (!(await store.schedules.claim(schedule.id, dueAt, next))) return 'lost';
    try {
      const report = await limit(() => this.#options.reports.build(schedule, dueAt));
      await this.#options.poster.post(schedule, report);
      await this.#audit(schedule, 'report.posted', 'ok', { dueAt });
      return 'posted';
    } catch (error) {
      const reason = this.#options.poster.reasonFor(error);
      logger.warn({ err: error, schedule: schedule.id }, 'daily report failed; schedule paused');
      await store.schedules.pause(schedule.id, reason);
      await this.#audit(schedule, 'report.failed', 'paused', { dueAt, reason });
      await this.#options.poster.paused(schedule, reason).catch(() => undefined);
      return 'paused';
    }
  }

  async #audit(
    schedule: Schedule,
    action: string,
    outcome: string,
    detail: Record<string, unknown>,
  ) {
    await this.#options.store.audit.record({
      workspaceId: schedule.workspaceId,
      actorId: 'system',
      action,
      zoneId: schedule.zoneId,
      zoneName: schedule.zoneName,
      outcome,
      detail: { schedule: schedule.id, ...detail },
    });
  }
}
