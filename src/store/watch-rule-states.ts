// Repository: where each rule of a watch stands (firing, its streak, the last interval applied,
// snoozed or muted). A step for an interval is one conditional write, so it is taken once.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from './schema.js';

export interface RuleState {
  watchId: string;
  rule: string;
  firing: boolean;
  streak: number;
  lastInterval: number;
  alertId: string | null;
  snoozedUntil: number | null;
  muted: boolean;
}

export class WatchRuleRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async ruleStates(watchIds: string[], rule?: string): Promise<RuleState[]> {
    if (watchIds.length === 0) return [];
    let query = this.db
      .selectFrom('watch_rule_states')
      .selectAll()
      .where('watch_id', 'in', watchIds);
    if (rule !== undefined) query = query.where('rule', '=', rule);
    const rows = await query.execute();
    return rows.map((row) => ({
      watchId: row.watch_id,
      rule: row.rule,
      firing: Number(row.firing) === 1,
      streak: Number(row.streak),
      lastInterval: Number(row.last_interval),
      alertId: row.alert_id,
      snoozedUntil: row.snoozed_until === null ? null : Number(row.snoozed_until),
      muted: Number(row.muted) === 1,
    }));
  }

  /**
   * Writes the rule's state for the interval due at `interval.to`, if it still stands where it
   * was read (`interval.from` applied last, muted as `muted` says: an unmute in between makes the
   * step be taken again, unmuted): true when this call applied it.
   */
  async applyRuleState(
    watchId: string,
    rule: string,
    interval: { from: number; to: number },
    next: { firing: boolean; streak: number; alertId: string | null },
    muted = false,
  ): Promise<boolean> {
    await this.#ensureRuleState(watchId, rule);
    const result = await this.db
      .updateTable('watch_rule_states')
      .set({
        firing: next.firing ? 1 : 0,
        streak: next.streak,
        alert_id: next.alertId,
        last_interval: interval.to,
        updated_at: this.clock.now(),
      })
      .where('watch_id', '=', watchId)
      .where('rule', '=', rule)
      .where('last_interval', '=', interval.from)
      .where('muted', '=', muted ? 1 : 0)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async snooze(watchId: string, rule: string, until: number): Promise<void> {
    await this.#ensureRuleState(watchId, rule);
    await this.db
      .updateTable('watch_rule_states')
      .set({ snoozed_until: until, updated_at: this.clock.now() })
      .where('watch_id', '=', watchId)
      .where('rule', '=', rule)
      .execute();
  }

  async mute(watchId: string, rule: string): Promise<void> {
    await this.#ensureRuleState(watchId, rule);
    await this.db
      .updateTable('watch_rule_states')
      .set({ muted: 1, updated_at: this.clock.now() })
      .where('watch_id', '=', watchId)
      .where('rule', '=', rule)
      .execute();
  }

  /**
   * Unmutes the rule: true for the one caller that did. A breach it kept quiet (firing, with no
   * alert) is forgotten, so the rule fires again, after its hold, if the breach goes on.
   */
  async unmute(watchId: string, rule: string): Promise<boolean> {
    const result = await this.db
      .updateTable('watch_rule_states')
      .set((eb) => ({
        muted: 0,
        firing: eb.case().when('alert_id', 'is', null).then(0).else(eb.ref('firing')).end(),
        streak: eb.case().when('alert_id', 'is', null).then(0).else(eb.ref('streak')).end(),
        updated_at: this.clock.now(),
      }))
      .where('watch_id', '=', watchId)
      .where('rule', '=', rule)
      .where('muted', '=', 1)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async #ensureRuleState(watchId: string, rule: string): Promise<void> {
    await this.db
      .insertInto('watch_rule_states')
      .values({
        watch_id: watchId,
        rule,
        firing: 0,
        streak: 0,
        last_interval: 0,
        alert_id: null,
        snoozed_until: null,
        muted: 0,
        updated_at: this.clock.now(),
      })
      .onConflict((c) => c.columns(['watch_id', 'rule']).doNothing())
      .execute();
  }
}
