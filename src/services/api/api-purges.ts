// Purges asked for over the HTTP API: checked against the token's scope, stored once per
// (token, Idempotency-Key), run as today's durable purge jobs (URLs, tags) or as the same
// two-person approval as in Slack (everything), and read back with a status any replica can tell.
// With `not_before`, stored as a scheduled purge (ScheduledPurgeService) that this service checks
// again, and starts, when it comes due.
// (Over 400 lines: the request's checks, its two ways of running, the status read from either and
// the crash repair share one record and its keys; the status mapping could be its own file.)
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import { outcomeUnknown } from '../../cdn/outcome.js';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type {
  ApiPurge,
  ApiPurgeContext,
  ApiPurgeKind,
  ApiPurgeStatus,
} from '../../store/api-purges.js';
import { FINAL_STATUSES } from '../../store/api-purges.js';
import type { ApiRequester, Approval } from '../../store/approvals.js';
import type { Store } from '../../store/index.js';
import { retryInSeconds, takeRateLimit } from '../../throttles/per-key-rate-limit.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { ApprovalService } from '../approvals/approvals.js';
import type { FreezeGate } from '../freezes/gate.js';
import type { PurgeService } from '../purge/purge-plan.js';
import type { PurgeProgressView } from '../purge/purge-status.js';
import { type PurgeGroup, planPurge } from '../purge/purge-targets.js';
import { parseSpec, resolveSpec, type ScheduleSpec } from '../purge/schedule-time.js';
import {
  type ApiRefusalWords,
  type ScheduledApiPurges,
  type ScheduledApiRef,
  type ScheduledPurgeService,
  scheduledApiKey,
} from '../purge/scheduled-purges.js';
import { WARM_JOB_KEY } from '../verify/verify-job.js';
import type { ZoneService } from '../zones/zones.js';
import { apiPurgeScope, apiPurgeTarget } from './api-purge-target.js';
import { ApiRefusal } from './api-refusal.js';
import { type ApiToken, tokenActorId, tokenCoversZone } from './api-tokens.js';

export { ApiRefusal, type ApiRefusalCode } from './api-refusal.js';

/**
 * What the API says of a purge: as stored, or `scheduled` while one asked with a future
 * `not_before` waits for its time (then `queued`, `waiting_for_approval` or `running` as any).
 */
export type ApiStatus = ApiPurgeStatus | 'scheduled';

/** A request as the HTTP layer validated it (src/api/schemas.ts). */
export interface ApiPurgeRequest {
  zone: string;
  account?: string | undefined;
  urls?: string[] | undefined;
  tags?: string[] | undefined;
  everything?: true | undefined;
  /** URLs only: once purged, asked of the edge again (see PurgeJobPayload.warm). */
  warm?: boolean | undefined;
  reason?: string | undefined;
  context?: ApiPurgeContext | undefined;
  /**
   * Not before this time: an RFC 3339 timestamp with its offset, or `in <duration>` (`in 30m`,
   * `in 1h30m`, `in 2d`, as `/cdn purge … in` reads it), within MAX_SCHEDULE_DAYS.
   */
  not_before?: string | undefined;
}

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

/** The job key of an API purge of URLs or tags: one job per purge, whoever enqueues it. */
const jobKey = (purgeId: string) => `api-purge:${purgeId}`;
/** Who the purge's audit entries, job and approval name as the actor (`token:<name>`). */
const actorOf = tokenActorId;
/** How many of a purge's URLs (or tags) its Slack message shows. */
const SAMPLE_ITEMS = 3;
/** An e-mail address, as far as telling one from a user name goes (Slack checks the rest). */
const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** Finds the Slack user with an e-mail address (users.lookupByEmail); implemented in src/slack. */
export interface PeopleByEmail {
  /** The user's id; `not_found` when no one has it; `unchecked` when Slack could not be asked. */
  userIdByEmail(workspaceId: string, email: string): Promise<string | 'not_found' | 'unchecked'>;
}
/** Purges kept in memory for their Slack message's header (a wave of CI purges, and more). */
const RECORDS_KEPT = 2_000;
/** A purge of everything whose approval was never posted is given up after this long. */
const STRANDED_MS = 2 * 60_000;

