// Repository: channels watching zones, each watched zone's evaluation schedule and baseline, where
// each rule of a watch stands, and the alerts posted. Every change that must happen once (an
// interval applied, a status moved, a rate limit turned on from a button) is one conditional write.
// Long: four tables behind one repository; issue 27 splits it by table.
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import type { SqlDialect } from './db.js';
import type {
  Database,
  WatchAlertStatus,
  WatchAlertsTable,
  WatchesTable,
  WatchZonesTable,
} from './schema.js';

export interface Watch {
  id: string;
  workspaceId: string;
  zoneId: string;
  zoneName: string;
  channelId: string;
  createdBy: string;
  /** Explicit thresholds as typed, besides the automatic rules. */
  rules: string[];
  createdAt: number;
  /** Why it stopped posting (its channel refused the bot); null (or absent) while it posts. */
  pausedReason?: string | null;
}

export interface WatchedZone {
  workspaceId: string;
  zoneId: string;
  zoneName: string;
  status: string;
  nextRunAt: number;
  baseline: unknown;
  baselineAt: number | null;
}

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

export interface WatchAlert {
  id: string;
  workspaceId: string;
  watchId: string;
  zoneId: string;
  zoneName: string;
  channelId: string;
  rule: string;
  status: WatchAlertStatus;
  startedAt: number;
  resolvedAt: number | null;
  detail: Record<string, unknown>;
  messageTs: string | null;
  ratelimitBy: string | null;
}

