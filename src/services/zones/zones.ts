// Zones of a workspace: listing, finding by name or id, searching for pickers, and creating.
import { distance } from 'fastest-levenshtein';
import type { CreateZoneResult, ZonePage } from '../../cdn/client.js';
import { checkHostname } from '../../cdn/hostname.js';
import type { Zone, ZonePlan } from '../../cdn/schemas.js';
import { AppError } from '../../errors.js';
import { defined } from '../../objects.js';
import type { AuditLogRepository } from '../../store/audit-log.js';
import { inUnicode, zoneKey, zoneNameContains, zoneUnicode } from '../../zone-names.js';
import type { Caller } from '../access/access.js';
import type { CdnAccess } from '../accounts/cdn-access.js';
import type { CdnReadRateLimit } from '../analytics/cdn-read-rate-limit.js';
import type { ZoneIndex } from './zone-index.js';

export type { CreateZoneResult, ZonePage } from '../../cdn/client.js';
export { ZONE_PLANS, ZONE_STATUSES, type Zone, type ZonePlan } from '../../cdn/schemas.js';

export const ZONES_PER_PAGE = 10;
/** Slack shows a menu's options only if they come within 3 s: a picker waits for a build this long. */
export const PICKER_WAIT_MS = 2_000;
/** IDN zones a search in Unicode reads at most (a workspace has few; past these, none match). */
const IDN_SCAN = 2_000;

export interface ZoneServiceOptions {
  cdn: CdnAccess;
  audit: AuditLogRepository;
  /** Where lookups, pickers and purge plans find zones (see zone-index.ts). */
  index: ZoneIndex;
  /** The bounds on reading the CDN for people (a page of `/cdn zones` is one read). */
  reads: CdnReadRateLimit;
}

export class ZoneService {
  readonly #cdn: CdnAccess;
  readonly #audit: AuditLogRepository;
  readonly #index: ZoneIndex;
  readonly #reads: CdnReadRateLimit;

  constructor(options: ZoneServiceOptions) {
    this.#cdn = options.cdn;
    this.#audit = options.audit;
    this.#index = options.index;
    this.#reads = options.reads;
  }

  /**
   * One page of `/cdn zones`, from the CDN itself: its order, its totals, its status filter, and
   * the state of the zones now, in one request of ten (the index may be minutes old). With `name`,
   * the zones whose name holds it (in Unicode or punycode), from the index: the CDN cannot filter
   * by name. A page from the CDN is counted as a read of `caller`'s before it is asked for.
   */
  async page(
    caller: Caller,
    params: { status?: string; name?: string; page: number },
    /** The CDN account to list. */
    accountId: string,
  ): Promise<ZonePage> {
    const { workspaceId } = caller;
    if (params.name !== undefined) {
      const { name, status } = params;
      const zones = (await this.#index.all(workspaceId, accountId)).filter(
        (zone) =>
          (status === undefined || zone.status === status) && zoneNameContains(zone.name, name),
      );
      const start = (params.page - 1) * ZONES_PER_PAGE;
      return {
        zones: zones.slice(start, start + ZONES_PER_PAGE),
        page: params.page,
        perPage: ZONES_PER_PAGE,
        total: zones.length,
        pages: Math.max(1, Math.ceil(zones.length / ZONES_PER_PAGE)),
      };
    }
    await this.#reads.take(caller);
    const client = await this.#cdn.clientFor(workspaceId, accountId, 'zones');
    return client.listZones({
      page: params.page,
      perPage: ZONES_PER_PAGE,
      ...defined('status', params.status),
    });
  }

  /** Every zone of the account, from its index. */
  async all(workspaceId: string, accountId: string): Promise<Zone[]> {
    return this.#index.all(workspaceId, accountId);
  }

