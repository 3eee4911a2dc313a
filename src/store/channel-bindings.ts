// Repository: each channel's default zone (`/cdn use`) and the channels purges may be run from.
// A binding carries the key generation of its account it was chosen under; read with the
// account's current one, so a binding from before a key change is seen as stale on every replica
// at once.
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
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
  /** The CDN account the channel is bound to. */
  accountId: string;
  /**
   * That account's name when an admin removed it: the channel's zone commands are refused until
   * it is bound again or unbound. Absent: its account, if any, exists.
   */
  removedAccount?: string;
}

/** The account-only binding's zone (`/cdn use staging/`): no default zone, only the account. */
export const NO_ZONE = { id: '', name: '' } as const;

export interface BindingView {
  /** The key generation now of the binding's account; undefined when it has no key (or no binding). */
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

  /** The channel's binding, if any, and the key generation of its account it must match to be used. */
  async view(workspaceId: string, channelId: string): Promise<BindingView> {
    const row = await this.db
      .selectFrom('channel_bindings')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    return {
      keyGeneration: row && (await this.keyGeneration(workspaceId, row.account_id)),
      binding: row && toBinding(row),
    };
  }

  /** The key generation now of the account; undefined when it has no key (or is gone). */
  async keyGeneration(workspaceId: string, accountId: string): Promise<string | undefined> {
    const account = await this.db
      .selectFrom('cdn_accounts')
      .select(['api_key', 'generation'])
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', accountId)
      .executeTakeFirst();
    return account?.api_key == null ? undefined : (account.generation ?? undefined);
  }

  /**
   * Makes `zone` of account `accountId` the channel's default (replacing any), under that
   * account's key generation `generation`. With NO_ZONE, the channel is bound to the account only.
   */
  async set(
    workspaceId: string,
    channelId: string,
    zone: { id: string; name: string },
    generation: string,
    setBy: string,
    accountId: string,
  ): Promise<void> {
    const row = {
      workspace_id: workspaceId,
      channel_id: channelId,
      zone_id: zone.id,
      zone_name: zone.name,
      generation,
      set_by: setBy,
      set_at: this.clock.now(),
      account_id: accountId,
      removed_account: null,
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
          account_id: row.account_id,
          removed_account: null,
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

  /** Drops the account's bindings chosen under another key generation than `generation`; how many. */
  async dropStale(workspaceId: string, generation: string, accountId: string): Promise<number> {
    const result = await this.db
      .deleteFrom('channel_bindings')
      .where('workspace_id', '=', workspaceId)
      .where('account_id', '=', accountId)
      .where('generation', '<>', generation)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The workspace's current bindings (each under its account's key now), by channel id. */
  async list(workspaceId: string, limit = 50): Promise<ChannelBinding[]> {
    const rows = await this.#current(workspaceId).orderBy('b.channel_id').limit(limit).execute();
    return rows.map(toBinding);
  }

  /** The current bindings of one account, by channel id: what a logout of its key clears. */
  async listOfAccount(
    workspaceId: string,
    accountId: string,
    limit = 50,
  ): Promise<ChannelBinding[]> {
    const rows = await this.#current(workspaceId)
      .where('b.account_id', '=', accountId)
      .orderBy('b.channel_id')
      .limit(limit)
      .execute();
    return rows.map(toBinding);
  }

  /** The current bindings whose default zone is the account's `zoneId`, by channel id. */
  async forZone(
    workspaceId: string,
    accountId: string,
    zoneId: string,
    limit = 50,
  ): Promise<ChannelBinding[]> {
    const rows = await this.#current(workspaceId)
      .where('b.account_id', '=', accountId)
      .where('b.zone_id', '=', zoneId)
      .orderBy('b.channel_id')
      .limit(limit)
      .execute();
    return rows.map(toBinding);
  }

  #current(workspaceId: string) {
    return this.db
      .selectFrom('channel_bindings as b')
      .innerJoin('cdn_accounts as a', (join) =>
        join.onRef('a.id', '=', 'b.account_id').onRef('a.workspace_id', '=', 'b.workspace_id'),
      )
      .selectAll('b')
      .where('b.workspace_id', '=', workspaceId)
      .where('a.api_key', 'is not', null)
      .whereRef('b.generation', '=', 'a.generation');
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
    ...(row.removed_account === null ? {} : { removedAccount: row.removed_account }),
  };
}