export class WatchRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly clock: Clock,
    private readonly newId: () => string = randomUUID,
  ) {}

  /** The channel's watch of the zone, created or given `rules`; true when it is new. */
  async upsert(
    input: Omit<Watch, 'id' | 'createdAt'>,
    zone: { status: string; firstRunAt: number },
  ): Promise<{ watch: Watch; created: boolean }> {
    const now = this.clock.now();
    // The zone's schedule before the watch, so that a crash between the two never leaves a watch
    // unscheduled; and again after it, for an unwatch racing this one from another channel: that
    // deletes the schedule only while no watch of the zone exists (one statement), so either it
    // sees this watch and keeps the schedule, or it deleted it before and the second put restores
    // it.
    await this.#putZone(input, zone, now);
    const result = await this.#putWatch(input, now);
    await this.#putZone(input, zone, now);
    return result;
  }

  async #putZone(
    input: Omit<Watch, 'id' | 'createdAt'>,
    zone: { status: string; firstRunAt: number },
    now: number,
  ): Promise<void> {
    await this.db
      .insertInto('watch_zones')
      .values({
        workspace_id: input.workspaceId,
        zone_id: input.zoneId,
        zone_name: input.zoneName,
        status: zone.status,
        next_run_at: zone.firstRunAt,
        baseline: null,
        baseline_at: null,
        updated_at: now,
      })
      .onConflict((c) => c.columns(['workspace_id', 'zone_id']).doNothing())
      .execute();
  }

  async #putWatch(
    input: Omit<Watch, 'id' | 'createdAt'>,
    now: number,
  ): Promise<{ watch: Watch; created: boolean }> {
    const existing = await this.find(input.workspaceId, input.zoneId, input.channelId);
    if (existing) {
      await this.db
        .updateTable('watches')
        // Watching again in the channel resumes a paused watch (its DM says so).
        .set({ rules: JSON.stringify(input.rules), updated_at: now, paused_reason: null })
        .where('id', '=', existing.id)
        .execute();
      return { watch: { ...existing, rules: input.rules, pausedReason: null }, created: false };
    }
    const row: Selectable<WatchesTable> = {
      id: this.newId(),
      workspace_id: input.workspaceId,
      zone_id: input.zoneId,
      zone_name: input.zoneName,
      channel_id: input.channelId,
      created_by: input.createdBy,
      rules: JSON.stringify(input.rules),
      created_at: now,
      updated_at: now,
      paused_reason: null,
    };
    const inserted = await this.db
      .insertInto('watches')
      .values(row)
      .onConflict((c) => c.columns(['workspace_id', 'zone_id', 'channel_id']).doNothing())
      .executeTakeFirst();
    if ((inserted.numInsertedOrUpdatedRows ?? 0n) === 0n) {
      const raced = await this.find(input.workspaceId, input.zoneId, input.channelId);
      if (raced) return { watch: raced, created: false };
    }
    return { watch: toWatch(row), created: true };
  }

  async get(id: string): Promise<Watch | undefined> {
    const row = await this.db
      .selectFrom('watches')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toWatch(row);
  }

  async find(workspaceId: string, zoneId: string, channelId: string): Promise<Watch | undefined> {
    const row = await this.db
      .selectFrom('watches')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('zone_id', '=', zoneId)
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    return row && toWatch(row);
  }

  async listForWorkspace(workspaceId: string): Promise<Watch[]> {
    const rows = await this.db
      .selectFrom('watches')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('zone_name')
      .orderBy('channel_id')
      .execute();
    return rows.map(toWatch);
  }

  async listForZone(workspaceId: string, zoneId: string): Promise<Watch[]> {
    const rows = await this.db
      .selectFrom('watches')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('zone_id', '=', zoneId)
      .orderBy('created_at')
      .execute();
    return rows.map(toWatch);
  }

  /** Pauses a watch that cannot post; true for the one caller that paused it (it tells its creator). */
  async pause(id: string, reason: string): Promise<boolean> {
    const result = await this.db
      .updateTable('watches')
      .set({ paused_reason: reason, updated_at: this.clock.now() })
      .where('id', '=', id)
      .where('paused_reason', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Removes the channel's watch of the zone (and the zone's schedule when nobody watches it). */
  async remove(watch: Watch): Promise<boolean> {
    const deleted = await this.db
      .deleteFrom('watches')
      .where('id', '=', watch.id)
      .executeTakeFirst();
    await this.db.deleteFrom('watch_rule_states').where('watch_id', '=', watch.id).execute();
    await this.dropZoneIfUnwatched(watch.workspaceId, watch.zoneId);
    return deleted.numDeletedRows > 0n;
  }

  /**
   * Deletes the zone's schedule if no watch of it is left, judged in the same statement: a watch
   * from another channel may be on its way in (see upsert, which puts the schedule again after
   * its watch). On PostgreSQL the row is locked first, so that the statement's look for watches
   * is taken after any other holder of the row let go, not before (a DELETE that waits for a row
   * lock would judge by what it saw before waiting). True when it went.
   */
  async dropZoneIfUnwatched(workspaceId: string, zoneId: string): Promise<boolean> {
    const drop = async (db: Kysely<Database>) => {
      const result = await db
        .deleteFrom('watch_zones')
        .where('workspace_id', '=', workspaceId)
        .where('zone_id', '=', zoneId)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('watches')
                .select('watches.id')
                .where('watches.workspace_id', '=', workspaceId)
                .where('watches.zone_id', '=', zoneId),
            ),
          ),
        )
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    };
    // SQLite runs one writer at a time: the statement alone is enough.
    if (this.dialect !== 'postgres') return drop(this.db);
    return this.db.transaction().execute(async (trx) => {
      await trx
        .selectFrom('watch_zones')
        .select('zone_id')
        .where('workspace_id', '=', workspaceId)
        .where('zone_id', '=', zoneId)
        .forUpdate()
        .execute();
      return drop(trx);
    });
  }

  /** Every watch of a workspace goes (its key removed, the app uninstalled); returns how many. */
  async removeWorkspace(workspaceId: string): Promise<number> {
    const ids = (
      await this.db
        .selectFrom('watches')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .execute()
    ).map((row) => row.id);
    if (ids.length > 0)
      await this.db.deleteFrom('watch_rule_states').where('watch_id', 'in', ids).execute();
    await this.db.deleteFrom('watches').where('workspace_id', '=', workspaceId).execute();
    await this.db.deleteFrom('watch_zones').where('workspace_id', '=', workspaceId).execute();
    // Their alerts name zones and channels: they go with the workspace.
    await this.db.deleteFrom('watch_alerts').where('workspace_id', '=', workspaceId).execute();
    return ids.length;
  }

  // Watched zones.

  async zone(workspaceId: string, zoneId: string): Promise<WatchedZone | undefined> {
    const row = await this.db
      .selectFrom('watch_zones')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('zone_id', '=', zoneId)
      .executeTakeFirst();
    return row && toZone(row);
  }

  /**
   * Watched zones whose evaluation is due at `now` or before, earliest first. A workspace without a
   * CDN key (`/cdn logout`) has its zones wait as they are: nothing is written to pause them, and
   * they are due again (only their latest interval: see WatchEvaluation.tick) once a key is set.
   */
  async dueZones(limit: number): Promise<WatchedZone[]> {
    const rows = await this.db
      .selectFrom('watch_zones')
      .selectAll()
      .where('next_run_at', '<=', this.clock.now())
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('cdn_credentials')
            .select('cdn_credentials.workspace_id')
            .whereRef('cdn_credentials.workspace_id', '=', 'watch_zones.workspace_id'),
        ),
      )
      .orderBy('next_run_at')
      .limit(limit)
      .execute();
    return rows.map(toZone);
  }

  /** Moves the zone's evaluation due at `dueAt` on to `nextRunAt`: true for the one that won. */
  async claimZone(
    workspaceId: string,
    zoneId: string,
    dueAt: number,
    nextRunAt: number,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('watch_zones')
      .set({ next_run_at: nextRunAt, updated_at: this.clock.now() })
      .where('workspace_id', '=', workspaceId)
      .where('zone_id', '=', zoneId)
      .where('next_run_at', '=', dueAt)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Holds the zone's next evaluation until `until` at the earliest (the CDN asked to wait). */
  async delayZone(workspaceId: string, zoneId: string, until: number): Promise<void> {
    await this.db
      .updateTable('watch_zones')
      .set({ next_run_at: until, updated_at: this.clock.now() })
      .where('workspace_id', '=', workspaceId)
      .where('zone_id', '=', zoneId)
      .where('next_run_at', '<', until)
      .execute();
  }

  /** Moves the zone's known status from `from` to `to`: true for the one caller that moved it. */
  async moveStatus(
    workspaceId: string,
    zoneId: string,
    from: string,
    to: string,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('watch_zones')
      .set({ status: to, updated_at: this.clock.now() })
      .where('workspace_id', '=', workspaceId)
      .where('zone_id', '=', zoneId)
      .where('status', '=', from)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async setBaseline(workspaceId: string, zoneId: string, baseline: unknown): Promise<void> {
    const now = this.clock.now();
    await this.db
      .updateTable('watch_zones')
      .set({ baseline: JSON.stringify(baseline), baseline_at: now, updated_at: now })
      .where('workspace_id', '=', workspaceId)
      .where('zone_id', '=', zoneId)
      .execute();
  }

  // Rule states.

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

  // Alerts.

  /** Stores the alert once (a resumed evaluation gives the same id). */
  async createAlert(alert: Omit<WatchAlert, 'messageTs' | 'ratelimitBy'>): Promise<void> {
    const row: Selectable<WatchAlertsTable> = {
      id: alert.id,
      workspace_id: alert.workspaceId,
      watch_id: alert.watchId,
      zone_id: alert.zoneId,
      zone_name: alert.zoneName,
      channel_id: alert.channelId,
      rule: alert.rule,
      status: alert.status,
      started_at: alert.startedAt,
      resolved_at: alert.resolvedAt,
      detail: JSON.stringify(alert.detail),
      message_ts: null,
      ratelimit_by: null,
      ratelimit_claimed_at: null,
      ratelimit_done_at: null,
      created_at: this.clock.now(),
    };
    await this.db
      .insertInto('watch_alerts')
      .values(row)
      .onConflict((c) => c.column('id').doNothing())
      .execute();
  }

  async alert(id: string): Promise<WatchAlert | undefined> {
    const row = await this.db
      .selectFrom('watch_alerts')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toAlert(row);
  }

  async resolveAlert(id: string, at: number, detail: Record<string, unknown>): Promise<void> {
    await this.db
      .updateTable('watch_alerts')
      .set({ status: 'resolved', resolved_at: at, detail: JSON.stringify(detail) })
      .where('id', '=', id)
      .where('status', '=', 'firing')
      .execute();
  }

  async setAlertMessage(id: string, ts: string): Promise<void> {
    await this.db
      .updateTable('watch_alerts')
      .set({ message_ts: ts })
      .where('id', '=', id)
      .execute();
  }

  /**
   * The first person to ask turns rate limiting on from this alert: `claimed` for them only. A
   * claim that never got done (the process died mid-call) may be taken again once it was taken
   * before `staleBefore`; otherwise the answer says who has it, and whether the change was made.
   */
  async claimRateLimit(
    id: string,
    userId: string,
    staleBefore: number,
  ): Promise<{ claimed: true } | { claimed: false; by: string; done: boolean }> {
    const first = await this.#claimRateLimit(id, userId, staleBefore);
    if (first !== 'released') return first;
    // Released between its two looks (the holder's change failed): it is free, so once more.
    const second = await this.#claimRateLimit(id, userId, staleBefore);
    return second === 'released' ? { claimed: false, by: userId, done: false } : second;
  }

  async #claimRateLimit(
    id: string,
    userId: string,
    staleBefore: number,
  ): Promise<{ claimed: true } | { claimed: false; by: string; done: boolean } | 'released'> {
    const result = await this.db
      .updateTable('watch_alerts')
      .set({
        ratelimit_by: userId,
        ratelimit_claimed_at: this.clock.now(),
        ratelimit_done_at: null,
      })
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('ratelimit_by', 'is', null),
          eb.and([
            eb('ratelimit_done_at', 'is', null),
            eb('ratelimit_claimed_at', 'is not', null),
            eb('ratelimit_claimed_at', '<', staleBefore),
          ]),
        ]),
      )
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) return { claimed: true };
    const row = await this.db
      .selectFrom('watch_alerts')
      .select(['ratelimit_by', 'ratelimit_claimed_at', 'ratelimit_done_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (row && row.ratelimit_by === null) return 'released';
    return {
      claimed: false,
      by: row?.ratelimit_by ?? userId,
      // A claim from before 0009 has no times: it was made.
      done: row?.ratelimit_done_at != null || row?.ratelimit_claimed_at == null,
    };
  }

  /** The CDN took the change the claim was for. */
  async rateLimitDone(id: string, userId: string): Promise<void> {
    await this.db
      .updateTable('watch_alerts')
      .set({ ratelimit_done_at: this.clock.now() })
      .where('id', '=', id)
      .where('ratelimit_by', '=', userId)
      .execute();
  }

  /** The change failed: the button may be tried again. */
  async releaseRateLimit(id: string, userId: string): Promise<void> {
    await this.db
      .updateTable('watch_alerts')
      .set({ ratelimit_by: null, ratelimit_claimed_at: null })
      .where('id', '=', id)
      .where('ratelimit_by', '=', userId)
      .where('ratelimit_done_at', 'is', null)
      .execute();
  }

  /**
   * Drops alerts that are over: resolved before `before`, or fired before it by a watch that is
   * gone (an alert still firing on a watch stays, whatever its age: its resolution updates its
   * message). At most `limit` go; returns how many.
   */
  async pruneAlerts(before: number, limit: number): Promise<number> {
    const over = this.db
      .selectFrom('watch_alerts')
      .select('id')
      .where((eb) =>
        eb.or([
          // Resolved that long ago (not fired: one that fired long before may be resolving now).
          eb.and([eb('status', '=', 'resolved'), eb('resolved_at', '<', before)]),
          eb.and([
            eb('created_at', '<', before),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('watches')
                  .select('watches.id')
                  .whereRef('watches.id', '=', 'watch_alerts.watch_id'),
              ),
            ),
          ]),
        ]),
      )
      .limit(limit);
    const result = await this.db
      .deleteFrom('watch_alerts')
      .where('id', 'in', over)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async alertsForWorkspace(workspaceId: string): Promise<WatchAlert[]> {
    const rows = await this.db
      .selectFrom('watch_alerts')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .execute();
    return rows.map(toAlert);
  }
}

