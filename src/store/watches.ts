// Repository: channels watching zones, and each watched zone's evaluation schedule and baseline.
// A zone's due interval becomes its job (keyed by zone and interval) in the transaction that moves
// the zone on; a status moves by one conditional write. Where each rule stands is in
// watch-rules.ts, the alerts posted in watch-alerts.ts.
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import type { SqlDialect } from './db.js';
import { takeRows, withCdnKey } from './due.js';
import type { JobRepository, NewJob } from './jobs.js';
import { refuseAtLimits, withWorkspaceLock } from './limits.js';
import type { Database, WatchesTable, WatchZonesTable } from './schema.js';
import type { WorkspaceLimits } from './workspaces.js';
import { toZoneWork, type ZoneWork, zoneWorkColumns } from './zone-work.js';

export interface Watch extends ZoneWork {
  /** Explicit thresholds as typed, besides the automatic rules. */
  rules: string[];
  createdAt: number;
  /** Why it stopped posting (its channel refused the bot); null (or absent) while it posts. */
  pausedReason?: string | null;
}

export interface WatchedZone {
  workspaceId: string;
  zoneId: string;
  /** The zone's CDN account. */
  accountId: string;
  zoneName: string;
  status: string;
  nextRunAt: number;
  baseline: unknown;
  baselineAt: number | null;
}

