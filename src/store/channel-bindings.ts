// Repository: each channel's default zone (`/cdn use`) and the channels purges may be run from.
// A binding carries the key generation it was chosen under; read with the key's current one, so a
// binding from before a key change is seen as stale on every replica at once.
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import { generationOf } from './credentials.js';
import type { ChannelBindingsTable, Database } from './schema.js';

export interface ChannelBinding {
  workspaceId: string;
  channelId: string;
  zoneId: string;
  zoneName: string;
  /** The key generation the zone was chosen under. */
  generation: string;
  setBy: string;
  setAt: number;
  /** The CDN account the channel is bound to (issue 29); null: none named (`default`'s zone). */
  accountId?: string | null;
}

export interface BindingView {
  /** The workspace's key generation now; undefined when it has no key. */
  keyGeneration: string | undefined;
  binding: ChannelBinding | undefined;
}

/** How many channels purges may be limited to (a Slack multi-select holds up to 100). */
export const MAX_PURGE_CHANNELS = 100;

export class ChannelBindingRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** The channel's binding, if any, and the key generation it must match to be used. */
  async view(workspaceId: string, channelId: string): Promise<BindingView> {
    const [keyGeneration, row] = await Promise.all([
      this.keyGeneration(workspaceId),
      this.db
        .selectFrom('channel_bindings')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('channel_id', '=', channelId)
        .executeTakeFirst(),
    ]);
    return {
      keyGeneration,
      binding: row && toBinding(row),
    };
  }

  /** The workspace's key generation now; undefined when it has no key. */
  async keyGeneration(workspaceId: string): Promise<string | undefined> {
    const key = await this.db
      .selectFrom('cdn_credentials')
      .select(['workspace_id', 'set_at', 'generation'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    return key ? generationOf(key) : undefined;
  }

  /** Makes `zone` the channel's default (replacing any), under key generation `generation`. */
  async set(
    workspaceId: string,
    channelId: string,
    zone: { id: string; name: string },
    generation: string,
    setBy: string,
  ): Promise<void> {
    const row = {
      workspace_id: workspaceId,
      channel_id: channelId,
      zone_id: zone.id,
      zone_name: zone.name,
      generation,
      set_by: setBy,
      set_at: this.clock.now(),
    };
    await this.db
      .insertInto('channel_bindings')
      .values(row)
      .onConflict((conflict) =>
        conflict.columns(['workspace_id', 'channel_id']).doUpdateSet({
          zone_id: row.zone_id,
          zone_name: row.zone_name,
          generation: row.generation,
          set_by: row.set_by,
          set_at: row.set_at,
        }),
      )
      .execute();
  }

  /** Removes the channel's default; returns whether there was one. */
  async clear(workspaceId: string, channelId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('channel_bindings')
      .where('workspace_id', '=', workspaceId)
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Removes every channel default of the workspace (its key removed); returns how many. */
  async clearAll(workspaceId: string): Promise<number> {
    const result = await this.db
      .deleteFrom('channel_bindings')
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Drops the workspace's bindings chosen under any other key generation; returns how many. */
  async dropStale(workspaceId: string, generation: string): Promise<number> {
    const result = await this.db
      .deleteFrom('channel_bindings')
      .where('workspace_id', '=', workspaceId)
      .where('generation', '<>', generation)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The workspace's bindings under key generation `generation`, by channel id. */
  async list(workspaceId: string, generation: string, limit = 50): Promise<ChannelBinding[]> {
    const rows = await this.db
      .selectFrom('channel_bindings')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('generation', '=', generation)
      .orderBy('channel_id')
      .limit(limit)
      .execute();
    return rows.map(toBinding);
  }

  /** The channels purges may be run from, sorted; empty: any channel. */
  async purgeChannels(workspaceId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('purge_channels')
      .select('channel_id')
      .where('workspace_id', '=', workspaceId)
      .orderBy('channel_id')
      .execute();
    return rows.map((row) => row.channel_id);
  }

  /** Replaces the list of channels purges may be run from (empty: any channel), at once. */
  async setPurgeChannels(workspaceId: string, channelIds: string[], setBy: string): Promise<void> {
    const now = this.clock.now();
    const unique = [...new Set(channelIds)].slice(0, MAX_PURGE_CHANNELS);
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('purge_channels').where('workspace_id', '=', workspaceId).execute();
      if (unique.length === 0) return;
      await trx
        .insertInto('purge_channels')
        .values(
          unique.map((channelId) => ({
            workspace_id: workspaceId,
            channel_id: channelId,
            set_by: setBy,
            set_at: now,
          })),
        )
        .execute();
    });
  }
}

function toBinding(row: Selectable<ChannelBindingsTable>): ChannelBinding {
  return {
    workspaceId: row.workspace_id,
    channelId: row.channel_id,
    zoneId: row.zone_id,
    zoneName: row.zone_name,
    generation: row.generation,
    setBy: row.set_by,
    setAt: row.set_at,
    accountId: row.account_id,
  };
}
