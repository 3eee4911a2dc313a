// Repository: each channel's default zone (`/cdn use`) and the channels purges may be run from.
// A binding carries the key generation it was chosen under; read with the key's current one, so a
// binding from before a key change is seen as stale on every replica at once. A binding to a CDN
// account other than `default` is read with that account's generation (cdn_accounts);
// one to `default` (or to none: null) with the workspace key's (cdn_credentials).
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import { DEFAULT_ACCOUNT } from './account-model.js';
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
  /** The CDN account the channel is bound to; null: none named (`default`'s zone). */
  accountId?: string | null;
  /**
   * That account's name when an admin removed it: the channel's zone commands are refused until
   * it is bound again or unbound. Absent: its account, if any, exists.
   */
  removedAccount?: string;
}

/** The account-only binding's zone (`/cdn use staging/`): no default zone, only the account. */
export const NO_ZONE = { id: '', name: '' } as const;

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

  /**
   * The channel's binding, if any, and the key generation it must match to be used: its
   * account's (the workspace key's for `default` or none).
   */
  async view(workspaceId: string, channelId: string): Promise<BindingView> {
    const row = await this.db
      .selectFrom('channel_bindings')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    return {
      keyGeneration: await this.keyGeneration(workspaceId, row?.account_id),
      binding: row && toBinding(row),
    };
  }

  /**
   * The key generation now of the account `accountId` (absent, null or `default`: the workspace
   * key's); undefined when it has no key.
   */
  async keyGeneration(workspaceId: string, accountId?: string | null): Promise<string | undefined> {
    if (accountId) {
      const account = await this.db
        .selectFrom('cdn_accounts')
        .select(['name_key', 'api_key', 'generation'])
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', accountId)
        .executeTakeFirst();
      if (!account) return undefined;
      if (account.name_key !== DEFAULT_ACCOUNT)
        return account.api_key === null ? undefined : (account.generation ?? undefined);
    }
    const key = await this.db
      .selectFrom('cdn_credentials')
      .select(['workspace_id', 'set_at', 'generation'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    return key ? generationOf(key) : undefined;
  }

  /**
   * Makes `zone` the channel's default (replacing any), under key generation `generation` (of
   * `accountId`'s key; null: `default`'s). With NO_ZONE, the channel is bound to the account only.
   */
  async set(
    workspaceId: string,
    channelId: string,
    zone: { id: string; name: string },
    generation: string,
    setBy: string,
    accountId: string | null = null,
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

  /**
   * Drops the bindings of one account (absent or null: `default`'s and those of none) chosen
   * under any other key generation than `generation`; returns how many.
   */
  async dropStale(
    workspaceId: string,
    generation: string,
    accountId?: string | null,
  ): Promise<number> {
    const own = accountId ? await this.#isOwnAccount(workspaceId, accountId) : false;
    const result = await this.db
      .deleteFrom('channel_bindings')
      .where('workspace_id', '=', workspaceId)
      .where('generation', '<>', generation)
      .where((eb) =>
        own
          ? eb('account_id', '=', accountId ?? '')
          : eb.or([
              eb('account_id', 'is', null),
              eb(
                'account_id',
                'in',
                eb
                  .selectFrom('cdn_accounts')
                  .select('id')
                  .where('workspace_id', '=', workspaceId)
                  .where('name_key', '=', DEFAULT_ACCOUNT),
              ),
            ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Whether `accountId` is an account of its own, not `default`. */
  async #isOwnAccount(workspaceId: string, accountId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('cdn_accounts')
      .select('name_key')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', accountId)
      .executeTakeFirst();
    return row !== undefined && row.name_key !== DEFAULT_ACCOUNT;
  }

  /**
   * The workspace's current bindings, by channel id: those of `default` (or of none) under key
   * generation `generation` (none without a `default` key), and those of another account under
   * that account's generation now.
   */
  async list(
    workspaceId: string,
    generation: string | undefined,
    limit = 50,
  ): Promise<ChannelBinding[]> {
    const rows = await this.#current(workspaceId, generation)
      .orderBy('b.channel_id')
      .limit(limit)
      .execute();
    return rows.map(toBinding);
  }

  /**
   * The current bindings of the account `default` (and of none), by channel id, under its key
   * generation `generation`: what `/cdn logout` clears.
   */
  async listOfDefault(
    workspaceId: string,
    generation: string,
    limit = 50,
  ): Promise<ChannelBinding[]> {
    const rows = await this.#current(workspaceId, generation)
      .where((eb) =>
        eb.or([eb('b.account_id', 'is', null), eb('a.name_key', '=', DEFAULT_ACCOUNT)]),
      )
      .orderBy('b.channel_id')
      .limit(limit)
      .execute();
    return rows.map(toBinding);
  }

  /**
   * The current bindings whose default zone is `zoneId` (of any account), by channel id, as
   * `list` reads them; `generation` undefined: `default` has no key, so none of its is current.
   */
  async forZone(
    workspaceId: string,
    generation: string | undefined,
    zoneId: string,
    limit = 50,
  ): Promise<ChannelBinding[]> {
    const rows = await this.#current(workspaceId, generation)
      .where('b.zone_id', '=', zoneId)
      .orderBy('b.channel_id')
      .limit(limit)
      .execute();
    return rows.map(toBinding);
  }

  #current(workspaceId: string, generation: string | undefined) {
    return this.db
      .selectFrom('channel_bindings as b')
      .leftJoin('cdn_accounts as a', (join) =>
        join.onRef('a.id', '=', 'b.account_id').onRef('a.workspace_id', '=', 'b.workspace_id'),
      )
      .selectAll('b')
      .where('b.workspace_id', '=', workspaceId)
      .where((eb) =>
        eb.or([
          ...(generation === undefined
            ? []
            : [
                eb.and([
                  eb.or([eb('a.id', 'is', null), eb('a.name_key', '=', DEFAULT_ACCOUNT)]),
                  eb('b.generation', '=', generation),
                ]),
              ]),
          eb.and([
            eb('a.name_key', '<>', DEFAULT_ACCOUNT),
            eb('a.api_key', 'is not', null),
            eb('b.generation', '=', eb.ref('a.generation')),
          ]),
        ]),
      );
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
    ...(row.account_id === null ? {} : { accountId: row.account_id }),
    ...(row.removed_account === null ? {} : { removedAccount: row.removed_account }),
  };
}
