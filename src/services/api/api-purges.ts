// Purges asked for over the HTTP API, the one entry the HTTP layer and the app use: a request
// checked (api-purge-plan), stored once per (token, Idempotency-Key), then run as a purge job,
// an approval request or a scheduled purge; read back (api-purge-status, -wait) on any replica.
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { ApiPurge } from '../../store/api-purges.js';
import type { Store } from '../../store/index.js';
import { retryInSeconds, takeRateLimit } from '../../throttles/per-key-rate-limit.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { ApprovalService } from '../approvals/approvals.js';
import type { FreezeGate } from '../freezes/gate.js';
import type { PurgeService } from '../purge/purge-plan.js';
import type { PurgeProgressView } from '../purge/purge-status.js';
import type { PurgeGroup } from '../purge/purge-targets.js';
import type {
  ApiRefusalWords,
  ScheduledApiPurges,
  ScheduledApiRef,
  ScheduledPurgeService,
} from '../purge/scheduled-purges.js';
import type { ZoneService } from '../zones/zones.js';
import { askApiApproval, type PeopleByEmail } from './api-purge-approval.js';
import { apiPurgeProgress, startApiPurgeJob } from './api-purge-job.js';
import {
  type ApiPurgeRequest,
  type ApiPurgeZone,
  checkApiPurge,
  hashBody,
  scheduledRefusal,
} from './api-purge-plan.js';
import { ApiPurgeRecovery } from './api-purge-recovery.js';
import { scheduleApiPurge } from './api-purge-schedule.js';
import { type ApiPurgeState, apiPurgeState } from './api-purge-status.js';
import { ApiPurgeWaits } from './api-purge-wait.js';
import { ApiRefusal } from './api-refusal.js';
import { type ApiToken, tokenActorId } from './api-tokens.js';

export interface ApiPurgeSettings {
  /** Requests a token may make per minute; 0: no limit. */
  requestsPerMinute: number;
  /** How long a purge of everything waits for a second person. */
  approvalTtlMs: number;
  /** URLs or tags one request may name. */
  maxItems: number;
  /** How often a waiting GET reads the store (changes made by other replicas). */
  waitPollMs?: number;
}

/** Purges kept in memory for their Slack message's header (a wave of CI purges, and more). */
const RECORDS_KEPT = 2_000;

export class ApiPurgeService implements ScheduledApiPurges {
  /** Purges this process stored or wrote lately, for `record` (their header never changes). */
  readonly #records = new LRUCache<string, ApiPurge>({ max: RECORDS_KEPT });
  readonly #waits: ApiPurgeWaits;
  readonly #recovery: ApiPurgeRecovery;

