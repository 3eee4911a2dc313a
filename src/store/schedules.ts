// Repository: daily report schedules. Due occurrences are taken a batch at a time, each turned
// into its job in the same transaction that moves its schedule on; on PostgreSQL replicas skip the
// rows another one is taking (FOR UPDATE SKIP LOCKED), so they share the work and each occurrence
// becomes one job.
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import { AuditLogRepository, type NewAuditEntry } from './audit-log.js';
import type { SqlDialect } from './db.js';
import { takeRows, withCdnKey } from './due.js';
import type { JobRepository, NewJob } from './jobs.js';
import { refuseAtLimits, withWorkspaceLock } from './limits.js';
import type { Database, ScheduleStatus, SchedulesTable } from './schema.js';
import type { WorkspaceLimits } from './workspaces.js';
import { toZoneWork, type ZoneWork, zoneWorkColumns } from './zone-work.js';

export interface Schedule extends ZoneWork {
  timeOfDay: string;
  timeZone: string;
  status: ScheduleStatus;
  nextRunAt: number;
  lastRunAt: number | null;
  pausedReason: string | null;
  createdAt: number;
  updatedAt: number;
}

export type NewSchedule = Pick<
  Schedule,
  | 'workspaceId'
  | 'zoneId'
  | 'zoneName'
  | 'accountId'
  | 'channelId'
  | 'createdBy'
  | 'timeOfDay'
  | 'timeZone'
  | 'nextRunAt'
>;

/**
 * What becomes of one due occurrence: the schedule's next time, and its job (none: skipped), and
 * an audit entry written in the same transaction (a skipped occurrence's).
 */
export interface OccurrencePlan {
  nextRunAt: number;
  job?: NewJob;
  audit?: NewAuditEntry;
}

