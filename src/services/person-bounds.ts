// Bounds on what people may ask of the bot, per person and per workspace over a window, checked
// before the work is done: slots in the store (every replica shares one bound; racing requests
// never both take the last one). One request every window/limit, with a burst of `limit` at once.
import type { AppError } from '../errors.js';
import type { RateSlotRepository } from '../store/rate-slots.js';

/** Requests per window, for one person and for a whole workspace; 0: no bound. */
export interface PersonLimits {
  person: number;
  workspace: number;
}

export type BoundScope = keyof PersonLimits;

/** The refusal of a request past the bound of `scope`: retry in `retryInSeconds` (at least 1). */
export type BoundRefusal = (scope: BoundScope, limit: number, retryInSeconds: number) => AppError;

export class PersonBounds {
  constructor(
    private readonly slots: RateSlotRepository,
    /** The slots' key prefix: what is bounded. */
    private readonly name: string,
    private readonly limits: PersonLimits,
    private readonly windowMs: number,
    private readonly refuse: BoundRefusal,
  ) {}

  /**
   * One request by `userId` of `workspaceId`, or the refusal past either bound. The person's bound
   * first: one person's loop is refused before it spends the workspace's.
   */
  async take(workspaceId: string, userId: string): Promise<void> {
    await this.#take('person', `${this.name}:${workspaceId}:${userId}`);
    await this.#take('workspace', `${this.name}:${workspaceId}`);
  }

  async #take(scope: BoundScope, key: string): Promise<void> {
    const limit = this.limits[scope];
    if (limit <= 0) return;
    const gap = this.windowMs / limit;
    const waitMs = await this.slots.takeWithin(key, gap, this.windowMs - gap);
    if (waitMs === 0) return;
    throw this.refuse(scope, limit, Math.max(1, Math.ceil(waitMs / 1000)));
  }
}