export class WatchRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly clock: Clock,
    private readonly jobs: JobRepository,
    private readonly newId: () => string = randomUUID,
  ) {}

  /**
   * The channel's watch of the zone, created or given `rules`; true when it is new. A new one is
   * made only while the workspace has fewer than `limits.watches` and its creator fewer than
   * `limits.watchesPerPerson` (counted and made together, see limits.ts); otherwise nothing is
   * stored, and AppError limit_reached says which limit.
   */
  async upsert(
    input: Omit<Watch, 'id' | 'createdAt'>,
    zone: { status: string; firstRunAt: number },
    limits: Pick<WorkspaceLimits, 'watches' | 'watchesPerPerson'>,
  ): Promise<{ watch: Watch; created: boolean }> {
    const now = this.clock.now();
    // The zone's schedule before the watch, so that a crash between the two never leaves a watch
    // unscheduled; and again after it, for an unwatch racing this one from another channel: that
    // deletes the schedule only while no watch of the zone exists (one statement), so either it
    // sees this watch and keeps the schedule, or it deleted it before and the second put restores
    // it. A refused watch takes back the schedule put for it (unless another watch has it).
    await this.#putZone(input, zone, now);
    const result = await this.#putWatch(input, now, limits).catch(async (error: unknown) => {
      await this.dropZoneIfUnwatched(input.workspaceId, input.zoneId, input.accountId);
      throw error;
    });
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
        account_id: input.accountId,
        zone_id: input.zoneId,
        zone_name: input.zoneName,
        status: zone.status,
        next_run_at: zone.firstRunAt,
        baseline: null,
        baseline_at: null,
        updated_at: now,
      })
      .onConflict((c) => c.columns(['workspace_id', 'account_id', 'zone_id']).doNothing())
      .execute();
  }

  async #putWatch(
    input: Omit<Watch, 'id' | 'createdAt'>,
    now: number,
    limits: Pick<WorkspaceLimits, 'watches' | 'watchesPerPerson'>,
  ): Promise<{ watch: Watch; created: boolean }> {
    return withWorkspaceLock(this.db, this.dialect, input.workspaceId, async (trx) => {
      const existing = await this.#find(
        trx,
        input.workspaceId,
        input.zoneId,
        input.channelId,
        input.accountId,
      );
      if (existing) {
        await trx
          .updateTable('watches')
          // Watching again in the channel resumes a paused watch (its DM says so).
          .set({ rules: JSON.stringify(input.rules), updated_at: now, paused_reason: null })
          .where('id', '=', existing.id)
          .execute();
        return { watch: { ...existing, rules: input.rules, pausedReason: null }, created: false };
      }
      await refuseAtLimits(trx, 'watches', input, {
        all: { limit: 'watches', max: limits.watches },
        perPerson: { limit: 'watchesPerPerson', max: limits.watchesPerPerson },
      });
      const row: Selectable<WatchesTable> = {
        ...zoneWorkColumns(this.newId(), input),
        rules: JSON.stringify(input.rules),
        created_at: now,
        updated_at: now,
        paused_reason: null,
      };
      // Every insert of a watch is under the workspace's lock: no other can take its place.
      await trx.insertInto('watches').values(row).execute();
      return { watch: toWatch(row), created: true };
    });
  }

  async get(id: string): Promise<Watch | undefined> {
    const row = await selectWatches(this.db).where('watches.id', '=', id).executeTakeFirst();
    return row && toWatch(row);
  }

  /** The channel's watch of the zone in its account. */
  async find(
    workspaceId: string,
    zoneId: string,
    channelId: string,
    accountId: string,
  ): Promise<Watch | undefined> {
    return this.#find(this.db, workspaceId, zoneId, channelId, accountId);
  }

  async #find(
    db: Kysely<Database>,
    workspaceId: string,
    zoneId: string,
    channelId: string,
    accountId: string,
  ): Promise<Watch | undefined> {
    const row = await selectWatches(db)
      .where('watches.account_id', '=', accountId)
      .where('watches.workspace_id', '=', workspaceId)
      .where('watches.zone_id', '=', zoneId)
      .where('watches.channel_id', '=', channelId)
      .executeTakeFirst();
    return row && toWatch(row);
  }

  async listForWorkspace(workspaceId: string): Promise<Watch[]> {
    const rows = await selectWatches(this.db)
      .where('watches.workspace_id', '=', workspaceId)
      .orderBy('watches.zone_name')
      .orderBy('watches.channel_id')
      .execute();
    return rows.map(toWatch);
  }

  /** The watches of the zone in its account. */
  async listForZone(workspaceId: string, zoneId: string, accountId: string): Promise<Watch[]> {
    const rows = await selectWatches(this.db)
      .where('watches.account_id', '=', accountId)
      .where('watches.workspace_id', '=', workspaceId)
      .where('watches.zone_id', '=', zoneId)
      .orderBy('watches.created_at')
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
    await this.dropZoneIfUnwatched(watch.workspaceId, watch.zoneId, watch.accountId);
    return deleted.numDeletedRows > 0n;
  }

  /**
   * Deletes the zone's schedule if no watch of it is left, judged in the same statement: a watch
   * from another channel may be on its way in (see upsert, which puts the schedule again after
   * its watch). On PostgreSQL the row is locked first, so that the statement's look for watches
   * is taken after any other holder of the row let go, not before (a DELETE that waits for a row
   * lock would judge by what it saw before waiting). True when it went.
   */
  async dropZoneIfUnwatched(
    workspaceId: string,
    zoneId: string,
    accountId: string,
  ): Promise<boolean> {
    const drop = async (db: Kysely<Database>) => {
      const result = await db
        .deleteFrom('watch_zones')
        .where('workspace_id', '=', workspaceId)
        .where('account_id', '=', accountId)
        .where('zone_id', '=', zoneId)
        .where((eb) =>
          eb.not(
            eb.exists(
              selectWatches(db)
                .where('watches.workspace_id', '=', workspaceId)
                .where('watches.account_id', '=', accountId)
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
        .where('account_id', '=', accountId)
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

  async zone(
    workspaceId: string,
    zoneId: string,
    accountId: string,
  ): Promise<WatchedZone | undefined> {
    const row = await this.db
      .selectFrom('watch_zones')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('account_id', '=', accountId)
      .where('zone_id', '=', zoneId)
      .executeTakeFirst();
    return row && toZone(row);
  }

  /**
   * Takes up to `limit` watched zones whose evaluation is due, earliest first, and in one
   * transaction stores the job `plan` gives each (keyed by zone and interval) and moves each zone
   * on to the plan's `nextRunAt`: a crash leaves all of them due, or all of them queued, and the
   * key makes the interval one job however many replicas take it. On PostgreSQL replicas skip the
   * rows another one is taking (FOR UPDATE SKIP LOCKED). As daily reports are taken
   * (ScheduleRepository.takeDue). A workspace without a CDN key (`/cdn logout`) has its zones wait
   * as they are: nothing is written to pause them, and they are due again (only their latest
   * interval: see WatchEvaluation.tick) once a key is set.
   */
  async takeDue(
    limit: number,
    plan: (zone: WatchedZone) => { nextRunAt: number; job: NewJob },
  ): Promise<Array<{ zone: WatchedZone; nextRunAt: number; job: NewJob }>> {
    const now = this.clock.now();
    return this.db.transaction().execute(async (trx) => {
      const due = trx
        .selectFrom('watch_zones')
        .selectAll()
        .where('next_run_at', '<=', now)
        .where(withCdnKey('watch_zones'))
        .orderBy('next_run_at')
        .limit(limit);
      const rows = (await takeRows(due, this.dialect)).map(toZone);
      const taken = rows.map((zone) => ({ zone, ...plan(zone) }));
      await this.jobs.enqueueMany(
        taken.map(({ job }) => job),
        trx,
      );
      for (const { zone, nextRunAt } of taken)
        await trx
          .updateTable('watch_zones')
          .set({ next_run_at: nextRunAt, updated_at: now })
          .where('workspace_id', '=', zone.workspaceId)
          .where('account_id', '=', zone.accountId)
          .where('zone_id', '=', zone.zoneId)
          .execute();
      return taken;
    });
  }

  /** Holds the zone's next evaluation until `until` at the earliest (the CDN asked to wait). */
  async delayZone(
    workspaceId: string,
    zoneId: string,
    until: number,
    accountId: string,
  ): Promise<void> {
    await this.db
      .updateTable('watch_zones')
      .set({ next_run_at: until, updated_at: this.clock.now() })
      .where('workspace_id', '=', workspaceId)
      .where('account_id', '=', accountId)
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
    accountId: string,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('watch_zones')
      .set({ status: to, updated_at: this.clock.now() })
      .where('workspace_id', '=', workspaceId)
      .where('account_id', '=', accountId)
      .where('zone_id', '=', zoneId)
      .where('status', '=', from)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async setBaseline(
    workspaceId: string,
    zoneId: string,
    baseline: unknown,
    accountId: string,
  ): Promise<void> {
    const now = this.clock.now();
    await this.db
      .updateTable('watch_zones')
      .set({ baseline: JSON.stringify(baseline), baseline_at: now, updated_at: now })
      .where('workspace_id', '=', workspaceId)
      .where('account_id', '=', accountId)
      .where('zone_id', '=', zoneId)
      .execute();
  }
}

function selectWatches(db: Kysely<Database>) {
  return db.selectFrom('watches').selectAll('watches');
}

function toWatch(row: Selectable<WatchesTable>): Watch {
  return {
    ...toZoneWork(row),
    rules: JSON.parse(row.rules) as string[],
    createdAt: Number(row.created_at),
    pausedReason: row.paused_reason ?? null,
  };
}

function toZone(row: Selectable<WatchZonesTable>): WatchedZone {
  return {
    workspaceId: row.workspace_id,
    zoneId: row.zone_id,
    accountId: row.account_id,
    zoneName: row.zone_name,
    status: row.status,
    nextRunAt: Number(row.next_run_at),
    baseline: row.baseline === null ? undefined : JSON.parse(row.baseline),
    baselineAt: row.baseline_at === null ? null : Number(row.baseline_at),
  };
}