export class ScheduleRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly jobs: JobRepository,
    private readonly dialect: SqlDialect,
    private readonly newId: () => string = randomUUID,
  ) {}

  /**
   * The report, made unless the same one (zone, channel, time of day and time zone) is live
   * already: then that one, and `created` false. A new one is made only while the workspace has
   * fewer than `limits.reports` live reports and its creator fewer than `limits.reportsPerPerson`;
   * otherwise nothing is stored, and AppError limit_reached says which limit. The look, the counts
   * and the insert run under the workspace's lock (limits.ts), and the unique index on live reports
   * refuses a second one whatever happens, so two creates at once on any replicas make one report.
   */
  async create(
    input: NewSchedule,
    limits: Pick<WorkspaceLimits, 'reports' | 'reportsPerPerson'>,
  ): Promise<{ schedule: Schedule; created: boolean }> {
    return withWorkspaceLock(this.db, this.dialect, input.workspaceId, async (trx) => {
      const existing = await this.#findLive(trx, input);
      if (existing) return { schedule: existing, created: false };
      await refuseAtLimits(trx, 'schedules', input, {
        all: { limit: 'reports', max: limits.reports },
        perPerson: { limit: 'reportsPerPerson', max: limits.reportsPerPerson },
      });
      const now = this.clock.now();
      const row: Selectable<SchedulesTable> = {
        ...zoneWorkColumns(this.newId(), input),
        time_of_day: input.timeOfDay,
        time_zone: input.timeZone,
        status: 'active',
        next_run_at: input.nextRunAt,
        last_run_at: null,
        paused_reason: null,
        created_at: now,
        updated_at: now,
      };
      const inserted = await trx
        .insertInto('schedules')
        .values(row)
        // schedules_account_live_unique: one live report per zone, channel and time; a report
        // made meanwhile by another request is found below.
        .onConflict((conflict) => conflict.doNothing())
        .executeTakeFirst();
      if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n)
        return { schedule: toSchedule(row), created: true };
      const raced = await this.#findLive(trx, input);
      if (!raced) throw new Error('schedules.create: neither inserted nor found live');
      return { schedule: raced, created: false };
    });
  }

  /** The live (not stopped) report of this zone in this channel at this time, if any. */
  async #findLive(
    db: Kysely<Database>,
    input: Pick<
      Schedule,
      'workspaceId' | 'zoneId' | 'accountId' | 'channelId' | 'timeOfDay' | 'timeZone'
    >,
  ): Promise<Schedule | undefined> {
    const row = await selectSchedules(db)
      .where('account_id', '=', input.accountId)
      .where('workspace_id', '=', input.workspaceId)
      .where('zone_id', '=', input.zoneId)
      .where('channel_id', '=', input.channelId)
      .where('time_of_day', '=', input.timeOfDay)
      .where('time_zone', '=', input.timeZone)
      .where('status', '<>', 'stopped')
      .executeTakeFirst();
    return row && toSchedule(row);
  }

  async get(id: string): Promise<Schedule | undefined> {
    const row = await selectSchedules(this.db).where('id', '=', id).executeTakeFirst();
    return row && toSchedule(row);
  }

  /** A workspace's schedules that are not stopped, oldest first. */
  async listForWorkspace(workspaceId: string): Promise<Schedule[]> {
    const rows = await selectSchedules(this.db)
      .where('workspace_id', '=', workspaceId)
      .where('status', '<>', 'stopped')
      .orderBy('created_at')
      .execute();
    return rows.map(toSchedule);
  }

  /**
   * Takes up to `limit` due occurrences that no other replica is taking, earliest first, and in
   * one transaction stores the jobs `plan` gives them (one plan per schedule, in order) and moves
   * each schedule on: a crash leaves all of them due, or all of them queued. Returns what was
   * taken, with its plan.
   */
  async takeDue(
    limit: number,
    plan: (schedules: Schedule[]) => OccurrencePlan[],
  ): Promise<Array<{ schedule: Schedule } & OccurrencePlan>> {
    const now = this.clock.now();
    return this.db.transaction().execute(async (trx) => {
      const due = selectSchedules(trx)
        .where('status', '=', 'active')
        .where('next_run_at', '<=', now)
        .where(withCdnKey('schedules'))
        .orderBy('next_run_at')
        .limit(limit);
      const rows = await takeRows(due, this.dialect);
      const schedules = rows.map(toSchedule);
      const plans = plan(schedules);
      const taken = schedules.map((schedule, i) => {
        const planned = plans[i];
        if (!planned) throw new Error('takeDue: a plan for every schedule');
        return { schedule, ...planned };
      });
      const audit = new AuditLogRepository(trx, this.clock);
      for (const { audit: entry } of taken) if (entry) await audit.record(entry);
      await this.jobs.enqueueMany(
        taken.flatMap(({ job }) => (job ? [job] : [])),
        trx,
      );
      // One UPDATE per distinct pair of times (usually a handful: schedules share hours).
      const moves = new Map<string, { dueAt: number; nextRunAt: number; ids: string[] }>();
      for (const { schedule, nextRunAt } of taken) {
        const key = `${schedule.nextRunAt}:${nextRunAt}`;
        const move = moves.get(key) ?? { dueAt: schedule.nextRunAt, nextRunAt, ids: [] };
        move.ids.push(schedule.id);
        moves.set(key, move);
      }
      for (const { dueAt, nextRunAt, ids } of moves.values())
        await trx
          .updateTable('schedules')
          .set({ next_run_at: nextRunAt, last_run_at: dueAt, updated_at: now })
          .where('id', 'in', ids)
          .execute();
      return taken;
    });
  }

  /** Pauses an active schedule; false if it was not active. */
  async pause(id: string, reason: string): Promise<boolean> {
    const result = await this.db
      .updateTable('schedules')
      .set({ status: 'paused', paused_reason: reason, updated_at: this.clock.now() })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Stops a workspace's schedule for good; false if there was no such live schedule. */
  async stop(id: string, workspaceId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('schedules')
      .set({ status: 'stopped', updated_at: this.clock.now() })
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .where('status', '<>', 'stopped')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Pauses every active schedule of a workspace (uninstall); returns how many. */
  async pauseAll(workspaceId: string, reason: string): Promise<number> {
    const result = await this.db
      .updateTable('schedules')
      .set({ status: 'paused', paused_reason: reason, updated_at: this.clock.now() })
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Stops every live schedule of a workspace for good (its admin chose so); returns how many. */
  async stopAll(workspaceId: string): Promise<number> {
    const result = await this.db
      .updateTable('schedules')
      .set({ status: 'stopped', updated_at: this.clock.now() })
      .where('workspace_id', '=', workspaceId)
      .where('status', '<>', 'stopped')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}

function selectSchedules(db: Kysely<Database>) {
  return db.selectFrom('schedules').selectAll();
}

function toSchedule(row: Selectable<SchedulesTable>): Schedule {
  return {
    ...toZoneWork(row),
    timeOfDay: row.time_of_day,
    timeZone: row.time_zone,
    status: row.status,
    nextRunAt: row.next_run_at,
    lastRunAt: row.last_run_at,
    pausedReason: row.paused_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
