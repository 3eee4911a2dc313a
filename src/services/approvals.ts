// Purge-everything with two people: a request, one approval, and the purge exactly once. State
// lives in the store (conditional updates), so races, replicas and restarts cannot run it twice.
import { CdnError } from '../cdn/errors.js';
import type { Zone } from '../cdn/schemas.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Approval } from '../store/approvals.js';
import type { Store } from '../store/index.js';
import type { CdnAccess } from './cdn-access.js';

/** How the request message is kept current; implemented over the Slack Web API. */
export interface ApprovalNotifier {
  /** Posts the request; returns the message ts. Throws AppError when it cannot post there. */
  posted(approval: Approval, details: { cacheHitRate?: number }): Promise<string>;
  /** Re-renders the request message after a change. */
  changed(approval: Approval, details?: { purging?: boolean }): Promise<void>;
}

export type Decided =
  | { won: true; approval: Approval }
  | { won: false; current: Approval | undefined };

export class ApprovalService {
  constructor(
    private readonly store: Store,
    private readonly cdn: CdnAccess,
    private readonly notifier: ApprovalNotifier,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async request(
    workspaceId: string,
    input: { zone: Zone; requesterId: string; reason: string; channelId: string },
  ): Promise<Approval> {
    const workspace = await this.store.workspaces.ensure(workspaceId);
    const approval = await this.store.approvals.create({
      workspaceId,
      zoneId: input.zone.id,
      zoneName: input.zone.name,
      requesterId: input.requesterId,
      reason: input.reason,
      channelId: input.channelId,
      ttlMs: workspace.approvalTtlMinutes * 60_000,
    });
    const cacheHitRate = await this.#hitRate(workspaceId, input.zone.id);
    let ts: string;
    try {
      ts = await this.notifier.posted(approval, cacheHitRate === undefined ? {} : { cacheHitRate });
    } catch (error) {
      // A request nobody can see must not linger as pending.
      await this.store.approvals.decide(approval.id, 'cancelled', {
        userId: input.requesterId,
        note: 'not posted',
      });
      throw error;
    }
    await this.store.approvals.setMessage(approval.id, input.channelId, ts);
    await this.#audit(approval, input.requesterId, 'purge.everything.requested', 'ok', {
      reason: input.reason,
    });
    return { ...approval, channelId: input.channelId, messageTs: ts };
  }

  /** Moves the request out of pending for the one caller that wins; everyone else learns why not. */
  async decide(
    id: string,
    decision: 'approved' | 'denied' | 'cancelled',
    by: { userId: string; note?: string },
  ): Promise<Decided> {
    const approval = await this.store.approvals.decide(id, decision, by);
    if (approval) return { won: true, approval };
    const current = await this.store.approvals.get(id);
    if (current?.status === 'pending' && current.expiresAt <= this.clock.now()) {
      await this.expireDue();
      return { won: false, current: await this.store.approvals.get(id) };
    }
    return { won: false, current };
  }

  /** After an approval won: purge everything, once, and say how it went. */
  async execute(approval: Approval): Promise<void> {
    await this.#safely(() => this.notifier.changed(approval, { purging: true }));
    let outcome: { succeeded: boolean; purgeId?: string; detail?: string };
    try {
      const client = await this.cdn.clientFor(approval.workspaceId);
      const report = await client.purge(approval.zoneId, { everything: true });
      const result = report.results[0];
      outcome =
        result?.ok === true
          ? { succeeded: true, ...(result.purgeId ? { purgeId: result.purgeId } : {}) }
          : { succeeded: false, detail: result?.ok === false ? result.error.message : 'no result' };
    } catch (error) {
      if (!(error instanceof AppError) && !(error instanceof CdnError)) throw error;
      outcome = { succeeded: false, detail: error.message };
    }
    await this.store.approvals.recordOutcome(approval.id, outcome);
    const final = (await this.store.approvals.get(approval.id)) ?? approval;
    await this.#audit(
      final,
      approval.decidedBy ?? '',
      'purge.everything',
      outcome.succeeded ? 'ok' : 'failed',
      {
        requestedBy: approval.requesterId,
        ...(outcome.purgeId ? { purgeId: outcome.purgeId } : {}),
        ...(outcome.detail ? { error: outcome.detail } : {}),
      },
    );
    await this.#safely(() => this.notifier.changed(final));
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
    await this.#safely(() => this.notifier.changed(approval));
  }

  /** Expires every request whose time is up; each is expired (and announced) by one replica only. */
  async expireDue(): Promise<Approval[]> {
    const expired = await this.store.approvals.expireDue();
    for (const approval of expired) {
      await this.#audit(approval, 'system', 'purge.everything.expired', 'expired', {});
      await this.#safely(() => this.notifier.changed(approval));
    }
    return expired;
  }

  /** Sweeps expired requests every `intervalMs` until the signal aborts. */
  async sweep(signal: AbortSignal, intervalMs = 30_000): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.clock.sleep(intervalMs, signal);
      } catch {
        return;
      }
      await this.expireDue().catch((error: unknown) =>
        this.logger.error({ err: error }, 'approval sweep failed'),
      );
    }
  }

  async #hitRate(workspaceId: string, zoneId: string): Promise<number | undefined> {
    try {
      const client = await this.cdn.clientFor(workspaceId);
      const until = new Date(this.clock.now());
      const since = new Date(until.getTime() - 24 * 3_600_000);
      const traffic = await client.trafficAnalytics(zoneId, { since, until, granularity: 'hour' });
      return traffic.totals.requests > 0 ? traffic.totals.cacheHitRate : undefined;
    } catch (error) {
      this.logger.warn({ err: error, zoneId }, 'no cache hit rate for the approval request');
      return undefined;
    }
  }

  async #audit(
    approval: Approval,
    actorId: string,
    action: string,
    outcome: string,
    detail: Record<string, unknown>,
  ) {
    await this.store.audit.record({
      workspaceId: approval.workspaceId,
      actorId,
      action,
      zoneId: approval.zoneId,
      zoneName: approval.zoneName,
      outcome,
      detail: { approval: approval.id, ...detail },
    });
  }

  /** A message that cannot be updated must not undo a state change that already happened. */
  async #safely(update: () => Promise<void>): Promise<void> {
    await update().catch((error: unknown) =>
      this.logger.warn({ err: error }, 'approval message not updated'),
    );
  }
}
