// Bounds on what reading the CDN for people costs the workspace (zone lists and their pages,
// charts, rate-limit state): checked before the CDN is called, per person and per workspace, in
// the store (every replica shares one bound; racing requests never both take the last read). Only
// the workspace's own people spend its quota: someone from another organization in a shared
// channel is refused first.
import { AppError } from '../errors.js';
import type { RateSlotRepository } from '../store/rate-slots.js';
import type { AccessService, Caller } from './access.js';

const MINUTE_MS = 60_000;

export interface CdnReadLimits {
  /** Reads one person may make per minute (CDN_READ_RATE_LIMIT); 0: no bound. */
  person: number;
  /** Reads a whole workspace may make per minute (CDN_READ_RATE_LIMIT_WORKSPACE); 0: no bound. */
  workspace: number;
}

export class CdnReads {
  constructor(
    private readonly slots: RateSlotRepository,
    private readonly access: AccessService,
    private readonly limits: CdnReadLimits,
  ) {}

  /**
   * One read of the CDN for `caller`, before it is made: refused (AppError `stranger`) to
   * someone who is not one of the workspace's own, and (`too_many_reads`) past either bound.
   */
  async take(caller: Caller): Promise<void> {
    await this.access.requireWorkspaceMember(caller, 'read_cdn');
    // The person's bound first: one person's loop is refused before it spends the workspace's.
    await this.#take('person', `cdn-reads:${caller.workspaceId}:${caller.userId}`);
    await this.#take('workspace', `cdn-reads:${caller.workspaceId}`);
  }

  async #take(scope: 'person' | 'workspace', key: string): Promise<void> {
    const limit = this.limits[scope];
    if (limit <= 0) return;
    // One read every minute/limit, with a burst of `limit` at once.
    const gap = MINUTE_MS / limit;
    const waitMs = await this.slots.takeWithin(key, gap, MINUTE_MS - gap);
    if (waitMs === 0) return;
    throw new AppError({
      code: 'too_many_reads',
      scope,
      limit,
      retryInSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
    });
  }
}
