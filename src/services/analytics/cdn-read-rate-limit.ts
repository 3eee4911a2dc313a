// The CDN read rate limit: what reading the CDN for people costs the workspace (zone lists and
// their pages, charts, rate-limit state), checked before the CDN is called, per person and per
// workspace (a per-person rate limit, src/throttles). Only the workspace's own people spend its
// quota: someone from another organization in a shared channel is refused first.
import { AppError } from '../../errors.js';
import type { RateSlots } from '../../throttles/per-key-rate-limit.js';
import { PerPersonRateLimit, type PersonLimits } from '../../throttles/per-person-rate-limit.js';
import type { AccessService, Caller } from '../access/access.js';

const MINUTE_MS = 60_000;

/**
 * Reads per minute: of one person (CDN_READ_RATE_LIMIT) and of a whole workspace
 * (CDN_READ_RATE_LIMIT_WORKSPACE); 0: no limit.
 */
export type CdnReadLimits = PersonLimits;

export class CdnReadRateLimit {
  readonly #limit: PerPersonRateLimit;

  constructor(
    slots: RateSlots,
    private readonly access: AccessService,
    limits: CdnReadLimits,
  ) {
    this.#limit = new PerPersonRateLimit(
      slots,
      'cdn-reads',
      limits,
      MINUTE_MS,
      (scope, limit, retryInSeconds) =>
        new AppError({ code: 'too_many_reads', scope, limit, retryInSeconds }),
    );
  }

  /**
   * One read of the CDN for `caller`, before it is made: refused (AppError `stranger`) to
   * someone who is not one of the workspace's own, and (`too_many_reads`) past either limit.
   */
  async take(caller: Caller): Promise<void> {
    await this.access.requireWorkspaceMember(caller, 'read_cdn');
    await this.#limit.take(caller.workspaceId, caller.userId);
  }
}
