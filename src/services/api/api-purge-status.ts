// What GET /api/v1/purges/{id} answers: a purge's state from its record, or for a purge of
// everything from its approval and the clock; `scheduled` while one asked for later waits for its
// time; the warming of one asked with `warm`.
import type { Clock } from '../../clock.js';
import type { ApiPurge, ApiPurgeKind, ApiPurgeStatus } from '../../store/api-purges.js';
import { FINAL_STATUSES } from '../../store/api-purges.js';
import type { Approval } from '../../store/approvals.js';
import type { Store } from '../../store/index.js';
import { scheduledApiKey } from '../purge/scheduled-purges.js';
import { WARM_JOB_KEY } from '../verify/verify-job.js';
import { apiPurgeJobKey } from './api-purge-job.js';

/**
 * What the API says of a purge: as stored, or `scheduled` while one asked with a future
 * `not_before` waits for its time (then `queued`, `waiting_for_approval` or `running` as any).
 */
export type ApiStatus = ApiPurgeStatus | 'scheduled';

/** What GET /api/v1/purges/{id} answers (the contract in docs/api.md). */
export interface ApiPurgeState {
  id: string;
  status: ApiStatus;
  /**
   * Asked with `not_before`: the time it runs at (RFC 3339, UTC), said while it waits for it (a
   * purge of everything: throughout, read from its approval).
   */
  not_before?: string;
  zone: string;
  /** The zone's CDN account, by name. */
  account: string;
  kind: ApiPurgeKind;
  progress: { done: number; total: number };
  /** The Slack user id of the person who approved a purge of everything. */
  approved_by?: string;
  /** Asked with `warm`: the warming of its URLs, once the purge is done. */
  warm?: { done: boolean; warmed: number; cached: number };
  error?: string;
}

/**
 * The purge as the API shows it. `asked`: just stored by this request, whose `not_before` is
 * known (a queued purge's scheduled job is then not looked for).
 */
export async function apiPurgeState(
  deps: { store: Store; clock: Clock },
  purge: ApiPurge,
  asked?: { notBefore: number | undefined },
): Promise<ApiPurgeState> {
  const base = {
    id: purge.id,
    zone: purge.zoneName,
    account: purge.accountName,
    kind: purge.kind,
    progress: { done: purge.done, total: purge.total },
  };
  // Cancelled or refused at its time, a scheduled purge of everything is final in its record.
  if (
    purge.kind !== 'everything' ||
    purge.approvalId === null ||
    FINAL_STATUSES.has(purge.status)
  ) {
    const warm = purge.status === 'succeeded' ? await warmOf(deps.store, purge.id) : undefined;
    const scheduled =
      purge.status !== 'queued'
        ? undefined
        : asked
          ? asked.notBefore === undefined
            ? undefined
            : { dueAt: asked.notBefore, waiting: true }
          : await scheduledOf(deps.store, purge.id);
    return {
      ...base,
      status: scheduled?.waiting ? 'scheduled' : purge.status,
      ...(scheduled ? { not_before: new Date(scheduled.dueAt).toISOString() } : {}),
      ...(warm ? { warm } : {}),
      ...(purge.error ? { error: purge.error } : {}),
    };
  }
  const approval = await deps.store.approvals.get(purge.approvalId);
  if (!approval) return { ...base, status: 'failed', error: 'the approval request is gone' };
  return {
    ...base,
    ...(approval.notBefore === undefined
      ? {}
      : { not_before: new Date(approval.notBefore).toISOString() }),
    ...approvalState(approval, deps.clock.now()),
  };
}

/** A purge of URLs or tags asked for later: when, and whether its time is still to come. */
async function scheduledOf(
  store: Store,
  purgeId: string,
): Promise<{ dueAt: number; waiting: boolean } | undefined> {
  const job = await store.jobs.byKey(scheduledApiKey(purgeId));
  const dueAt = (job?.payload as { dueAt?: unknown } | undefined)?.dueAt;
  if (!job || typeof dueAt !== 'number') return undefined;
  return { dueAt, waiting: job.state === 'queued' };
}

/** A purge asked with `warm`: how its warming stands (its job's steps), else undefined. */
async function warmOf(store: Store, purgeId: string): Promise<ApiPurgeState['warm']> {
  const { jobs } = store;
  const job = await jobs.byKey(apiPurgeJobKey(purgeId));
  if (!job || (job.payload as { warm?: boolean }).warm !== true) return undefined;
  const warming = await jobs.byKey(WARM_JOB_KEY(`${job.id}-0`));
  if (!warming) return { done: false, warmed: 0, cached: 0 };
  const steps = await jobs.steps<unknown, { verdict?: string }>(warming.id);
  return {
    done: warming.state === 'succeeded' || warming.state === 'failed',
    warmed: steps.filter((step) => step.result !== undefined).length,
    cached: steps.filter((step) => step.result?.verdict === 'cached').length,
  };
}

/** A purge of everything's status, read from its approval (expired as soon as its time is up). */
function approvalState(
  approval: Approval,
  now: number,
): {
  status: ApiStatus;
  progress?: { done: number; total: number };
  approved_by?: string;
  error?: string;
} {
  switch (approval.status) {
    case 'pending':
      return { status: approval.expiresAt <= now ? 'expired' : 'waiting_for_approval' };
    case 'expired':
      return { status: 'expired' };
    case 'denied':
      return {
        status: 'rejected',
        error: approval.decisionNote ? `denied: ${approval.decisionNote}` : 'denied',
      };
    case 'cancelled':
      return { status: 'rejected', error: approval.decisionNote ?? 'cancelled' };
    case 'approved': {
      const by = approval.decidedBy ? { approved_by: approval.decidedBy } : {};
      // Approved ahead of its time: it runs then.
      if (approval.outcome === null && approval.notBefore !== undefined && now < approval.notBefore)
        return { status: 'scheduled', ...by };
      if (approval.outcome === null) return { status: 'running', ...by };
      return {
        status: approval.outcome,
        ...by,
        progress: { done: approval.outcome === 'succeeded' ? 1 : 0, total: 1 },
        ...(approval.outcome !== 'succeeded' && approval.outcomeDetail
          ? { error: approval.outcomeDetail }
          : {}),
      };
    }
  }
}