export class ApiPurgeService implements ScheduledApiPurges {
  readonly #changes = new EventEmitter();
  /** Purges this process stored or wrote lately, for `record` (their header never changes). */
  readonly #records = new LRUCache<string, ApiPurge>({ max: RECORDS_KEPT });
  readonly #pollMs: number;

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
    this.#pollMs = deps.settings.waitPollMs ?? 500;
    this.#changes.setMaxListeners(0);
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
    const kind: ApiPurgeKind = request.everything ? 'everything' : request.urls ? 'urls' : 'tags';
    const bodyHash = hashBody(request);
    if (idempotencyKey !== undefined) {
      // Asked before: the same purge, or a conflict; nothing is checked or started again.
      const earlier = await this.deps.store.apiPurges.byKey(token.id, idempotencyKey);
      if (earlier) return { state: await this.#replayed(earlier, bodyHash), created: false };
    }
    const notBefore =
      request.not_before === undefined ? undefined : this.#notBefore(request.not_before);
    if (!token.kinds.includes(kind === 'everything' ? 'everything' : 'urls_tags'))
      throw new ApiRefusal(
        'forbidden_kind',
        kind === 'everything'
          ? 'this token may not purge everything'
          : 'this token may not purge URLs or tags',
      );
    // The token's account, or for a token made for every
    // account the one named, else all of them.
    const scope = await apiPurgeScope(this.deps, token, request.account);
    if (!tokenCoversZone(token, request.zone))
      throw new ApiRefusal('forbidden_zone', 'this token may not purge that zone');
    const items = (request.urls?.length ?? 0) + (request.tags?.length ?? 0);
    if (items > this.deps.settings.maxItems)
      throw new ApiRefusal(
        'too_many_items',
        `at most ${this.deps.settings.maxItems} URLs or tags a request`,
      );
    const target = await apiPurgeTarget(
      this.deps,
      token,
      scope,
      request.zone,
      hostsOf(request.urls ?? []),
    );
    const { zone } = target;
    // Named by its id, it must still be one the token covers.
    if (!tokenCoversZone(token, zone.name))
      throw new ApiRefusal('forbidden_zone', 'this token may not purge that zone');
    // A purge for later is weighed against the freezes when it comes due, not now.
    if (notBefore === undefined) await this.#refuseFrozen(token, zone, kind);
    const plan =
      kind === 'everything'
        ? undefined
        : planPurge(
            { zone, urls: request.urls ?? [], tags: request.tags ?? [] },
            // Every zone of its account, so that a URL another zone serves is found out (the
            // index: no CDN call).
            target.zones,
            items,
          );
    if (plan) {
      const refused = [
        ...plan.rejected,
        ...plan.elsewhere.map((e) => ({ item: e.item, reason: `not served by ${zone.name}` })),
      ];
      if (refused.length > 0 || plan.groups.length !== 1)
        throw new ApiRefusal('invalid_items', 'some URLs or tags cannot be purged in this zone', {
          items: refused.slice(0, 20),
        });
    }
    const group = plan?.groups[0];
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
        await this.#schedule(token, purge, { group, zone, request, notBefore });
      else if (group) await this.#startJob(token, purge, group, request.warm === true);
      else {
        const approval = await this.#askApproval(token, purge, zone, request);
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
    return { state: await this.#stateOf(purge, { notBefore }), created: true };
  }

  /** A purge of this token, as the API shows it. */
  async get(token: ApiToken, id: string): Promise<ApiPurgeState> {
    const purge = await this.deps.store.apiPurges.get(id);
    if (!purge || purge.tokenId !== token.id)
      throw new ApiRefusal('purge_not_found', 'no such purge');
    return this.#stateOf(purge);
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

  /**
   * As `wait`, from a state already read with `get`. A purge of URLs or tags is watched by one
   * reader for all the waits of this process (one query every `waitPollMs`, however many wait);
   * a purge of everything, whose status also comes from its approval and the clock, is read on
   * its own.
   */
  async waitFrom(
    token: ApiToken,
    first: ApiPurgeState,
    seconds: number,
    signal: AbortSignal,
  ): Promise<ApiPurgeState> {
    if (seconds <= 0 || (first.status !== 'scheduled' && FINAL_STATUSES.has(first.status)))
      return first;
    const id = first.id;
    const deadline = AbortSignal.timeout(seconds * 1000);
    const stop = AbortSignal.any([deadline, signal]);
    // A scheduled purge's status also comes from its job: read on its own, as everything's.
    const shared = first.kind !== 'everything' && first.status !== 'scheduled';
    for (;;) {
      const woken = new AbortController();
      // Woken with the purge as it now is (written here, or read by the shared reader), if known.
      let seen: ApiPurge | undefined;
      const wake = (purge?: ApiPurge) => {
        seen ??= purge;
        woken.abort();
      };
      this.#changes.once(id, wake);
      const watch = { status: first.status, wake };
      if (shared) this.#watch(id, watch);
      else
        void delay(this.#pollMs, undefined, { signal: AbortSignal.any([stop, woken.signal]) })
          .then(wake)
          .catch(() => undefined);
      await new Promise<void>((resolve) => {
        const any = AbortSignal.any([stop, woken.signal]);
        if (any.aborted) resolve();
        else any.addEventListener('abort', () => resolve(), { once: true });
      });
      this.#changes.off(id, wake);
      if (shared) this.#unwatch(id, watch);
      const now =
        seen && seen.tokenId === token.id ? await this.#stateOf(seen) : await this.get(token, id);
      if (now.status !== first.status || stop.aborted) return now;
    }
  }

  /** Waits on purges of URLs or tags, by id: what each saw first, and how to wake it. */
  readonly #watched = new Map<string, Set<Waiter>>();
  #watching = false;

  #watch(id: string, waiter: Waiter): void {
    const set = this.#watched.get(id) ?? new Set();
    this.#watched.set(id, set);
    set.add(waiter);
    if (!this.#watching) {
      this.#watching = true;
      void this.#readWatched();
    }
  }

  #unwatch(id: string, waiter: Waiter): void {
    const set = this.#watched.get(id);
    set?.delete(waiter);
    if (set?.size === 0) this.#watched.delete(id);
  }

  /** While anyone waits: every `waitPollMs`, one read of every watched status; wakes who differs. */
  async #readWatched(): Promise<void> {
    // Cleared in the same turn as the last look at #watched: a wait added after it starts a reader.
    try {
      while (this.#watched.size > 0) {
        await delay(this.#pollMs);
        if (this.#watched.size === 0) return;
        const purges = await this.deps.store.apiPurges
          .many([...this.#watched.keys()])
          .catch((error: unknown) => {
            this.deps.logger.warn({ err: error }, 'waiting API purges not read');
            return undefined;
          });
        if (!purges) continue;
        const woken: Array<() => void> = [];
        for (const [id, waiters] of this.#watched) {
          const purge = purges.get(id);
          // A purge gone (pruned) wakes its waiters too: their read answers what is there now.
          for (const waiter of waiters)
            if (purge?.status !== waiter.status) woken.push(() => waiter.wake(purge));
        }
        // One answer per turn of the event loop: a hundred reads woken at once would otherwise
        // answer in one go, and a Slack request arriving meanwhile would wait for all of them.
        for (const wake of woken) {
          wake();
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    } finally {
      this.#watching = false;
    }
  }

  /** The state of a stored purge. */
  async state(id: string): Promise<ApiPurgeState> {
    const purge = await this.deps.store.apiPurges.get(id);
    if (!purge) throw new ApiRefusal('purge_not_found', 'no such purge');
    return this.#stateOf(purge);
  }

  /**
   * How an API purge job's progress reaches its record: running, done/total, and the outcome
   * (a batch whose outcome the CDN never confirmed makes it `unknown`, not `failed`).
   */
  view(purgeId: string): PurgeProgressView {
    const update = async (change: Parameters<Store['apiPurges']['update']>[1]) => {
      const changed = await this.deps.store.apiPurges.update(purgeId, change);
      if (changed) {
        this.#records.set(purgeId, changed);
        this.#changes.emit(purgeId, changed);
      }
    };
    return {
      started: (status) => update({ status: 'running', done: status.done, total: status.total }),
      progressed: (status) => update({ done: status.done, total: status.total }),
      paused: async () => {},
      finished: async ({ runs, error }) => {
        const run = runs[0];
        if (!run) {
          await update({ status: 'failed', error: describe(error) ?? 'not purged' });
          return;
        }
        const failures = run.report.results.filter((r) => !r.ok);
        const done = run.report.results
          .filter((r) => r.ok)
          .reduce((sum, r) => sum + r.items.length, 0);
        const unknown = failures.some((r) => !r.ok && outcomeUnknown(r.error));
        const first = failures[0];
        await update({
          status: failures.length === 0 ? 'succeeded' : unknown ? 'unknown' : 'failed',
          done,
          error:
            first && !first.ok
              ? `${failures.length} of ${run.report.results.length} requests to the CDN ${
                  unknown ? 'were not confirmed' : 'failed'
                } (${first.error.code})`
              : null,
        });
      },
    };
  }

  /**
   * Repairs what a crash left: a URL or tag purge still queued with neither its job nor its
   * scheduled purge (which runs it at its time, never sooner), or a purge of everything whose
   * approval was never posted, is failed (the client may ask again with a new key).
   */
  async recover(): Promise<number> {
    const { store, clock } = this.deps;
    const stale = await store.apiPurges.notStartedBefore(clock.now() - STRANDED_MS);
    let repaired = 0;
    for (const purge of stale) {
      if (
        purge.kind === 'everything'
          ? purge.approvalId !== null
          : (await store.jobs.byKey(jobKey(purge.id))) ||
            (await store.jobs.byKey(scheduledApiKey(purge.id)))
      )
        continue;
      await store.apiPurges.update(purge.id, {
        status: 'failed',
        error: 'the purge was not started (the bot stopped); ask again',
      });
      repaired += 1;
    }
    return repaired;
  }

  async #replayed(purge: ApiPurge, bodyHash: string): Promise<ApiPurgeState> {
    if (purge.bodyHash !== bodyHash)
      throw new ApiRefusal(
        'idempotency_conflict',
        'this Idempotency-Key was used with another request body',
      );
    return this.#stateOf(purge);
  }

  async #startJob(
    token: ApiToken,
    purge: ApiPurge,
    group: {
      zone: Parameters<PurgeService['startForApi']>[1]['zone'];
      files: string[];
      tags: string[];
    },
    warm: boolean,
  ): Promise<void> {
    // Announced in the token's channel, else a channel that has the zone as its default; with
    // neither, nowhere (the API's answer is all there is).
    const channelId = token.channelId ?? (await this.#boundChannel(purge));
    await this.deps.purges.startForApi(token.workspaceId, group, {
      apiPurgeId: purge.id,
      sample: [...group.files, ...group.tags.map((tag) => `tag:${tag}`)].slice(0, SAMPLE_ITEMS),
      actorId: actorOf(token),
      key: jobKey(purge.id),
      ...(warm ? { warm: true } : {}),
      replyTo: {
        userId: actorOf(token),
        ...(channelId ? { channelId } : {}),
        issuedAt: this.deps.clock.now(),
        visibility: 'in_channel',
        channelOnly: true,
      },
    });
  }

  /**
   * The stored purge (its token, reason and CI context, which never change), for its Slack
   * message: as this process last stored or wrote it, else read.
   */
  async record(id: string): Promise<ApiPurge | undefined> {
    return this.#records.get(id) ?? this.deps.store.apiPurges.get(id);
  }

  /** The token and the CI's actor, and the Slack user that actor is (by e-mail), if any. */
  async #requester(
    token: ApiToken,
    purge: ApiPurge,
    actor: string | undefined,
  ): Promise<ApiRequester> {
    const base = {
      tokenId: token.id,
      tokenName: token.name,
      account: purge.accountName,
    };
    if (actor === undefined || actor.trim() === '') return base;
    if (!EMAIL.test(actor.trim())) return { ...base, actor, unmapped: 'not_email' };
    const found = this.deps.people
      ? await this.deps.people.userIdByEmail(token.workspaceId, actor.trim())
      : 'unchecked';
    return found === 'not_found' || found === 'unchecked'
      ? { ...base, actor, unmapped: found }
      : { ...base, actor, actorUserId: found };
  }

  /**
   * Refuses, naming it, a purge a change freeze in force refuses: purge-everything always, URLs
   * and tags when the freeze says so. A token holds no exception: those are asked for in Slack.
   */
  async #refuseFrozen(
    token: ApiToken,
    zone: Parameters<ApprovalService['request']>[1]['zone'],
    kind: ApiPurgeKind,
  ): Promise<void> {
    const [first] =
      (await this.deps.freezes?.blocking({
        workspaceId: token.workspaceId,
        actorId: actorOf(token),
        action: kind === 'everything' ? 'everything' : 'purge',
        zone,
      })) ?? [];
    if (!first) return;
    const now = this.deps.clock.now();
    throw new ApiRefusal(
      'frozen',
      `a change freeze on ${first.freeze.targetName} refuses this purge until ${new Date(first.window.end).toISOString()}: ${first.freeze.reason}`,
      {
        retryAfterSeconds: Math.max(1, Math.ceil((first.window.end - now) / 1000)),
        freeze: {
          id: first.freeze.id,
          target: first.freeze.targetName,
          reason: first.freeze.reason,
          time_zone: first.freeze.timeZone,
          ends_at: new Date(first.window.end).toISOString(),
        },
      },
    );
  }

  async #askApproval(
    token: ApiToken,
    purge: ApiPurge,
    zone: Parameters<ApprovalService['request']>[1]['zone'],
    request: ApiPurgeRequest,
    notBefore?: number,
  ): Promise<Approval> {
    const channelId = token.channelId ?? (await this.#boundChannel(purge));
    if (!channelId)
      throw new ApiRefusal(
        'no_approval_channel',
        'the token has no channel and no channel has this zone as its default: nowhere to ask for approval',
      );
    try {
      return await this.deps.approvals.request(token.workspaceId, {
        zone,
        requesterId: actorOf(token),
        reason: request.reason ?? `Asked over the API with the token "${token.name}"`,
        channelId,
        // For later: it may be approved until its time, and runs then (ScheduledPurgeService).
        ...(notBefore === undefined
          ? { ttlMs: this.deps.settings.approvalTtlMs }
          : { ttlMs: notBefore - this.deps.clock.now(), notBefore }),
        api: await this.#requester(token, purge, request.context?.actor),
      });
    } catch (error) {
      if (error instanceof AppError && error.problem.code === 'approval_pending')
        throw new ApiRefusal(
          'approval_pending',
          'this zone already has a purge of everything waiting for approval',
        );
      throw error;
    }
  }

  /**
   * A channel that has the purge's zone, of its account, as its default (`/cdn use`), if any: two
   * accounts may hold zones of the same id.
   */
  async #boundChannel(purge: ApiPurge): Promise<string | undefined> {
    const { workspaceId } = purge;
    // Only the zone's current bindings are read, however many channels have a default.
    const [first] = await this.deps.store.channelBindings.forZone(
      workspaceId,
      purge.accountId,
      purge.zoneId,
      1,
    );
    return first?.channelId;
  }

  /**
   * The purge as the API shows it. `asked`: just stored by this request, whose `not_before` is
   * known (a queued purge's scheduled job is then not looked for).
   */
  async #stateOf(
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
      const warm = purge.status === 'succeeded' ? await this.#warmOf(purge.id) : undefined;
      const scheduled =
        purge.status !== 'queued'
          ? undefined
          : asked
            ? asked.notBefore === undefined
              ? undefined
              : { dueAt: asked.notBefore, waiting: true }
            : await this.#scheduledOf(purge.id);
      return {
        ...base,
        status: scheduled?.waiting ? 'scheduled' : purge.status,
        ...(scheduled ? { not_before: new Date(scheduled.dueAt).toISOString() } : {}),
        ...(warm ? { warm } : {}),
        ...(purge.error ? { error: purge.error } : {}),
      };
    }
    const approval = await this.deps.store.approvals.get(purge.approvalId);
    if (!approval) return { ...base, status: 'failed', error: 'the approval request is gone' };
    return {
      ...base,
      ...(approval.notBefore === undefined
        ? {}
        : { not_before: new Date(approval.notBefore).toISOString() }),
      ...approvalState(approval, this.deps.clock.now()),
    };
  }

  /** A purge of URLs or tags asked for later: when, and whether its time is still to come. */
  async #scheduledOf(purgeId: string): Promise<{ dueAt: number; waiting: boolean } | undefined> {
    const job = await this.deps.store.jobs.byKey(scheduledApiKey(purgeId));
    const dueAt = (job?.payload as { dueAt?: unknown } | undefined)?.dueAt;
    if (!job || typeof dueAt !== 'number') return undefined;
    return { dueAt, waiting: job.state === 'queued' };
  }