  constructor(
    private readonly deps: {
      store: Store;
      zones: ZoneService;
      /** The CDN accounts a token's zone is looked for in. */
      accounts: AccountScopes;
      purges: PurgeService;
      approvals: ApprovalService;
      clock: Clock;
      logger: Logger;
      settings: ApiPurgeSettings;
      /** Who the CI's `context.actor` is in Slack; absent: nobody is mapped. */
      people?: PeopleByEmail;
      /** Change freezes: what they refuse is refused here, before anything is stored. */
      freezes?: FreezeGate;
      /** Purges for a later time (`not_before`); absent: `not_before` is refused. */
      scheduled?: ScheduledPurgeService;
    },
  ) {
    this.#waits = new ApiPurgeWaits({
      store: deps.store,
      logger: deps.logger,
      pollMs: deps.settings.waitPollMs ?? 500,
    });
    this.#recovery = new ApiPurgeRecovery(deps);
  }

  /**
   * Counts one request of the token against its rate limit (API_RATE_LIMIT_PER_MINUTE, a per-key
   * rate limit); ApiRefusal `rate_limited` past it.
   */
  async takeRequest(token: ApiToken): Promise<void> {
    const perMinute = this.deps.settings.requestsPerMinute;
    const waitMs = await takeRateLimit(
      this.deps.store.rateSlots,
      `api-token:${token.id}`,
      perMinute,
      60_000,
    );
    if (waitMs > 0)
      throw new ApiRefusal('rate_limited', `at most ${perMinute} requests a minute per token`, {
        retryAfterSeconds: retryInSeconds(waitMs),
      });
  }

  /**
   * Starts the purge (or, with a key this token used before for the same body, returns the one
   * it started then). A request refused here stores nothing.
   */
  async create(
    token: ApiToken,
    request: ApiPurgeRequest,
    idempotencyKey: string | undefined,
  ): Promise<{ state: ApiPurgeState; created: boolean }> {
    const bodyHash = hashBody(request);
    if (idempotencyKey !== undefined) {
      // Asked before: the same purge, or a conflict; nothing is checked or started again.
      const earlier = await this.deps.store.apiPurges.byKey(token.id, idempotencyKey);
      if (earlier) return { state: await this.#replayed(earlier, bodyHash), created: false };
    }
    const { kind, items, target, group, notBefore } = await checkApiPurge(
      this.deps,
      token,
      request,
    );
    const { zone } = target;
    const { purge, created } = await this.deps.store.apiPurges.insertOrGet({
      workspaceId: token.workspaceId,
      tokenId: token.id,
      tokenName: token.name,
      idempotencyKey: idempotencyKey ?? null,
      bodyHash,
      zoneId: zone.id,
      zoneName: zone.name,
      accountId: target.accountId,
      accountName: target.accountName,
      kind,
      status: kind === 'everything' ? 'waiting_for_approval' : 'queued',
      total: group ? group.files.length + group.tags.length : 1,
      reason: request.reason ?? null,
      context: request.context ?? null,
    });
    // Another replica stored the same key a moment ago: its purge is this one.
    if (!created) return { state: await this.#replayed(purge, bodyHash), created: false };
    try {
      if (notBefore !== undefined)
        await scheduleApiPurge(this.deps, token, purge, { group, zone, request, notBefore });
      else if (group) await startApiPurgeJob(this.deps, token, purge, group, request.warm === true);
      else {
        const approval = await askApiApproval(this.deps, token, purge, zone, request);
        await this.deps.store.apiPurges.setApproval(purge.id, approval.id);
        purge.approvalId = approval.id;
      }
    } catch (error) {
      // Nothing was sent: the request created nothing, and the same key may be used again.
      await this.deps.store.apiPurges.delete(purge.id);
      throw error;
    }
    this.#records.set(purge.id, purge);
    await this.#audit(token, purge, 'api.purge.requested', 'ok', {
      kind,
      items,
      ...(notBefore === undefined ? {} : { notBefore: new Date(notBefore).toISOString() }),
    });
    // As stored (queued, or waiting for its approval): not read again, the job may be running by now.
    return { state: await apiPurgeState(this.deps, purge, { notBefore }), created: true };
  }

  /** A purge of this token, as the API shows it. */
  async get(token: ApiToken, id: string): Promise<ApiPurgeState> {
    const purge = await this.deps.store.apiPurges.get(id);
    if (!purge || purge.tokenId !== token.id)
      throw new ApiRefusal('purge_not_found', 'no such purge');
    return apiPurgeState(this.deps, purge);
  }

  /**
   * As `get`, but held until the status differs from the one at the start, or `seconds` pass, or
   * `signal` aborts (the client left). Changes made here wake it at once; others are seen by
   * reading the store every `waitPollMs`, so a change made on any replica is seen.
   */
  async wait(
    token: ApiToken,
    id: string,
    seconds: number,
    signal: AbortSignal,
  ): Promise<ApiPurgeState> {
    return this.waitFrom(token, await this.get(token, id), seconds, signal);
  }

  /** As `wait`, from a state already read with `get` (see ApiPurgeWaits). */
  async waitFrom(
    token: ApiToken,
    first: ApiPurgeState,
    seconds: number,
    signal: AbortSignal,
  ): Promise<ApiPurgeState> {
    return this.#waits.waitFrom(first, seconds, signal, (seen) =>
      seen && seen.tokenId === token.id
        ? apiPurgeState(this.deps, seen)
        : this.get(token, first.id),
    );
  }

  /** The state of a stored purge. */
  async state(id: string): Promise<ApiPurgeState> {
    const purge = await this.deps.store.apiPurges.get(id);
    if (!purge) throw new ApiRefusal('purge_not_found', 'no such purge');
    return apiPurgeState(this.deps, purge);
  }

  /** How an API purge job's progress reaches its record (see apiPurgeProgress). */
  view(purgeId: string): PurgeProgressView {
    return apiPurgeProgress(this.deps.store, purgeId, (changed) => this.#written(changed));
  }

  /** One round of the crash repair (see ApiPurgeRecovery); returns how many it failed. */
  async recover(): Promise<number> {
    return this.#recovery.round();
  }

  /**
   * The stored purge (its token, reason and CI context, which never change), for its Slack
   * message: as this process last stored or wrote it, else read.
   */
  async record(id: string): Promise<ApiPurge | undefined> {
    return this.#records.get(id) ?? this.deps.store.apiPurges.get(id);
  }

  /**
   * Why a purge asked for later may not run now that it is due: its token revoked, or no longer
   * reaching its kind, zone or account; a change freeze in force (a token holds no exception).
   */
  async scheduledRefusal(
    workspaceId: string,
    api: ScheduledApiRef,
    zone: ApiPurgeZone,
    everything: boolean,
  ): Promise<ApiRefusalWords | undefined> {
    return scheduledRefusal(this.deps, workspaceId, api, zone, everything);
  }

  /** A purge asked for later, checked again and due: its purge job, stored once (its key). */
  async startScheduled(
    workspaceId: string,
    api: ScheduledApiRef,
    group: PurgeGroup,
  ): Promise<void> {
    const token = await this.deps.store.apiTokens.get(workspaceId, api.tokenId);
    const purge = await this.deps.store.apiPurges.get(api.purgeId);
    if (!token || !purge) throw new Error('scheduled API purge: its token or record is gone');
    await startApiPurgeJob(this.deps, token, purge, group, api.warm === true);
  }

  /** A purge asked for later that will not run: `rejected`, with why. */
  async closeScheduled(api: ScheduledApiRef, detail: string): Promise<void> {
    const changed = await this.deps.store.apiPurges.update(api.purgeId, {
      status: 'rejected',
      error: detail,
    });
    if (changed) this.#written(changed);
  }

  /** A purge this process wrote: kept for `record`, and its waits woken. */
  #written(purge: ApiPurge): void {
    this.#records.set(purge.id, purge);
    this.#waits.changed(purge);
  }

  async #replayed(purge: ApiPurge, bodyHash: string): Promise<ApiPurgeState> {
    if (purge.bodyHash !== bodyHash)
      throw new ApiRefusal(
        'idempotency_conflict',
        'this Idempotency-Key was used with another request body',
      );
    return apiPurgeState(this.deps, purge);
  }

  async #audit(
    token: ApiToken,
    purge: ApiPurge,
    action: string,
    outcome: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    await this.deps.store.audit.record({
      key: `${action}:${purge.id}`,
      workspaceId: token.workspaceId,
      actorId: tokenActorId(token),
      action,
      zoneId: purge.zoneId,
      zoneName: purge.zoneName,
      accountId: purge.accountId,
      outcome,
      detail: {
        token: token.name,
        tokenId: token.id,
        purge: purge.id,
        account: purge.accountName,
        ...(purge.context?.actor !== undefined ? { actor: purge.context.actor } : {}),
        ...detail,
      },
    });
  }
}
