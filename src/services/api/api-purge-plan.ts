// What a POST asks for, checked once before anything is stored: the token's kind, account and
// zone, the number of items and the zone serving them, a change freeze, `not_before` read; the
// same checks again when a purge asked for later comes due; the request's hash for its key.
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { ApiPurgeContext, ApiPurgeKind } from '../../store/api-purges.js';
import type { Store } from '../../store/index.js';
import type { ApprovalService } from '../approvals/approvals.js';
import type { FreezeGate } from '../freezes/gate.js';
import { type PurgeGroup, planPurge } from '../purge/purge-targets.js';
import { parseSpec, resolveSpec, type ScheduleSpec } from '../purge/schedule-time.js';
import type {
  ApiRefusalWords,
  ScheduledApiRef,
  ScheduledPurgeService,
} from '../purge/scheduled-purges.js';
import {
  type ApiPurgeTarget,
  apiPurgeScope,
  apiPurgeTarget,
  type TargetDeps,
} from './api-purge-target.js';
import { ApiRefusal } from './api-refusal.js';
import { type ApiToken, tokenActorId, tokenCoversZone } from './api-tokens.js';

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

/** A purge's zone, as an approval request or a change freeze takes it. */
export type ApiPurgeZone = Parameters<ApprovalService['request']>[1]['zone'];

/** What the checks read: the token's accounts and zones, the clock, the freezes. */
export interface PlanDeps extends TargetDeps {
  clock: Clock;
  settings: { maxItems: number };
  freezes?: FreezeGate;
  /** Purges for a later time; absent: `not_before` is refused. */
  scheduled?: ScheduledPurgeService;
}

/** A request its token may make: what it purges, where, and when. */
export interface CheckedApiPurge {
  kind: ApiPurgeKind;
  /** How many URLs and tags it names. */
  items: number;
  target: ApiPurgeTarget;
  /** URLs or tags: their one group, in the zone; everything: none. */
  group: PurgeGroup | undefined;
  /** Asked with `not_before`: the instant it names. */
  notBefore: number | undefined;
}

/** What a request purges. */
export function requestKind(request: ApiPurgeRequest): ApiPurgeKind {
  return request.everything ? 'everything' : request.urls ? 'urls' : 'tags';
}

/**
 * Checks the request against its token and the zone, in this order: `not_before`, the token's
 * kind, account and zone, the number of items, the zone found, a change freeze (now only: a
 * purge for later is weighed against the freezes when it comes due), the items' zone.
 */
export async function checkApiPurge(
  deps: PlanDeps,
  token: ApiToken,
  request: ApiPurgeRequest,
): Promise<CheckedApiPurge> {
  const kind = requestKind(request);
  const notBefore =
    request.not_before === undefined ? undefined : notBeforeOf(deps, request.not_before);
  if (!token.kinds.includes(kind === 'everything' ? 'everything' : 'urls_tags'))
    throw new ApiRefusal(
      'forbidden_kind',
      kind === 'everything'
        ? 'this token may not purge everything'
        : 'this token may not purge URLs or tags',
    );
  // The token's account, or for a token made for every
  // account the one named, else all of them.
  const scope = await apiPurgeScope(deps, token, request.account);
  if (!tokenCoversZone(token, request.zone))
    throw new ApiRefusal('forbidden_zone', 'this token may not purge that zone');
  const items = (request.urls?.length ?? 0) + (request.tags?.length ?? 0);
  if (items > deps.settings.maxItems)
    throw new ApiRefusal(
      'too_many_items',
      `at most ${deps.settings.maxItems} URLs or tags a request`,
    );
  const target = await apiPurgeTarget(
    deps,
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
  if (notBefore === undefined) await refuseFrozen(deps, token, zone, kind);
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
  return { kind, items, target, group: plan?.groups[0], notBefore };
}

/**
 * Why a purge asked for later may not run now that it is due: its token revoked, or no longer
 * reaching its kind, zone or account; a change freeze in force (a token holds no exception).
 */
export async function scheduledRefusal(
  deps: PlanDeps & { store: Store },
  workspaceId: string,
  api: ScheduledApiRef,
  zone: ApiPurgeZone,
  everything: boolean,
): Promise<ApiRefusalWords | undefined> {
  const token = await deps.store.apiTokens.get(workspaceId, api.tokenId);
  if (!token || token.revokedAt !== null)
    return { code: 'token_revoked', detail: 'its token was revoked' };
  const purge = await deps.store.apiPurges.get(api.purgeId);
  try {
    if (!token.kinds.includes(everything ? 'everything' : 'urls_tags'))
      throw new ApiRefusal('forbidden_kind', 'its token may no longer ask for this kind of purge');
    if (!tokenCoversZone(token, zone.name))
      throw new ApiRefusal('forbidden_zone', 'its token no longer covers the zone');
    // The token's accounts as they are now: the zone must still be found in the same account.
    const scope = await apiPurgeScope(deps, token, purge?.accountName ?? undefined);
    const target = await apiPurgeTarget(deps, token, scope, zone.name);
    if (target.zone.id !== zone.id || (purge && target.accountId !== purge.accountId))
      throw new ApiRefusal('zone_not_found', 'the zone is no longer the one it was asked for');
    await refuseFrozen(deps, token, zone, everything ? 'everything' : 'urls');
  } catch (error) {
    if (error instanceof ApiRefusal) return { code: error.code, detail: error.detail };
    if (error instanceof AppError) return { code: error.problem.code, detail: error.problem.code };
    throw error;
  }
  return undefined;
}

/**
 * The instant `not_before` names (RFC 3339, or `in <duration>`): ApiRefusal `invalid_not_before`
 * when it is not one, has passed, or is too far ahead.
 */
function notBeforeOf(deps: PlanDeps, text: string): number {
  if (!deps.scheduled)
    throw new ApiRefusal('invalid_not_before', 'purges for later are not available here');
  try {
    const relative = /^in\s+(.+)$/i.exec(text.trim());
    const spec: ScheduleSpec = relative
      ? parseSpec('in', relative[1] ?? '')
      : { kind: 'instant', at: Date.parse(text), text };
    return resolveSpec(spec, 'UTC', deps.clock.now());
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
 * Refuses, naming it, a purge a change freeze in force refuses: purge-everything always, URLs
 * and tags when the freeze says so. A token holds no exception: those are asked for in Slack.
 */
async function refuseFrozen(
  deps: PlanDeps,
  token: ApiToken,
  zone: ApiPurgeZone,
  kind: ApiPurgeKind,
): Promise<void> {
  const [first] =
    (await deps.freezes?.blocking({
      workspaceId: token.workspaceId,
      actorId: tokenActorId(token),
      action: kind === 'everything' ? 'everything' : 'purge',
      zone,
    })) ?? [];
  if (!first) return;
  const now = deps.clock.now();
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