  /**
   * The zone named by `nameOrId` (a domain or an id), from the index; a name it does not hold is
   * looked for once at the CDN (a targeted refresh) before AppError zone_not_found, whose
   * suggestions come from the index.
   */
  async resolve(workspaceId: string, nameOrId: string, accountId: string): Promise<Zone> {
    const query = nameOrId.trim();
    const found =
      pick(await this.#index.find(workspaceId, query, accountId), query) ??
      pick(await this.#index.probe(workspaceId, query, accountId), query);
    if (found) return found;
    // Typos are measured in Unicode: one wrong letter of `bücher` is not of its punycode.
    const wanted = zoneUnicode(zoneKey(query));
    const suggestions = (await this.#index.liveNames(workspaceId, accountId))
      .map((name) => ({ name, score: distance(zoneUnicode(zoneKey(name)), wanted) }))
      .filter(({ score }) => score <= Math.max(2, Math.floor(wanted.length / 4)))
      .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
      .slice(0, 3)
      .map(({ name }) => name);
    throw new AppError({ code: 'zone_not_found', query, suggestions });
  }

  /**
   * A purge's zone (named or by id, as `resolve` finds it) and every zone that may serve one of
   * `hosts` (a zone of the host's own name or of a name above it), read together by name: planning
   * the purge (planPurge) needs no other zone, so it costs the same in a workspace of 10,000 zones
   * as in one of 10, instead of reading them all.
   */
  async forPurge(
    workspaceId: string,
    nameOrId: string,
    hosts: Iterable<string>,
    accountId: string,
  ): Promise<{ zone: Zone; candidates: Zone[] }> {
    const query = nameOrId.trim();
    const keys = new Set([zoneKey(query)]);
    for (const host of hosts)
      for (let at = 0; at >= 0; ) {
        keys.add(host.slice(at));
        const dot = host.indexOf('.', at);
        at = dot < 0 ? -1 : dot + 1;
      }
    const candidates = await this.#index.named(workspaceId, [...keys], query, accountId);
    const zone = pick(candidates, query);
    if (zone) return { zone, candidates };
    // Not in the index: looked for at the CDN (zone_not_found if it has none), then read again
    // with the zones that look may have added.
    const found = await this.resolve(workspaceId, query, accountId);
    const again = await this.#index.named(workspaceId, [...keys], query, accountId);
    return { zone: found, candidates: again };
  }

  /**
   * Live zones whose name contains `query` in either form (or whose id it is), best matches
   * first, at most `limit`: for pickers, so an index still being built is waited for at most
   * PICKER_WAIT_MS, among the zones of CDN account `accountId`.
   */
  async search(
    workspaceId: string,
    query: string,
    limit: number,
    accountId: string,
  ): Promise<Zone[]> {
    const options = { limit, waitMs: PICKER_WAIT_MS };
    const found = await this.#index.search(workspaceId, query, options, accountId);
    if (!inUnicode(query)) return found;
    // Part of a Unicode label (`büch`) is no part of its punycode (`xn--bcher-kva`): the IDN
    // zones are read too, and matched and ranked in Unicode.
    const idn = await this.#index.search(
      workspaceId,
      'xn--',
      { ...options, limit: IDN_SCAN },
      accountId,
    );
    const byId = new Map(found.map((zone) => [zone.id, zone]));
    for (const zone of idn) if (zoneNameContains(zone.name, query)) byId.set(zone.id, zone);
    const wanted = zoneUnicode(zoneKey(query));
    return [...byId.values()]
      .map((zone) => ({ zone, shown: zoneUnicode(zoneKey(zone.name)) }))
      .sort((a, b) => rank(a.shown, wanted) - rank(b.shown, wanted) || compare(a.shown, b.shown))
      .slice(0, limit)
      .map(({ zone }) => zone);
  }

  /** Validates the domain (no API call if it is wrong), creates the zone, and audits it. */
  async create(
    workspaceId: string,
    input: { domain: string; plan: ZonePlan; actorId: string; accountId: string },
  ): Promise<CreateZoneResult & { name: string }> {
    const ascii = onboardableDomain(input.domain);
    const { accountId } = input;
    // Read before the key is used: a zone created with an older key never enters a newer index.
    const generation = await this.#index.generation(workspaceId, accountId);
    const client = await this.#cdn.clientFor(workspaceId, accountId, 'create');
    const audit = (
      outcome: 'ok' | 'failed',
      zoneId: string | null,
      detail: Record<string, unknown>,
    ) =>
      this.#audit.record({
        workspaceId,
        actorId: input.actorId,
        action: 'zone.create',
        zoneId,
        zoneName: ascii,
        accountId,
        outcome,
        detail: { plan: input.plan, ...detail },
      });
    let result: CreateZoneResult;
    try {
      result = await client.createZone({ name: ascii, plan: input.plan });
    } catch (error) {
      await audit('failed', null, { error: (error as { code?: string }).code ?? 'unknown' });
      throw error;
    }
    if (generation !== undefined) {
      await this.#index.created(
        workspaceId,
        generation,
        result.kind === 'created' ? result.zone : undefined,
        accountId,
      );
    }
    await audit('ok', result.kind === 'created' ? result.zone.id : null, { result: result.kind });
    return { ...result, name: ascii };
  }

  /** A key was saved: the account's new index is built in the background. */
  keyChanged(workspaceId: string, accountId: string): void {
    this.#index.keyChanged(workspaceId, accountId);
  }

  /** The account's key is gone (its index went with it in the store). */
  forget(workspaceId: string, accountId: string): void {
    this.#index.forget(workspaceId, accountId);
  }
}

/** The zone with that id, else the live zone of that name (in either form), else a deleted one. */
function pick(zones: Zone[], query: string): Zone | undefined {
  const key = zoneKey(query);
  const named = zones.filter((zone) => zoneKey(zone.name) === key);
  return (
    zones.find((zone) => zone.id === query) ??
    named.find((zone) => zone.status !== 'deleted') ??
    named[0]
  );
}

/** As the index ranks a search: the name itself, then a start of it, then of a label, then any. */
function rank(name: string, wanted: string): number {
  if (name === wanted) return 0;
  if (name.startsWith(wanted)) return 1;
  return name.includes(`.${wanted}`) ? 2 : 3;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The domain in ASCII (IDN as punycode), or AppError invalid_domain saying what is wrong. */
export function onboardableDomain(domain: string): string {
  const check = checkHostname(domain);
  if (!check.ok)
    throw new AppError({ code: 'invalid_domain', domain: domain.trim(), reason: check.reason });
  return check.ascii;
}
