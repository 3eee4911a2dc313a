// Turning a zone's rate limit on or off, audited. Propagation to every edge takes up to 30 s.
import type { Zone } from '../cdn/schemas.js';
import type { AuditLogRepository } from '../store/audit-log.js';
import type { CdnAccess } from './cdn-access.js';

/** The spec: "A setting change can take up to 30 seconds to propagate to all edge locations." */
export const PROPAGATION_MS = 30_000;

export class RateLimitService {
  constructor(
    private readonly cdn: CdnAccess,
    private readonly audit: AuditLogRepository,
  ) {}

  async set(workspaceId: string, zone: Zone, enabled: boolean, actorId: string): Promise<void> {
    const client = await this.cdn.clientFor(workspaceId);
    const action = enabled ? 'ratelimit.on' : 'ratelimit.off';
    try {
      // `mode` has no documented default, so it is always sent.
      await client.updateSettings(zone, { limits: { enabled, mode: 'automatic' } });
    } catch (error) {
      await this.audit.record({
        workspaceId,
        actorId,
        action,
        zoneId: zone.id,
        zoneName: zone.name,
        outcome: 'failed',
        detail: { error: (error as { code?: string }).code ?? 'unknown' },
      });
      throw error;
    }
    await this.audit.record({
      workspaceId,
      actorId,
      action,
      zoneId: zone.id,
      zoneName: zone.name,
      outcome: 'ok',
    });
  }
}
