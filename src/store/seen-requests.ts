// Repository: deliveries already handled, so a Slack retry or a replayed request runs nothing
// twice on any replica. A key is remembered until it expires.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from './schema.js';

export class SeenRequestRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /**
   * True for the first delivery of `key` (it is remembered for `ttlMs`), false for a repeat. One
   * statement, so racing replicas agree on which of them saw it first.
   */
  async first(key: string, ttlMs: number): Promise<boolean> {
    const now = this.clock.now();
    const row = await this.db
      .insertInto('seen_requests')
      .values({ key, expires_at: now + ttlMs })
      .onConflict((c) =>
        c
          .column('key')
          .doUpdateSet({ expires_at: now + ttlMs })
          // An expired key is new again; a live one is left as it was (and nothing returned).
          .where('seen_requests.expires_at', '<=', now),
      )
      .returning('key')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Forgets up to `limit` expired keys; returns how many. */
  async prune(limit: number): Promise<number> {
    const expired = this.db
      .selectFrom('seen_requests')
      .select('key')
      .where('expires_at', '<=', this.clock.now())
      .limit(limit);
    const result = await this.db
      .deleteFrom('seen_requests')
      .where('key', 'in', expired)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
