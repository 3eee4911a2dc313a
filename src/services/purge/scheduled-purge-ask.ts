// Asking for a purge at a later time: the time read in the requester's zone, the change limit
// taken now, a purge of everything's approval requested now; stored as a job due then.
import type { Clock } from '../../clock.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { Store } from '../../store/index.js';
import type { Job } from '../../store/jobs.js';
import type { AccessService, Caller } from '../access/access.js';
import type { ChangeRateLimit } from '../access/change-rate-limit.js';
import type { ApprovalService } from '../approvals/approvals.js';
import { knownZone } from '../audit/activity.js';
import type { Zone } from '../zones/zones.js';
import type { CheckedPurge } from './purge-plan.js';
import { resolveSpec, type ScheduleSpec } from './schedule-time.js';
import {
  auditScheduled,
  SCHEDULED_PURGE_JOB,
  type ScheduledApiRef,
  type ScheduledPurge,
  type ScheduledPurgePayload,
  type ScheduledWhat,
  scheduledApiKey,
  viewOf,
} from './scheduled-purge-record.js';

export class ScheduledPurgeAsk {
  constructor(
    private readonly options: {
      approvals: ApprovalService;
      access: AccessService;
      flood: ChangeRateLimit;
      store: Store;
      runner: JobRunner;
      clock: Clock;
    },
  ) {}

  /** The instant `spec` names for the caller (their Slack time zone, else UTC), and that zone. */
  async when(caller: Caller, spec: ScheduleSpec): Promise<{ at: number; timeZone: string }> {
    const timeZone = knownZone(await this.options.access.timeZoneOf(caller).catch(() => 'UTC'));
    return { at: resolveSpec(spec, timeZone, this.options.clock.now()), timeZone };
  }

  /**
   * Stores URL and tag purges of a plan checked as it was made (PurgeService.plan), to run at
   * `spec`'s time. Counted against the caller's change limit now, when it is asked.
   */
  async schedule(
    caller: Caller,
    channelId: string | undefined,
    plan: CheckedPurge,
    spec: ScheduleSpec,
    options: { verify?: boolean } = {},
  ): Promise<ScheduledPurge> {
    const { flood } = this.options;
    const { at, timeZone } = await this.when(caller, spec);
    await flood.take(caller.workspaceId, caller.userId);
    const payload: ScheduledPurgePayload = {
      requesterId: caller.userId,
      ...(channelId ? { channelId } : {}),
      dueAt: at,
      timeZone,
      what: {
        kind: 'items',
        groups: plan.groups.map(({ zone, files, tags }) => ({ zone, files, tags })),
        ...(options.verify ? { verify: true } : {}),
        ...(plan.fromDefault ? { fromDefault: true } : {}),
      },
    };
    return this.#store(caller.workspaceId, payload);
  }

  /**
   * A purge of everything for later: its request is posted now for a second person, and expires
   * at its time; the job due then runs it only if it was approved (ApprovalService.execute leaves
   * a request for later to this job). The caller was checked by ApprovalService.prepareRequest.
   */
  async requestEverything(
    caller: Caller,
    input: { zone: Zone; reason: string; channelId: string; notBefore: number; timeZone?: string },
  ): Promise<ScheduledPurge> {
    const { approvals, clock } = this.options;
    const now = clock.now();
    const at = resolveSpec({ kind: 'instant', at: input.notBefore, text: '' }, 'UTC', now);
    const timeZone =
      input.timeZone ?? knownZone(await this.options.access.timeZoneOf(caller).catch(() => 'UTC'));
    const approval = await approvals.request(caller.workspaceId, {
      zone: input.zone,
      requesterId: caller.userId,
      reason: input.reason,
      channelId: input.channelId,
      ttlMs: at - now,
      notBefore: at,
    });
    return this.#store(
      caller.workspaceId,
      {
        requesterId: caller.userId,
        channelId: input.channelId,
        dueAt: at,
        timeZone,
        what: { kind: 'everything', zone: input.zone, approvalId: approval.id },
      },
      `scheduled-approval:${approval.id}`,
    );
  }

  /**
   * A purge asked over the HTTP API with a future `not_before`, its record stored and checked by
   * ApiPurgeService: stored once per record (keyed), to run at `dueAt`. A purge of everything
   * names its approval request, which must be approved by then.
   */
  async scheduleForApi(
    workspaceId: string,
    input: {
      api: ScheduledApiRef;
      actorId: string;
      channelId?: string | undefined;
      dueAt: number;
      what: ScheduledWhat;
    },
  ): Promise<ScheduledPurge> {
    return this.#store(
      workspaceId,
      {
        requesterId: input.actorId,
        api: input.api,
        ...(input.channelId ? { channelId: input.channelId } : {}),
        dueAt: input.dueAt,
        timeZone: 'UTC',
        what: input.what,
      },
      scheduledApiKey(input.api.purgeId),
    );
  }

  async #store(
    workspaceId: string,
    payload: ScheduledPurgePayload,
    key?: string,
  ): Promise<ScheduledPurge> {
    const { job } = await this.options.runner.enqueue({
      workspaceId,
      kind: SCHEDULED_PURGE_JOB,
      payload,
      runAt: payload.dueAt,
      ...(key ? { key } : {}),
    });
    const purge = viewOf(job as Job<ScheduledPurgePayload>);
    await auditScheduled(
      this.options.store,
      job.id,
      workspaceId,
      payload,
      payload.requesterId,
      'purge.scheduled',
      'ok',
      {
        dueAt: new Date(payload.dueAt).toISOString(),
        timeZone: payload.timeZone,
      },
    );
    return purge;
  }
}
