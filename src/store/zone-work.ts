// What a channel's standing work on a zone (a watch, a daily report) stores alike: who made it,
// where it posts, the zone and its CDN account; written and read the same way for both tables.
import type { ZoneWorkColumns } from './schema.js';

/** The shared part, as the app sees it. */
export interface ZoneWork {
  id: string;
  workspaceId: string;
  zoneId: string;
  zoneName: string;
  /** The zone's CDN account. */
  accountId: string;
  channelId: string;
  createdBy: string;
}

/** The shared columns of a new row. */
export function zoneWorkColumns(id: string, input: Omit<ZoneWork, 'id'>): ZoneWorkColumns {
  return {
    id,
    workspace_id: input.workspaceId,
    account_id: input.accountId,
    zone_id: input.zoneId,
    zone_name: input.zoneName,
    channel_id: input.channelId,
    created_by: input.createdBy,
  };
}

/** The shared part of a row. */
export function toZoneWork(row: ZoneWorkColumns): ZoneWork {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    zoneId: row.zone_id,
    zoneName: row.zone_name,
    accountId: row.account_id,
    channelId: row.channel_id,
    createdBy: row.created_by,
  };
}
