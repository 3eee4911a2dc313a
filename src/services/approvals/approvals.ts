// Purge-everything with two people: a request, one approval, and the purge exactly once. State
// lives in the store (conditional updates), so races, replicas and restarts cannot run it twice.
// (Just over 400 lines: request, decision and the purge job share one state machine.)
import { CdnError } from '../../cdn/errors.js';
import { outcomeUnknown } from '../../cdn/outcome.js';
import type { Zone } from '../../cdn/schemas.js';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import { type JobContext, type JobKind, type JobRunner, retryDelay } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { ApiRequester, Approval } from '../../store/approvals.js';
import type { NewJob } from '../../store/jobs.js';

export type { Approval };

import type { Store } from '../../store/index.js';
import type { AccessService, Caller } from '../access/access.js';
import type { ChangeRateLimit } from '../access/change-rate-limit.js';
import type { ChannelService } from '../access/channels.js';
import type { CdnAccess } from '../accounts/cdn-access.js';
import type { FreezeGate } from '../freezes/gate.js';

/** How the request message is kept current; implemented over the Slack Web API. */
export interface ApprovalNotifier {
  /** Posts the request; returns the message ts. Throws AppError when it cannot post there. */
  posted(approval: Approval, details: { cacheHitRate?: number }): Promise<string>;
  /** Re-renders the request message after a change. */
  changed(approval: Approval, details?: { purging?: boolean }): Promise<void>;
  /** Whether a failure to update may pass by itself (Slack slow, down or rate limiting). */
  transient(error: unknown): boolean;
  /** How long Slack asked to wait before the next try (a 429's Retry-After), if it did. */
  retryAfterMs(error: unknown): number | undefined;
  /** A link to the request message, when it can be had. */
  link(approval: Approval): Promise<string | undefined>;
  /** Whether a failure says the request message is gone (deleted by a person, or its channel). */
  gone(error: unknown): boolean;
}

export type Decided =
  | { won: true; approval: Approval }
  | { won: false; current: Approval | undefined };

export const PURGE_EVERYTHING_JOB = 'purge_everything';

export interface PurgeEverythingPayload {
  approvalId: string;
}

/** The job that shows a request closed outside a click (its account removed) on its message. */
export const APPROVAL_MESSAGE_JOB = 'approval_message';

export interface ApprovalMessagePayload {
  approvalId: string;
}

export interface ApprovalServiceOptions {
  /** Runs the approved purges durably. */
  runner: JobRunner;
  store: Store;
  cdn: CdnAccess;
  access: AccessService;
  channels: ChannelService;
  flood: ChangeRateLimit;
  notifier: ApprovalNotifier;
  /** Change freezes: a purge of everything asked during one needs an approved exception. */
  freezes?: FreezeGate;
  clock: Clock;
  logger: Logger;
}

export class ApprovalService {
  constructor(private readonly options: ApprovalServiceOptions) {}

  /**
   * Operators only, from a channel purges may be run from, counted against the flood limit:
   * checked before the confirmation form of a purge-everything request closes.
   */
  async prepareRequest(caller: Caller, channelId: string, accountId?: string): Promise<void> {
    await this.options.access.requireOperator(caller, 'purge', accountId);
    await this.options.channels.requirePurgeChannel(caller, channelId);
    await this.options.flood.take(caller.workspaceId, caller.userId);
  }