  /**
   * The instant `not_before` names (RFC 3339, or `in <duration>`): ApiRefusal `invalid_not_before`
   * when it is not one, has passed, or is too far ahead.
   */
  #notBefore(text: string): number {
    if (!this.deps.scheduled)
      throw new ApiRefusal('invalid_not_before', 'purges for later are not available here');
    try {
      const relative = /^in\s+(.+)$/i.exec(text.trim());
      const spec: ScheduleSpec = relative
        ? parseSpec('in', relative[1] ?? '')
        : { kind: 'instant', at: Date.parse(text), text };
      return resolveSpec(spec, 'UTC', this.deps.clock.now());
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const { problem } = error;
      throw new ApiRefusal(
        'invalid_not_before',
        problem.code === 'schedule_time_out_of_range'
          ? problem.reason === 'past'
            ? '`not_before` has passed: leave it out to purge now'
            : `\`not_before\` is at most ${problem.maxDays} days ahead`
          : '`not_before` is an RFC 3339 timestamp with its offset (2026-12-03T02:00:00Z) or `in <duration>` (in 30m, in 1h30m, in 2d)',
      );
    }
  }

  /**
   * Stores the purge for later (ScheduledPurgeService, keyed by the record): URLs and tags as
   * they are, everything with its approval request posted now, expiring at its time.
   */
  async #schedule(
    token: ApiToken,
    purge: ApiPurge,
    input: {
      group: PurgeGroup | undefined;
      zone: Parameters<ApprovalService['request']>[1]['zone'];
      request: ApiPurgeRequest;
      notBefore: number;
    },
  ): Promise<void> {
    const scheduled = this.deps.scheduled;
    if (!scheduled)
      throw new ApiRefusal('invalid_not_before', 'purges for later are not available here');
    const { group, zone, request, notBefore } = input;
    const api: ScheduledApiRef = {
      purgeId: purge.id,
      tokenId: token.id,
      ...(request.warm ? { warm: true } : {}),
    };
    if (group) {
      await scheduled.scheduleForApi(token.workspaceId, {
        api,
        actorId: actorOf(token),
        channelId: token.channelId ?? (await this.#boundChannel(purge)),
        dueAt: notBefore,
        what: {
          kind: 'items',
          groups: [{ zone: group.zone, files: group.files, tags: group.tags }],
        },
      });
      return;
    }
    const approval = await this.#askApproval(token, purge, zone, request, notBefore);
    await this.deps.store.apiPurges.setApproval(purge.id, approval.id);
    purge.approvalId = approval.id;
    await scheduled.scheduleForApi(token.workspaceId, {
      api,
      actorId: actorOf(token),
      channelId: approval.channelId,
      dueAt: notBefore,
      what: { kind: 'everything', zone, approvalId: approval.id },
    });
  }

  /**
   * Why a purge asked for later may not run now that it is due: its token revoked, or no longer
   * reaching its kind, zone or account; a change freeze in force (a token holds no exception).
   */
  async scheduledRefusal(
    workspaceId: string,
    api: ScheduledApiRef,
    zone: Parameters<ApprovalService['request']>[1]['zone'],
    everything: boolean,
  ): Promise<ApiRefusalWords | undefined> {
    const token = await this.deps.store.apiTokens.get(workspaceId, api.tokenId);
    if (!token || token.revokedAt !== null)
      return { code: 'token_revoked', detail: 'its token was revoked' };
    const purge = await this.deps.store.apiPurges.get(api.purgeId);
    try {
      if (!token.kinds.includes(everything ? 'everything' : 'urls_tags'))
        throw new ApiRefusal(
          'forbidden_kind',
          'its token may no longer ask for this kind of purge',
        );
      if (!tokenCoversZone(token, zone.name))
        throw new ApiRefusal('forbidden_zone', 'its token no longer covers the zone');
      // The token's accounts as they are now: the zone must still be found in the same account.
      const scope = await apiPurgeScope(this.deps, token, purge?.accountName ?? undefined);
      const target = await apiPurgeTarget(this.deps, token, scope, zone.name);
      if (target.zone.id !== zone.id || (purge && target.accountId !== purge.accountId))
        throw new ApiRefusal('zone_not_found', 'the zone is no longer the one it was asked for');
      await this.#refuseFrozen(token, zone, everything ? 'everything' : 'urls');
    } catch (error) {
      if (error instanceof ApiRefusal) return { code: error.code, detail: error.detail };
      if (error instanceof AppError)
        return { code: error.problem.code, detail: error.problem.code };
      throw error;
    }
    return undefined;
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
    await this.#startJob(token, purge, group, api.warm === true);
  }

  /** A purge asked for later that will not run: `rejected`, with why. */
  async closeScheduled(api: ScheduledApiRef, detail: string): Promise<void> {
    const changed = await this.deps.store.apiPurges.update(api.purgeId, {
      status: 'rejected',
      error: detail,
    });
    if (changed) {
      this.#records.set(api.purgeId, changed);
      this.#changes.emit(api.purgeId, changed);
    }
  }

  /** A purge asked with `warm`: how its warming stands (its job's steps), else undefined. */
  async #warmOf(purgeId: string): Promise<ApiPurgeState['warm']> {
    const { jobs } = this.deps.store;
    const job = await jobs.byKey(jobKey(purgeId));
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
      actorId: actorOf(token),
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

/** A wait on a purge: the status it started from, and how to wake it (with the purge, if read). */
interface Waiter {
  status: string;
  wake: (purge?: ApiPurge) => void;
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

function describe(error: unknown): string | undefined {
  if (error === undefined) return undefined;
  if (error instanceof AppError) return error.problem.code;
  if (error && typeof error === 'object' && 'code' in error) return String(error.code);
  return 'not purged';
}

/** The hosts of the http(s) URLs among `urls` (the others are refused by planPurge). */
function hostsOf(urls: readonly string[]): Set<string> {
  const hosts = new Set<string>();
  for (const raw of urls) {
    const url = URL.parse(raw);
    if (url && (url.protocol === 'https:' || url.protocol === 'http:')) hosts.add(url.hostname);
  }
  return hosts;
}

/** The SHA-256 of the request as understood (keys sorted): the same request hashes the same. */
export function hashBody(request: ApiPurgeRequest): string {
  return createHash('sha256').update(canonical(request)).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}
