// Turning a zone's rate limit on or off, audited. Propagation to every edge takes up to 30 s.
import type { Zone } from '../cdn/schemas.js';
import type { AuditLogRepository } from '../store/audit-log.js';
import type { AccessService, Caller } from './access.js';
import type { CdnAccess } from './cdn-access.js';
import type { FloodControl } from './flood.js';
import type { ZoneService } from './zones.js';

/** The spec: "A setting change can take up to 30 seconds to propagate to all edge locations." */
export const PROPAGATION_MS = 30_000;

export class RateLimitService {
  constructor(
    private readonly deps: {
      cdn: CdnAccess;
      audit: AuditLogRepository;
      access: AccessService;
      zones: ZoneService;
      flood: FloodControl;
    },
  ) {}

  /** Operators only, counted against the flood limit; returns the zone it changed. */
  async set(caller: Caller, zoneNameOrId: string, enabled: boolean): Promise<Zone> {
    await this.deps.access.requireOperator(caller, 'ratelimit');
    const zone = await this.deps.zones.resolve(caller.workspaceId, zoneNameOrId);
    await this.deps.flood.take(caller.workspaceId, caller.userId);
    const client = await this.deps.cdn.clientFor(caller.workspaceId);
    const audit = (outcome: 'ok' | 'failed', detail?: Record<string, unknown>) =>
      this.deps.audit.record({
        workspaceId: caller.workspaceId,
        actorId: caller.userId,
        action: enabled ? 'ratelimit.on' : 'ratelimit.off',
        zoneId: zone.id,
        zoneName: zone.name,
        outcome,
        ...(detail ? { detail } : {}),
      });
    try {
      // `mode` has no documented default, so it is always sent.
      await client.updateSettings(zone, { limits: { enabled, mode: 'automatic' } });
    } catch (error) {
      await audit('failed', { error: (error as { code?: string }).code ?? 'unknown' });
      throw error;
    }
    await audit('ok');
    return zone;
  }
}
