// Purges held for their requester's word: a request naming a zone that does not serve some of its
// URLs purges the rest only once the requester confirms. The held purge is a job of the store,
// waiting until it lapses, so any replica can confirm it after a restart; the first decision is a
// job stored under the hold's own key (the purge itself, or a cancel marker), so a second click,
// a retried delivery or a race between Confirm and Cancel never purges twice nor after a cancel.
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { JobKind, JobRunner } from '../../jobs/runner.js';
import type { Store } from '../../store/index.js';
import type { Caller } from '../access/access.js';
import type { ReplyTo } from '../reply.js';
import { PURGE_JOB } from './purge-job.js';
import type { CheckedPlan, PurgeService } from './purge-plan.js';
import type { ElsewhereUrl, PurgeGroup } from './purge-targets.js';

export const PURGE_HOLD_JOB = 'purge_hold';

/** How long a held purge waits for its requester's word before it lapses. */
export const PURGE_HOLD_MS = 15 * 60_000;

interface HoldPayload {
  actorId: string;
  groups: PurgeGroup[];
  elsewhere: ElsewhereUrl[];
  fromDefault?: boolean;
  /** The marker a cancel leaves under the hold's key: it holds nothing. */
  cancelled?: true;
}

/** A held purge, as its confirmation shows it. */
export interface HeldPurge {
  id: string;
  actorId: string;
  /** The zone named: what confirming purges, all of it on this zone. */
  zoneName: string;
  /** URLs and tags purged if confirmed. */
  count: number;
  elsewhere: ElsewhereUrl[];
  fromDefault?: boolean;
  expiresAt: number;
}

/** The key the first decision on hold `id` is stored under. */
const decisionKey = (id: string) => `purge-hold-decision:${id}`;

export class PurgeHoldService {
  constructor(
    private readonly deps: {
      store: Store;
      runner: JobRunner;
      purges: PurgeService;
      clock: Clock;
    },
  ) {}

  /**
   * Holds the purge of a plan with URLs set aside (`plan.elsewhere`) until its requester confirms
   * or cancels; nothing is sent now. The plan was checked for its caller as it was made
   * (PurgeService.plan). With a `key` already used (a pick of the account continued twice),
   * nothing new is held: `created` false.
   */
  async hold(
    plan: CheckedPlan,
    options: { key?: string } = {},
  ): Promise<HeldPurge & { created: boolean }> {
    const { caller } = plan.checkedFor;
    const payload: HoldPayload = {
      actorId: caller.userId,
      groups: plan.groups,
      elsewhere: plan.elsewhere,
      ...(plan.fromDefault ? { fromDefault: true } : {}),
    };
    const { job, created } = await this.deps.runner.enqueue({
      workspaceId: caller.workspaceId,
      kind: PURGE_HOLD_JOB,
      payload,
      // It runs when it lapses, and then only ends.
      runAt: this.deps.clock.now() + PURGE_HOLD_MS,
      ...(options.key ? { key: options.key } : {}),
    });
    return { ...heldOf(job.id, payload, job.runAt), created };
  }

  /** The held purge `id`, if this caller may still decide it; otherwise AppError saying why. */
  async held(caller: Caller, id: string): Promise<HeldPurge & { groups: PurgeGroup[] }> {
    const { store, clock } = this.deps;
    const job = await store.jobs.get(id);
    const payload = job?.payload as HoldPayload | undefined;
    if (
      !job ||
      !payload ||
      job.kind !== PURGE_HOLD_JOB ||
      job.workspaceId !== caller.workspaceId ||
      payload.cancelled
    )
      throw new AppError({ code: 'purge_hold_unknown' });
    if (caller.userId !== payload.actorId) throw new AppError({ code: 'not_purge_requester' });
    const decision = await store.jobs.byKey(decisionKey(id));
    if (decision) throw closed(decision.kind);
    if (job.state !== 'queued' || job.runAt <= clock.now())
      throw new AppError({ code: 'purge_hold_closed', status: 'expired' });
    return { ...heldOf(job.id, payload, job.runAt), groups: payload.groups };
  }

  /**
   * Starts the held purge, once, for its requester, if they may still purge from `channelId`
   * (checked again: access or the purge channels may have changed meanwhile), counted against
   * their flood limit; `replyTo` is where its progress goes.
   */
  async confirm(
    caller: Caller,
    channelId: string | undefined,
    id: string,
    replyTo: ReplyTo,
  ): Promise<HeldPurge> {
    const held = await this.held(caller, id);
    const purge = await this.deps.purges.check(caller, channelId, held.groups, held);
    const started = await this.deps.purges.start(purge, replyTo, { key: decisionKey(id) });
    if (!started.created) throw closed(started.kind);
    return held;
  }

  /** Drops the held purge for its requester: nothing of it is sent, ever. */
  async cancel(caller: Caller, id: string): Promise<HeldPurge> {
    const held = await this.held(caller, id);
    const marker: HoldPayload = {
      actorId: caller.userId,
      groups: [],
      elsewhere: [],
      cancelled: true,
    };
    const { job, created } = await this.deps.runner.enqueue({
      workspaceId: caller.workspaceId,
      kind: PURGE_HOLD_JOB,
      key: decisionKey(id),
      payload: marker,
    });
    if (!created) throw closed(job.kind);
    return held;
  }

  /** A hold (or a cancel marker) runs when it lapses and only ends: there is nothing to send. */
  readonly job: JobKind<HoldPayload> = {
    concurrency: 4,
    run: async () => 'done',
  };
}

function heldOf(id: string, payload: HoldPayload, expiresAt: number): HeldPurge {
  const [group] = payload.groups;
  return {
    id,
    actorId: payload.actorId,
    zoneName: group?.zone.name ?? '',
    count: payload.groups.reduce((sum, g) => sum + g.files.length + g.tags.length, 0),
    elsewhere: payload.elsewhere,
    ...(payload.fromDefault ? { fromDefault: true } : {}),
    expiresAt,
  };
}

/** What the first decision on a hold was, as the refusal of a later one. */
function closed(decisionKind: string): AppError {
  return new AppError({
    code: 'purge_hold_closed',
    status: decisionKind === PURGE_JOB ? 'confirmed' : 'cancelled',
  });
}
