// Zones of a workspace: listing, finding by name or id, searching for pickers, and creating.
import { distance } from 'fastest-levenshtein';
import { LRUCache } from 'lru-cache';
import type { CreateZoneResult, ZonePage } from '../cdn/client.js';
import { checkHostname } from '../cdn/hostname.js';
import type { Zone, ZonePlan } from '../cdn/schemas.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { defined } from '../objects.js';
import type { AuditLogRepository } from '../store/audit-log.js';
import type { CdnAccess } from './cdn-access.js';

export type { CreateZoneResult, ZonePage } from '../cdn/client.js';
export { ZONE_PLANS, ZONE_STATUSES, type Zone, type ZonePlan } from '../cdn/schemas.js';

export const ZONES_PER_PAGE = 10;

export interface ZoneServiceOptions {
  cdn: CdnAccess;
  audit: AuditLogRepository;
  clock: Clock;
  /** How long a workspace's zone list is reused for lookups and pickers. */
  cacheTtlMs?: number;
}

export class ZoneService {
  readonly #cdn: CdnAccess;
  readonly #audit: AuditLogRepository;
  readonly #cache: LRUCache<string, Zone[]>;

  constructor(options: ZoneServiceOptions) {
    this.#cdn = options.cdn;
    this.#audit = options.audit;
    this.#cache = new LRUCache<string, Zone[]>({
      max: 1_000,
      ttl: options.cacheTtlMs ?? 60_000,
      perf: { now: () => options.clock.now() },
      // Concurrent lookups for one workspace share a single listing.
      fetchMethod: async (workspaceId, _stale, { signal }) => {
        const client = await this.#cdn.clientFor(workspaceId);
        const zones: Zone[] = [];
        for await (const zone of client.allZones({}, { signal })) zones.push(zone);
        return zones;
      },
    });
  }

  async page(workspaceId: string, params: { status?: string; page: number }): Promise<ZonePage> {
    const client = await this.#cdn.clientFor(workspaceId);
    return client.listZones({
      page: params.page,
      perPage: ZONES_PER_PAGE,
      ...defined('status', params.status),
    });
  }

  /** Every zone of the workspace, from a list at most a minute old. */
  async all(workspaceId: string): Promise<Zone[]> {
    return (await this.#cache.fetch(workspaceId)) ?? [];
  }

  /** The zone named by `nameOrId` (a domain or an id); AppError zone_not_found with suggestions. */
  async resolve(workspaceId: string, nameOrId: string): Promise<Zone> {
    const wanted = nameOrId.trim().toLowerCase().replace(/\.$/, '');
    const zones = await this.all(workspaceId);
    const live = (zone: Zone) => zone.status !== 'deleted';
    const found =
      zones.find((zone) => zone.id === nameOrId.trim()) ??
      zones.find((zone) => zone.name.toLowerCase() === wanted && live(zone)) ??
      zones.find((zone) => zone.name.toLowerCase() === wanted);
    if (found) return found;
    const suggestions = zones
      .filter(live)
      .map((zone) => ({ zone, score: distance(zone.name.toLowerCase(), wanted) }))
      .filter(({ score }) => score <= Math.max(2, Math.floor(wanted.length / 4)))
      .sort((a, b) => a.score - b.score)
      .slice(0, 3)
      .map(({ zone }) => zone.name);
    throw new AppError({ code: 'zone_not_found', query: nameOrId.trim(), suggestions });
  }

  /** Live zones whose name or id contains `query`, best matches first, at most `limit`. */
  async search(workspaceId: string, query: string, limit = 100): Promise<Zone[]> {
    const needle = query.trim().toLowerCase();
    const zones = (await this.all(workspaceId)).filter((zone) => zone.status !== 'deleted');
    const matches = needle
      ? zones.filter((zone) => zone.name.toLowerCase().includes(needle) || zone.id === query.trim())
      : zones;
    return matches
      .sort((a, b) => rank(a.name, needle) - rank(b.name, needle) || a.name.localeCompare(b.name))
      .slice(0, limit);
  }

  /** Validates the domain (no API call if it is wrong), creates the zone, and audits it. */
  async create(
    workspaceId: string,
    input: { domain: string; plan: ZonePlan; actorId: string },
  ): Promise<CreateZoneResult & { name: string }> {
    const ascii = onboardableDomain(input.domain);
    const client = await this.#cdn.clientFor(workspaceId);
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
    this.#cache.delete(workspaceId);
    await audit('ok', result.kind === 'created' ? result.zone.id : null, { result: result.kind });
    return { ...result, name: ascii };
  }

  forget(workspaceId: string): void {
    this.#cache.delete(workspaceId);
  }
}

/** Prefix matches first, then matches at a label boundary, then anywhere. */
function rank(name: string, needle: string): number {
  const lower = name.toLowerCase();
  if (!needle || lower.startsWith(needle)) return 0;
  if (lower.includes(`.${needle}`)) return 1;
  return 2;
}

/** The domain in ASCII (IDN as punycode), or AppError invalid_domain saying what is wrong. */
export function onboardableDomain(domain: string): string {
  const check = checkHostname(domain);
  if (!check.ok)
    throw new AppError({ code: 'invalid_domain', domain: domain.trim(), reason: check.reason });
  return check.ascii;
}
