// Where a purge's zones are found: the accounts a command may use, a zone's name among them (or
// the accounts that all hold it), the channel's default zone, a purge record's zone by its id.
import { AppError } from '../../errors.js';
import type { Store } from '../../store/index.js';
import { zoneKey } from '../../zone-names.js';
import type { ChannelService } from '../access/channels.js';
import {
  type AccountScope,
  type AccountScopes,
  type AmbiguousZone,
  named,
  type ZoneOrAmbiguous,
} from '../accounts/account-scope.js';
import type { Zone, ZoneService } from '../zones/zones.js';
import type { PurgePlan } from './purge-targets.js';

export type { AmbiguousZone, ZoneOrAmbiguous };

/** Where a command's zones are looked for: a name, and the zones that may serve its URLs. */
export interface ZoneLookup {
  find(nameOrId: string): Promise<ZoneOrAmbiguous>;
  /** Every zone URLs may be found in: the zone named's account's, or (none named) any. */
  serving(named: Zone | undefined): Promise<Zone[]>;
  /** The first zone of the plan whose name is in several of the accounts `serving` gave. */
  several(plan: PurgePlan, serving: readonly Zone[]): AmbiguousZone | undefined;
}

export class PurgeZones {
  constructor(
    private readonly deps: {
      zones: ZoneService;
      channels: ChannelService;
      /** Which CDN accounts a purge may use. */
      accounts: AccountScopes;
      store: Store;
    },
  ) {}

  /** The accounts a command from `channelId` may use (`account`: the one typed). */
  async scope(
    workspaceId: string,
    channelId: string | undefined,
    account: string | undefined,
  ): Promise<AccountScope> {
    return this.deps.accounts.scope(workspaceId, channelId, account);
  }

  /** Where the command's zones are looked for: in each of the scope's accounts. */
  lookup(workspaceId: string, scope: AccountScope): ZoneLookup {
    const { accounts } = this.deps;
    return {
      find: (nameOrId) => accounts.find(workspaceId, scope, nameOrId),
      serving: async (zone) =>
        (await accounts.all(workspaceId, scope)).filter(
          (candidate) => !zone || candidate.accountId === zone.accountId,
        ),
      // One account: a name is never in several.
      several: scope.accounts.length > 1 ? ambiguity : () => undefined,
    };
  }

  /**
   * The channel's default zone, for a command that named no zone; with an account typed, only if
   * the zone is that account's (AppError channel_default_elsewhere: never another account's zone
   * in place of the one the person named).
   */
  async channelDefault(
    workspaceId: string,
    channelId: string | undefined,
    account: string | undefined,
  ): Promise<Zone> {
    const zone = await this.deps.channels.defaultZone(workspaceId, channelId, 'purge');
    const own = zone.accountName ?? zone.accountId;
    if (account !== undefined && own.toLowerCase() !== account.toLowerCase())
      throw new AppError({
        code: 'channel_default_elsewhere',
        zoneName: zone.name,
        account: own,
        asked: account,
      });
    return zone;
  }

  /**
   * The zone `zoneId` of the account `accountId`, carrying its account; AppError zone_not_found
   * when it has none of that id (or the account is gone).
   */
  async byId(workspaceId: string, zoneId: string, accountId: string): Promise<Zone> {
    const account = await this.deps.store.accounts.get(workspaceId, accountId);
    if (!account) throw new AppError({ code: 'zone_not_found', query: zoneId, suggestions: [] });
    return named(await this.deps.zones.resolve(workspaceId, zoneId, account.id), account);
  }
}

/**
 * The first URL's zone whose name is in several of the accounts searched (`serving`), when no zone
 * was named: the person names the account.
 */
function ambiguity(plan: PurgePlan, serving: readonly Zone[]): AmbiguousZone | undefined {
  for (const group of plan.groups) {
    const key = zoneKey(group.zone.name);
    const holders = serving.filter(
      (other) => other.status !== 'deleted' && zoneKey(other.name) === key,
    );
    if (holders.length > 1)
      return {
        kind: 'ambiguous',
        zoneName: group.zone.name,
        accounts: holders.map((other) => other.accountName ?? other.accountId),
      };
  }
  return undefined;
}

/** AppError zone_ambiguous, for a caller who cannot be asked (or named the account already). */
export function ambiguousError({ zoneName, accounts }: AmbiguousZone): AppError {
  return new AppError({ code: 'zone_ambiguous', zoneName, accounts });
}
