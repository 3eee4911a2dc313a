// Daily report schedules: create, list and stop, for the command and the App Home alike.

import { safeTimeZone } from '../../charts/format.js';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { Schedule, ScheduleRepository } from '../../store/schedules.js';
import type { WorkspaceRepository } from '../../store/workspaces.js';
import type { Caller } from '../access/access.js';
import { requireOperatorWhere } from '../access/operators.js';
import {
  auditZoneChange,
  newZoneWork,
  visibleZoneWork,
  type ZoneWorkDeps,
  zoneForChannel,
} from '../zones/zone-work.js';
import { nextOccurrence } from './report-times.js';

export interface ReportListing {
  /**
   * The reports of the conversations the caller is in; `keyed`: whether each one's CDN account
   * holds a key (without one, it waits for one).
   */
  schedules: Array<Schedule & { keyed?: boolean }>;
  /** Reports in conversations the caller is not in, left out. */
  hidden: number;
  /** Whether the account `/cdn login` sets has a key. */
  keySet: boolean;
}

/** A schedule is named by at least this many first characters of its id. */
const MIN_PREFIX = 4;

export class ReportScheduleService {
  constructor(
    private readonly deps: ZoneWorkDeps & {
      schedules: ScheduleRepository;
      workspaces: WorkspaceRepository;
      clock: Clock;
    },
  ) {}

  /**
   * Operators of the zone's account only: a daily report of `zone` in `channelId` at `timeOfDay`
   * in the caller's time zone;
   * when that report exists (not stopped), it is returned instead, and nothing is made. A new one
   * is made within the workspace's limits (reports in the workspace and per person), or refused
   * (limit_reached).
   */
  async create(
    caller: Caller,
    input: { zone: string; channelId: string; timeOfDay: string; account?: string },
  ): Promise<{ schedule: Schedule; created: boolean }> {
    await requireOperatorWhere(this.deps, caller, 'manage_reports', input);
    const zone = await zoneForChannel(this.deps, caller.workspaceId, input);
    await this.deps.access.requireOperator(caller, 'manage_reports', zone.accountId);
    // An unknown time zone would make every occurrence unreadable: UTC instead.
    const timeZone = safeTimeZone(await this.deps.access.timeZoneOf(caller));
    const { limits } = await this.deps.workspaces.ensure(caller.workspaceId);
    // The same report live already, or a limit met: decided under the workspace's lock, so two
    // creates at once make one report, and never one past a limit.
    const { schedule, created } = await this.deps.schedules.create(
      {
        ...newZoneWork(caller, zone, input.channelId),
        timeOfDay: input.timeOfDay,
        timeZone,
        nextRunAt: nextOccurrence(input.timeOfDay, timeZone, this.deps.clock.now()),
      },
      limits,
    );
    if (!created) return { schedule, created };
    await this.#audit(caller, schedule, 'report.scheduled', {
      timeOfDay: input.timeOfDay,
      timeZone,
      channel: input.channelId,
    });
    return { schedule, created: true };
  }

  /**
   * Operators among the workspace's full members (never a guest): the reports of the conversations
   * the caller is in, how many others there are, and whether the workspace has a CDN key (without
   * one, none runs until one is set).
   */
  async list(caller: Caller): Promise<ReportListing> {
    const { shown, hidden, keySet } = await visibleZoneWork(
      this.deps,
      caller,
      'manage_reports',
      () => this.deps.schedules.listForWorkspace(caller.workspaceId),
    );
    return { schedules: shown, hidden, keySet };
  }

  /**
   * Operators of its zone's account only: stops the one schedule whose id starts with `prefix` (as
   * `/cdn report list` shows).
   */
  async stopByPrefix(caller: Caller, prefix: string): Promise<Schedule> {
    await requireOperatorWhere(this.deps, caller, 'manage_reports');
    const wanted = prefix.toLowerCase();
    const matches = (await this.deps.schedules.listForWorkspace(caller.workspaceId)).filter(
      (schedule) => wanted.length >= MIN_PREFIX && schedule.id.startsWith(wanted),
    );
    const [only] = matches;
    if (matches.length !== 1 || !only) throw new AppError({ code: 'report_not_found', prefix });
    return this.#stop(caller, only);
  }

  /** Operators of its zone's account only: stops a schedule by id (the App Home's Stop button). */
  async stop(caller: Caller, id: string): Promise<Schedule> {
    const schedule = await this.deps.schedules.get(id);
    if (!schedule || schedule.workspaceId !== caller.workspaceId) {
      // Said only to one who operates some account.
      await requireOperatorWhere(this.deps, caller, 'manage_reports');
      throw new AppError({ code: 'report_already_stopped' });
    }
    return this.#stop(caller, schedule);
  }

  async #stop(caller: Caller, schedule: Schedule): Promise<Schedule> {
    await this.deps.access.requireOperator(caller, 'manage_reports', schedule.accountId);
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
    await auditZoneChange(this.deps.audit, caller, schedule, action, {
      schedule: schedule.id,
      ...detail,
    });
  }
}
