// The purges waiting for their time: listed for those who may read them, shown on the App Home,
// and cancelled by their requester or an admin (found by their id or short id).
import { AppError } from '../../errors.js';
import type { Store } from '../../store/index.js';
import type { Job } from '../../store/jobs.js';
import type { AccessService, Caller } from '../access/access.js';
import type { ApprovalService } from '../approvals/approvals.js';
import { apiPurgesOf, type ScheduledApiPurges } from './scheduled-purge-job.js';
import {
  auditScheduled,
  LIST_LIMIT,
  SCHEDULED_PURGE_JOB,
  type ScheduledPurge,
  type ScheduledPurgePayload,
  viewOf,
} from './scheduled-purge-record.js';

/** How many the App Home shows. */
const HOME_LIMIT = 10;

export class ScheduledPurgeList {
  constructor(
    private readonly options: {
      approvals: ApprovalService;
      access: AccessService;
      store: Store;
      /** The HTTP API's purges, told when one of theirs is cancelled. */
      api?: () => ScheduledApiPurges | undefined;
    },
  ) {}

  /** The workspace's purges waiting for their time, soonest first, that the caller may read. */
  async list(caller: Caller): Promise<{ shown: ScheduledPurge[]; hidden: number }> {
    await this.options.access.requireFullMember(caller, 'read_audit');
    const jobs = await this.options.store.jobs.queuedOf(
      caller.workspaceId,
      SCHEDULED_PURGE_JOB,
      LIST_LIMIT,
    );
    const all = jobs.map((job) => viewOf(job as Job<ScheduledPurgePayload>));
    // One asked in a conversation the caller is not in is counted, not shown.
    const inChannels = all.flatMap((p) => (p.channelId ? [{ ...p, channelId: p.channelId }] : []));
    const { shown, hidden } = await this.options.access.visibleIn(caller, inChannels);
    const own = all.filter((p) => !p.channelId && p.requesterId === caller.userId);
    return {
      shown: [...shown, ...own].sort((a, b) => a.dueAt - b.dueAt),
      hidden: hidden + all.filter((p) => !p.channelId && p.requesterId !== caller.userId).length,
    };
  }

  /**
   * For the App Home: the caller's own purges waiting for their time, or (an admin) every one,
   * soonest first: at most `limit` of the workspace's next LIST_LIMIT, and how many more.
   */
  async forHome(
    caller: Caller,
    limit = HOME_LIMIT,
  ): Promise<{ shown: ScheduledPurge[]; hidden: number; everyone: boolean }> {
    const everyone = await this.options.access.requireAdmin(caller, 'purge').then(
      () => true,
      (error: unknown) => {
        if (error instanceof AppError) return false;
        throw error;
      },
    );
    const jobs = await this.options.store.jobs.queuedOf(
      caller.workspaceId,
      SCHEDULED_PURGE_JOB,
      LIST_LIMIT,
    );
    const mine = jobs
      .map((job) => viewOf(job as Job<ScheduledPurgePayload>))
      .filter((purge) => everyone || purge.requesterId === caller.userId);
    return { shown: mine.slice(0, limit), hidden: Math.max(0, mine.length - limit), everyone };
  }

  /** Cancels a purge still waiting, for its requester or an admin; `id` may be its short id. */
  async cancel(caller: Caller, id: string): Promise<ScheduledPurge> {
    const { store, access } = this.options;
    const job = await this.#find(caller.workspaceId, id.trim());
    const purge = viewOf(job);
    if (purge.requesterId !== caller.userId) {
      await access.requireAdmin(caller, 'purge').catch((error: unknown) => {
        throw error instanceof AppError
          ? new AppError({ code: 'scheduled_purge_not_yours' })
          : error;
      });
    }
    if (!(await store.jobs.cancelQueued(job.id, 'cancelled'))) {
      const now = await store.jobs.get(job.id);
      throw new AppError({
        code: 'scheduled_purge_closed',
        state: now?.state === 'running' ? 'running' : 'over',
      });
    }
    const { what } = job.payload;
    if (what.kind === 'everything') {
      const decided = await this.options.approvals.decide(what.approvalId, 'cancelled', {
        userId: caller.userId,
        note: 'scheduled purge cancelled',
      });
      if (decided.won) await this.options.approvals.closed(decided.approval);
    }
    if (job.payload.api)
      await apiPurgesOf(this.options.api).closeScheduled(
        job.payload.api,
        `cancelled in Slack by ${caller.userId}`,
      );
    await auditScheduled(
      store,
      job.id,
      caller.workspaceId,
      job.payload,
      caller.userId,
      'purge.scheduled.cancelled',
      'ok',
      purge.requesterId === caller.userId ? {} : { requestedBy: purge.requesterId },
    );
    return purge;
  }

  async #find(workspaceId: string, id: string): Promise<Job<ScheduledPurgePayload>> {
    // Its whole id (a button's) first, whatever its length; else a short id, among those waiting.
    const exact = id === '' ? undefined : await this.options.store.jobs.get(id);
    const found =
      exact ??
      (id.length >= 4
        ? (
            await this.options.store.jobs.queuedOf(workspaceId, SCHEDULED_PURGE_JOB, LIST_LIMIT)
          ).find((job) => job.id.startsWith(id.toLowerCase()))
        : undefined);
    if (!found || found.workspaceId !== workspaceId || found.kind !== SCHEDULED_PURGE_JOB)
      throw new AppError({ code: 'scheduled_purge_unknown', id });
    return found as Job<ScheduledPurgePayload>;
  }
}