  /**
   * The name of the zone's account, for the request to say whose zone would be emptied: as the
   * zone was found among accounts, else its account's when the workspace has several; none when
   * there is only one (nothing to tell apart).
   */
  async #accountName(
    workspaceId: string,
    zone: Pick<Zone, 'accountName'>,
    accountId: string,
  ): Promise<string | undefined> {
    if (zone.accountName) return zone.accountName;
    const accounts = await this.options.store.accounts.list(workspaceId);
    return accounts.length > 1 ? accounts.find((a) => a.id === accountId)?.name : undefined;
  }

  /** The request, if it can still be decided; otherwise AppError saying what became of it. */
  async pending(workspaceId: string, id: string): Promise<Approval> {
    const approval = await this.options.store.approvals.get(id);
    if (!approval || approval.workspaceId !== workspaceId)
      throw new AppError({ code: 'approval_unknown' });
    if (approval.status === 'pending' && approval.expiresAt <= this.options.clock.now()) {
      await this.expireDue();
      throw new AppError({ code: 'approval_closed', status: 'expired' });
    }
    if (approval.accountRemoved) {
      const account = accountOf(approval);
      throw new AppError({
        code: 'approval_account_removed',
        by: approval.decidedBy ?? 'system',
        ...(account === undefined ? {} : { account }),
      });
    }
    if (approval.status !== 'pending')
      throw new AppError({ code: 'approval_closed', status: approval.status });
    return approval;
  }

  /** A pending request the caller may decide (Approve… and Deny… open their modal for it). */
  async decidable(caller: Caller, id: string): Promise<Approval> {
    const approval = await this.pending(caller.workspaceId, id);
    // Per account: an approver holds the role on the account of the zone.
    await this.options.access.requireApprover(caller, approval.requesterId, approval.accountId);
    // Asked over the API: the person the CI names as its actor (found by e-mail) is the requester.
    if (approval.api?.actorUserId !== undefined && approval.api.actorUserId === caller.userId)
      throw new AppError({ code: 'self_approval' });
    return approval;
  }

  /**
   * Approves for an eligible caller, if this caller wins the request; `execute` then purges.
   * Checked again here: the modal may have stayed open a while.
   */
  async approve(caller: Caller, id: string): Promise<Approval> {
    const approval = await this.decidable(caller, id);
    await this.#requireNotFrozenSince(approval);
    return this.#requireDecided(
      await this.decide(approval.id, 'approved', { userId: caller.userId }),
    );
  }

  /** Denies for an eligible caller, if this caller wins the request; `closed` then says so. */
  async deny(caller: Caller, id: string, reason: string): Promise<Approval> {
    const approval = await this.decidable(caller, id);
    return this.#requireDecided(
      await this.decide(approval.id, 'denied', { userId: caller.userId, note: reason }),
    );
  }

  /** The requester takes the request back. */
  async cancel(caller: Caller, id: string): Promise<Approval> {
    const approval = await this.pending(caller.workspaceId, id);
    if (caller.userId !== approval.requesterId) throw new AppError({ code: 'not_requester' });
    const cancelled = this.#requireDecided(
      await this.decide(approval.id, 'cancelled', { userId: caller.userId }),
      'status',
    );
    await this.closed(cancelled);
    return cancelled;
  }

  /**
   * A request asked before a freeze window started over its zone is not approved during it: it
   * passed no freeze check (one asked during the window did, or used its exception then).
   */
  async #requireNotFrozenSince(approval: Approval): Promise<void> {
    const blocking =
      (await this.options.freezes?.blocking({
        workspaceId: approval.workspaceId,
        actorId: approval.requesterId,
        action: 'everything',
        zone: {
          id: approval.zoneId,
          name: approval.zoneName,
          accountId: approval.accountId,
        },
      })) ?? [];
    const since = blocking.find((b) => b.window.start > approval.createdAt);
    if (since)
      throw new AppError({
        code: 'frozen',
        action: 'everything',
        freezeId: since.freeze.id,
        target: since.freeze.targetName,
        reason: since.freeze.reason,
        endsAt: since.window.end,
        timeZone: since.freeze.timeZone,
      });
  }

  /** The approval as this caller decided it; a decider who lost the race is told why not. */
  #requireDecided(decided: Decided, says: 'meanwhile' | 'status' = 'meanwhile'): Approval {
    if (decided.won) return decided.approval;
    const status = decided.current?.status;
    throw new AppError(
      says === 'status' && status && status !== 'pending'
        ? { code: 'approval_closed', status }
        : { code: 'approval_decided_meanwhile' },
    );
  }

  /** Posts a request for a second person; a zone with an open request is pointed at it instead. */
  async request(
    workspaceId: string,
    input: {
      zone: Zone;
      requesterId: string;
      reason: string;
      channelId: string;
      /** How long it may wait for a second person; default: the workspace's setting. */
      ttlMs?: number;
      /** Asked for over the HTTP API: the token and the CI's actor. */
      api?: ApiRequester;
      /** An unseen open request was cancelled for this one (it is not done twice). */
      replaced?: boolean;
      /** For a later time: approved, it waits till then (see `execute`). */
      notBefore?: number;
    },
  ): Promise<Approval> {
    const workspace = await this.options.store.workspaces.ensure(workspaceId);
    // Asked in Slack during a freeze: refused, or let through by the requester's exception (used
    // up here). The HTTP API checks freezes itself, before it stores anything.
    if (!input.api)
      await this.options.freezes?.require({
        workspaceId,
        actorId: input.requesterId,
        action: 'everything',
        zone: input.zone,
      });
    // Each account's zone has its own open request.
    const { accountId } = input.zone;
    const accountName = await this.#accountName(workspaceId, input.zone, accountId);
    const made = await this.options.store.approvals.create({
      workspaceId,
      accountId,
      ...(accountName ? { accountName } : {}),
      zoneId: input.zone.id,
      zoneName: input.zone.name,
      requesterId: input.requesterId,
      reason: input.reason,
      channelId: input.channelId,
      ttlMs: input.ttlMs ?? workspace.approvalTtlMinutes * 60_000,
      ...(input.api ? { api: input.api } : {}),
      ...(input.notBefore === undefined ? {} : { notBefore: input.notBefore }),
    });
    if ('pending' in made) {
      let link: string | undefined;
      try {
        link = await this.options.notifier.link(made.pending);
      } catch (error) {
        // Nobody can see or decide that request any more: it is cancelled, and this one asked.
        if (this.options.notifier.gone(error) && !input.replaced) {
          await this.#cancelUnseen(made.pending);
          return this.request(workspaceId, { ...input, replaced: true });
        }
      }
      throw new AppError({
        code: 'approval_pending',
        zoneName: made.pending.zoneName,
        channelId: made.pending.channelId,
        ...(link ? { link } : {}),
      });
    }
    const approval = made.created;
    const cacheHitRate = await this.#hitRate(workspaceId, input.zone.id, input.zone.accountId);
    let ts: string;
    try {
      ts = await this.options.notifier.posted(
        approval,
        cacheHitRate === undefined ? {} : { cacheHitRate },
      );
    } catch (error) {
      // A request nobody can see must not linger as pending.
      await this.options.store.approvals.decide(approval.id, 'cancelled', {
        userId: input.requesterId,
        note: 'not posted',
      });
      throw error;
    }
    await this.options.store.approvals.setMessage(approval.id, input.channelId, ts);
    await this.#audit(approval, input.requesterId, 'purge.everything.requested', 'ok', {
      reason: input.reason,
      ...(input.api?.actor !== undefined ? { actor: input.api.actor } : {}),
    });
    return { ...approval, channelId: input.channelId, messageTs: ts };
  }

  /** Cancels an open request whose message is gone, so that it holds its zone no longer. */
  async #cancelUnseen(pending: Approval): Promise<void> {
    const cancelled = await this.options.store.approvals.decide(pending.id, 'cancelled', {
      userId: pending.requesterId,
      note: 'request message deleted',
    });
    if (cancelled)
      await this.#audit(cancelled, 'system', 'purge.everything.cancelled', 'ok', {
        reason: 'message_deleted',
      });
  }

  /** Moves the request out of pending for the one caller that wins; everyone else learns why not. */
  async decide(
    id: string,
    decision: 'approved' | 'denied' | 'cancelled',
    by: { userId: string; note?: string },
  ): Promise<Decided> {
    const approval = await this.options.store.approvals.decide(id, decision, by);
    if (approval) return { won: true, approval };
    const current = await this.options.store.approvals.get(id);
    if (current?.status === 'pending' && current.expiresAt <= this.options.clock.now()) {
      await this.expireDue();
      return { won: false, current: await this.options.store.approvals.get(id) };
    }
    return { won: false, current };
  }

  /**
   * After an approval won: the purge becomes a durable job (keyed by the approval, so a replayed
   * approval enqueues nothing new), which any replica finishes if this one dies.
   */
  async execute(approval: Approval): Promise<void> {
    // A request for a later time is run then by its scheduled purge's job (`runScheduled`), once
    // that job has checked the requester, the channel and the change window again.
    // Its message says when it will run, said by a job of its own (any replica, after the ack).
    if (approval.notBefore !== undefined) {
      await this.options.runner.enqueue(this.messageJob(approval));
      return;
    }
    await this.#enqueue(approval);
  }

  /** A scheduled purge-everything, approved and due, checked again: its purge job, stored once. */
  async runScheduled(approval: Approval): Promise<void> {
    await this.#enqueue(approval);
  }

  #enqueue(approval: Approval) {
    return this.options.runner.enqueue({
      workspaceId: approval.workspaceId,
      kind: PURGE_EVERYTHING_JOB,
      key: `approval:${approval.id}`,
      payload: { approvalId: approval.id } satisfies PurgeEverythingPayload,
    });
  }

  /**
   * The purge-everything job: at most one call to the CDN per approval. The attempt is recorded
   * before the call; an attempt that finds it recorded without an outcome (the process died in
   * the call) reports the outcome as unknown instead of calling again. So does a call that timed
   * out or lost its connection: the CDN may have purged, and only a fresh approval runs it again.
   */
  readonly job: JobKind<PurgeEverythingPayload, { calling?: boolean }> = {
    concurrency: 4,
    run: async (context) => {
      const approval = await this.options.store.approvals.get(context.job.payload.approvalId);
      if (approval?.status !== 'approved') return 'done';
      if (approval.outcome === null) {
        const outcome = context.job.checkpoint.calling
          ? {
              result: 'unknown' as const,
              detail: 'the bot stopped while the CDN call was in flight',
            }
          : await this.#purgeEverything(approval, context);
        await this.options.store.approvals.recordOutcome(approval.id, outcome);
      }
      // The message that says "Purging everything…" must reach its final state: when Slack fails
      // to take it, the job is tried again later (the outcome is recorded: the CDN is not called
      // again, and the audit entry is keyed).
      const unsent = await this.#finished(approval.id);
      if (!unsent) return 'done';
      const retryInMs = retryDelay(context.job.attempts, {
        baseMs: 2_000,
        maxMs: 60_000,
        askedMs: this.options.notifier.retryAfterMs(unsent.error),
      });
      return { retryInMs, error: 'approval message not updated' };
    },
  };

  /**
   * The job that shows a closed request as it is on its message (no buttons left), and audits a
   * cancellation made by removing its account, once: stored in the transaction that closed it, so
   * any replica finishes it; Slack failing for now only delays it.
   */
  messageJob(approval: Pick<Approval, 'id' | 'workspaceId'>): NewJob {
    return {
      workspaceId: approval.workspaceId,
      kind: APPROVAL_MESSAGE_JOB,
      key: `approval-message:${approval.id}`,
      payload: { approvalId: approval.id } satisfies ApprovalMessagePayload,
    };
  }

  /** After message jobs were stored (`messageJob`): this replica's runner looks for them now. */
  messagesStored(): void {
    this.options.runner.lookNow(APPROVAL_MESSAGE_JOB);
  }

  readonly messages: JobKind<ApprovalMessagePayload> = {
    concurrency: 2,
    run: async (context) => {
      const { store, notifier, logger } = this.options;
      const approval = await store.approvals.get(context.job.payload.approvalId);
      if (!approval || approval.status === 'pending') return 'done';
      if (approval.accountRemoved)
        await this.#audit(
          approval,
          approval.decidedBy ?? 'system',
          'purge.everything.cancelled',
          'ok',
          { reason: 'account_removed' },
          `purge.everything.cancelled:${approval.id}`,
        );
      try {
        await notifier.changed(approval);
        return 'done';
      } catch (error) {
        logger.warn({ err: error, approval: approval.id }, 'approval message not updated');
        if (!notifier.transient(error)) return 'done';
        const retryInMs = retryDelay(context.job.attempts, {
          baseMs: 2_000,
          maxMs: 60_000,
          askedMs: notifier.retryAfterMs(error),
        });
        return { retryInMs, error: 'approval message not updated' };
      }
    },
  };

  async #purgeEverything(
    approval: Approval,
    context: JobContext<PurgeEverythingPayload, { calling?: boolean }>,
  ): Promise<{ result: 'succeeded' | 'failed' | 'unknown'; purgeId?: string; detail?: string }> {
    await this.#safely(() => this.options.notifier.changed(approval, { purging: true }));
    await context.checkpoint({ calling: true });
    try {
      // The approval's own account.
      const client = await this.options.cdn.clientFor(
        approval.workspaceId,
        approval.accountId,
        'purge',
      );
      const report = await client.purge(approval.zoneId, { everything: true });
      const result = report.results[0];
      if (result?.ok === true)
        return { result: 'succeeded', ...(result.purgeId ? { purgeId: result.purgeId } : {}) };
      const error = result?.ok === false ? result.error : undefined;
      return {
        result: outcomeUnknown(error) ? 'unknown' : 'failed',
        detail: error?.message ?? 'no result',
      };
    } catch (error) {
      if (!(error instanceof AppError) && !(error instanceof CdnError)) throw error;
      return { result: outcomeUnknown(error) ? 'unknown' : 'failed', detail: error.message };
    }
  }

  /**
   * Audits the outcome (once, keyed) and shows it on the request message; what Slack answered when
   * it did not take the message for now (worth another try), else undefined.
   */
  async #finished(approvalId: string): Promise<{ error: unknown } | undefined> {
    const final = await this.options.store.approvals.get(approvalId);
    if (!final) return undefined;
    const outcome =
      final.outcome === 'succeeded' ? 'ok' : final.outcome === 'unknown' ? 'unknown' : 'failed';
    await this.#audit(
      final,
      final.decidedBy ?? '',
      'purge.everything',
      outcome,
      {
        requestedBy: final.requesterId,
        ...(final.purgeId ? { purgeId: final.purgeId } : {}),
        ...(final.outcomeDetail ? { error: final.outcomeDetail } : {}),
      },
      `purge.everything:${final.id}`,
    );
    try {
      await this.options.notifier.changed(final);
      return undefined;
    } catch (error) {
      this.options.logger.warn({ err: error, approval: final.id }, 'approval message not updated');
      return this.options.notifier.transient(error) ? { error } : undefined;
    }
  }

  /** After a denial or cancellation won: record it and update the message. */
  async closed(approval: Approval): Promise<void> {
    const action =
      approval.status === 'denied' ? 'purge.everything.denied' : 'purge.everything.cancelled';
    await this.#audit(
      approval,
      approval.decidedBy ?? '',
      action,
      'ok',
      approval.decisionNote ? { note: approval.decisionNote } : {},
    );
    await this.#safely(() => this.options.notifier.changed(approval));
  }

  /** Expires every request whose time is up; each is expired (and announced) by one replica only. */
  async expireDue(): Promise<Approval[]> {
    const expired = await this.options.store.approvals.expireDue();
    for (const approval of expired) {
      await this.#audit(approval, 'system', 'purge.everything.expired', 'expired', {});
      await this.#safely(() => this.options.notifier.changed(approval));
    }
    return expired;
  }

  /**
   * Stores a job for each approved purge without an outcome (a process that died between the
   * approval and storing its job). One being stored right now by the replica that approved it is
   * no race: the job is keyed by the approval, so there is one.
   */
  async recover(): Promise<number> {
    const stranded = await this.options.store.approvals.approvedWithoutOutcome(
      this.options.clock.now(),
    );
    let stored = 0;
    for (const approval of stranded) {
      const { created } = await this.#enqueue(approval);
      if (created) {
        stored += 1;
        this.options.logger.warn(
          { approval: approval.id },
          'approved purge had no job; stored now',
        );
      }
    }
    return stored;
  }

  async #hitRate(
    workspaceId: string,
    zoneId: string,
    accountId: string,
  ): Promise<number | undefined> {
    try {
      const client = await this.options.cdn.clientFor(workspaceId, accountId, 'purge');
      const until = new Date(this.options.clock.now());
      const since = new Date(until.getTime() - 24 * 3_600_000);
      const traffic = await client.trafficAnalytics(zoneId, { since, until, granularity: 'hour' });
      return traffic.totals.requests > 0 ? traffic.totals.cacheHitRate : undefined;
    } catch (error) {
      this.options.logger.warn(
        { err: error, zoneId },
        'no cache hit rate for the approval request',
      );
      return undefined;
    }
  }

  async #audit(
    approval: Approval,
    actorId: string,
    action: string,
    outcome: string,
    detail: Record<string, unknown>,
    key?: string,
  ) {
    await this.options.store.audit.record({
      ...(key ? { key } : {}),
      workspaceId: approval.workspaceId,
      actorId,
      action,
      zoneId: approval.zoneId,
      zoneName: approval.zoneName,
      accountId: approval.accountId,
      outcome,
      detail: { approval: approval.id, ...detail },
    });
  }

  /** A message that cannot be updated must not undo a state change that already happened. */
  async #safely(update: () => Promise<void>): Promise<void> {
    await update().catch((error: unknown) =>
      this.options.logger.warn({ err: error }, 'approval message not updated'),
    );
  }
}

/** The name of the request's CDN account, as it recorded it (asked in Slack or over the API). */
function accountOf(approval: Approval): string | undefined {
  return approval.accountName ?? approval.api?.account;
}