function toWatch(row: Selectable<WatchesTable>): Watch {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    zoneId: row.zone_id,
    zoneName: row.zone_name,
    channelId: row.channel_id,
    createdBy: row.created_by,
    rules: JSON.parse(row.rules) as string[],
    createdAt: Number(row.created_at),
    pausedReason: row.paused_reason ?? null,
  };
}

function toZone(row: Selectable<WatchZonesTable>): WatchedZone {
  return {
    workspaceId: row.workspace_id,
    zoneId: row.zone_id,
    zoneName: row.zone_name,
    status: row.status,
    nextRunAt: Number(row.next_run_at),
    baseline: row.baseline === null ? undefined : JSON.parse(row.baseline),
    baselineAt: row.baseline_at === null ? null : Number(row.baseline_at),
  };
}

function toAlert(row: Selectable<WatchAlertsTable>): WatchAlert {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    watchId: row.watch_id,
    zoneId: row.zone_id,
    zoneName: row.zone_name,
    channelId: row.channel_id,
    rule: row.rule,
    status: row.status,
    startedAt: Number(row.started_at),
    resolvedAt: row.resolved_at === null ? null : Number(row.resolved_at),
    detail: JSON.parse(row.detail) as Record<string, unknown>,
    messageTs: row.message_ts,
    ratelimitBy: row.ratelimit_by,
  };
}
