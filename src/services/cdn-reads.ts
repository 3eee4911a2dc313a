// Bounds on what reading the CDN for people costs the workspace (zone lists and their pages,
// charts, rate-limit state): checked before the CDN is called, per person and per workspace, in
// the store (person-bounds.ts). Only the workspace's own people spend its quota: someone from
// another organization in a shared channel is refused first.
import { AppError } from '../errors.js';
import type { RateSlotRepository } from '../store/rate-slots.js';
import type { AccessService, Caller } from './access.js';
import { PersonBounds, type PersonLimits } from './person-bounds.js';

const MINUTE_MS = 60_000;

/**
 * Reads per minute: of one person (CDN_READ_RATE_LIMIT) and of a whole workspace
 * (CDN_READ_RATE_LIMIT_WORKSPACE); 0: no bound.
 */
export type CdnReadLimits = PersonLimits;

export class CdnReads {
  readonly #bounds: PersonBounds;

  constructor(
    slots: RateSlotRepository,
    private readonly access: AccessService,
    limits: CdnReadLimits,
  ) {
    this.#bounds = new PersonBounds(
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
   * someone who is not one of the workspace's own, and (`too_many_reads`) past either bound.
   */
  async take(caller: Caller): Promise<void> {
    await this.access.requireWorkspaceMember(caller, 'read_cdn');
    await this.#bounds.take(caller.workspaceId, caller.userId);
  }
}
