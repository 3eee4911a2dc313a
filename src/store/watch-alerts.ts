// Repository: the alerts watches posted (their message, their resolution); alerts that are over
// are pruned. Turning rate limiting on from one is a keyed job (WatchService.rateLimit).
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database, WatchAlertStatus, WatchAlertsTable } from './schema.js';

export interface WatchAlert {
  id: string;
  workspaceId: string;
  watchId: string;
  zoneId: string;
  zoneName: string;
  /** The zone's CDN account, from its watch. */
  accountId: string;
  channelId: string;
  rule: string;
  status: WatchAlertStatus;
  startedAt: number;
  resolvedAt: number | null;
  detail: Record<string, unknown>;
  messageTs: string | null;
}

export class WatchAlertRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Stores the alert once (a resumed evaluation gives the same id). */
  async createAlert(alert: Omit<WatchAlert, 'messageTs'>): Promise<void> {
    const row = {
      id: alert.id,
      workspace_id: alert.workspaceId,
      account_id: alert.accountId,
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
}

function toAlert(row: Selectable<WatchAlertsTable>): WatchAlert {
  return {
    accountId: row.account_id,
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
  };
}
