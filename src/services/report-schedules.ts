// Daily report schedules: create, list and stop, for the command and the App Home alike.

import { safeTimeZone } from '../charts/format.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { AuditLogRepository } from '../store/audit-log.js';
import type { Schedule, ScheduleRepository } from '../store/schedules.js';
import type { AccessService, Caller, Visible } from './access.js';
import { nextOccurrence } from './report-times.js';
import type { ZoneService } from './zones.js';

/** A schedule is named by at least this many first characters of its id. */
const MIN_PREFIX = 4;

export class ReportScheduleService {
  constructor(
    private readonly deps: {
      schedules: ScheduleRepository;
      audit: AuditLogRepository;
      access: AccessService;
      zones: ZoneService;
      clock: Clock;
    },
  ) {}

  /**
   * Operators only: a daily report of `zone` in `channelId` at `timeOfDay` in the caller's zone;
   * when that report exists (not stopped), it is returned instead, and nothing is made.
   */
  async create(
    caller: Caller,
    input: { zone: string; channelId: string; timeOfDay: string },
  ): Promise<{ schedule: Schedule; created: boolean }> {
    await this.deps.access.requireOperator(caller, 'manage_reports');
    const zone = await this.deps.zones.resolve(caller.workspaceId, input.zone);
    // An unknown time zone would make every occurrence unreadable: UTC instead.
    const timeZone = safeTimeZone(await this.deps.access.timeZoneOf(caller));
    const existing = (await this.deps.schedules.listForWorkspace(caller.workspaceId)).find(
      (s) =>
        s.zoneId === zone.id &&
        s.channelId === input.channelId &&
        s.timeOfDay === input.timeOfDay &&
        s.timeZone === timeZone,
    );
    if (existing) return { schedule: existing, created: false };
    const schedule = await this.deps.schedules.create({
      workspaceId: caller.workspaceId,
      zoneId: zone.id,
      zoneName: zone.name,
      channelId: input.channelId,
      createdBy: caller.userId,
      timeOfDay: input.timeOfDay,
      timeZone,
      nextRunAt: nextOccurrence(input.timeOfDay, timeZone, this.deps.clock.now()),
    });
    await this.#audit(caller, schedule, 'report.scheduled', {
      timeOfDay: input.timeOfDay,
      timeZone,
      channel: input.channelId,
    });
    return { schedule, created: true };
  }

  /**
   * Operators among the workspace's full members (never a guest): the reports of the conversations
   * the caller is in, and how many others there are.
   */
  async list(caller: Caller): Promise<Visible<Schedule>> {
    await this.deps.access.requireFullMember(caller, 'manage_reports');
    await this.deps.access.requireOperator(caller, 'manage_reports');
    const all = await this.deps.schedules.listForWorkspace(caller.workspaceId);
    return this.deps.access.visibleIn(caller, all);
  }

  /** Operators only: stops the one schedule whose id starts with `prefix` (as `/cdn report list` shows). */
  async stopByPrefix(caller: Caller, prefix: string): Promise<Schedule> {
    await this.deps.access.requireOperator(caller, 'manage_reports');
    const wanted = prefix.toLowerCase();
    const matches = (await this.deps.schedules.listForWorkspace(caller.workspaceId)).filter(
      (schedule) => wanted.length >= MIN_PREFIX && schedule.id.startsWith(wanted),
    );
    const [only] = matches;
    if (matches.length !== 1 || !only) throw new AppError({ code: 'report_not_found', prefix });
    return this.#stop(caller, only);
  }

  /** Operators only: stops a schedule by its id (the App Home's Stop button). */
  async stop(caller: Caller, id: string): Promise<Schedule> {
    await this.deps.access.requireOperator(caller, 'manage_reports');
    const schedule = await this.deps.schedules.get(id);
    if (!schedule || schedule.workspaceId !== caller.workspaceId)
      throw new AppError({ code: 'report_already_stopped' });
    return this.#stop(caller, schedule);
  }

  async #stop(caller: Caller, schedule: Schedule): Promise<Schedule> {
    if (!(await this.deps.schedules.stop(schedule.id, caller.workspaceId)))
      throw new AppError({ code: 'report_already_stopped' });
    await this.#audit(caller, schedule, 'report.stopped', {});
    return schedule;
  }

  async #audit(
    caller: Caller,
    schedule: Schedule,
    action: string,
    detail: Record<string, unknown>,
  ) {
    await this.deps.audit.record({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action,
      zoneId: schedule.zoneId,
      zoneName: schedule.zoneName,
      outcome: 'ok',
      detail: { schedule: schedule.id, ...detail },
    });
  }
}
