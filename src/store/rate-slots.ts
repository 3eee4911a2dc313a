// Repository: time slots shared by every replica, for calls spaced out (Slack's one post a second
// a channel, a Web API method's tier: CallPace) and for per-key rate limits refused rather than
// delayed (takeRateLimit). Taking a slot is one statement: the key's next free time moves on by
// the gap, so racing replicas get different slots. Why not a library's: src/throttles/.
import { type Kysely, sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { SqlDialect } from './db.js';
import type { Database } from './schema.js';

/** Slots further back than this are forgotten by `prune`. */
const FORGET_AFTER_MS = 60 * 60_000;

export class RateSlotRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly clock: Clock,
  ) {}

  /**
   * Takes the next slot of `key` at or after `notBefore` (default: now): the time at which the
   * caller may go (later when others took the slots before), with the one after it `gapMs` later.
   */
  async take(key: string, gapMs: number, notBefore = 0): Promise<number> {
    const now = Math.max(this.clock.now(), notBefore);
    const greatest = this.dialect === 'postgres' ? sql.raw('greatest') : sql.raw('max');
    const row = await this.db
      .insertInto('rate_slots')
      .values({ key, next_at: now + gapMs })
      .onConflict((c) =>
        c.column('key').doUpdateSet({
          next_at: sql<number>`${greatest}(${sql.ref('rate_slots.next_at')}, ${now}) + ${gapMs}`,
        }),
      )
      .returning('next_at')
      .executeTakeFirstOrThrow();
    return Number(row.next_at) - gapMs;
  }

  /**
   * Takes a slot of `key` now if one is free within `toleranceMs` (a generic cell rate algorithm:
   * one call per `gapMs`, with bursts of `toleranceMs / gapMs + 1`); else takes nothing. Returns 0
   * when taken, or how long until a slot would be free. One statement: racing replicas never both
   * take the last slot.
   */
  async takeWithin(key: string, gapMs: number, toleranceMs: number): Promise<number> {
    const now = this.clock.now();
    const greatest = this.dialect === 'postgres' ? sql.raw('greatest') : sql.raw('max');
    const taken = await this.db
      .insertInto('rate_slots')
      .values({ key, next_at: now + gapMs })
      .onConflict((c) =>
        c
          .column('key')
          .doUpdateSet({
            next_at: sql<number>`${greatest}(${sql.ref('rate_slots.next_at')}, ${now}) + ${gapMs}`,
          })
          .where('rate_slots.next_at', '<=', now + toleranceMs),
      )
      .returning('next_at')
      .executeTakeFirst();
    if (taken) return 0;
    const row = await this.db
      .selectFrom('rate_slots')
      .select('next_at')
      .where('key', '=', key)
      .executeTakeFirst();
    return Math.max(1, Number(row?.next_at ?? now) - toleranceMs - now);
  }

  /**
   * Forgets keys whose slots are long past (a key whose next slot is past is as good as new);
   * `limit` at most when given. Returns how many.
   */
  async prune(limit?: number): Promise<number> {
    const past = this.db
      .selectFrom('rate_slots')
      .select('key')
      .where('next_at', '<', this.clock.now() - FORGET_AFTER_MS)
      .$if(limit !== undefined, (q) => q.limit(limit as number));
    const result = await this.db
      .deleteFrom('rate_slots')
      .where('key', 'in', past)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
