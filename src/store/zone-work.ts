// What a channel's standing work on a zone (a watch, a daily report) stores alike: who made it,
// where it posts, the zone and its CDN account; written and read the same way for both tables.
import type { Kysely } from 'kysely';
import { defaultAccountIdIn, otherAccountOf } from './account-model.js';
import type { Database, ZoneWorkColumns } from './schema.js';

/** The shared part, as the app sees it: `accountId` absent for `default` (as a Zone has it). */
export interface ZoneWork {
  id: string;
  workspaceId: string;
  zoneId: string;
  zoneName: string;
  /** The zone's CDN account; absent: `default` (as a Zone has it). */
  accountId?: string;
  channelId: string;
  createdBy: string;
}

/**
 * The shared columns of a new row, read in the caller's transaction: a new row names its account,
 * `default`'s id for `default` (null only while the workspace has no account `default`).
 */
export async function zoneWorkColumns(
  trx: Kysely<Database>,
  id: string,
  input: Omit<ZoneWork, 'id'>,
): Promise<ZoneWorkColumns> {
  const account = input.accountId ?? (await defaultAccountIdIn(trx, input.workspaceId));
  return {
    id,
    workspace_id: input.workspaceId,
    account_id: account ?? null,
    zone_id: input.zoneId,
    zone_name: input.zoneName,
    channel_id: input.channelId,
    created_by: input.createdBy,
  };
}

/** The shared part of a row read with its account's name (`account_key`). */
export function toZoneWork(row: ZoneWorkColumns & { account_key: string | null }): ZoneWork {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    zoneId: row.zone_id,
    zoneName: row.zone_name,
    ...otherAccountOf(row),
    channelId: row.channel_id,
    createdBy: row.created_by,
  };
}
