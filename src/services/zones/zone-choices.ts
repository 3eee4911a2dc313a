// The zones a zone picker offers across CDN accounts: those of every account the
// workspace uses (of the one account a channel is bound to), each carrying its account, and a
// picked value (`<account>/<zone id>`, or an id alone) found again in its account.
import type { Account } from '../../store/accounts.js';
import { pickedZone } from '../accounts/account-lookup.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import { named as withAccount } from '../accounts/account-scope.js';
import type { Zone, ZoneService } from './zones.js';

/** The zones a picker offers. */
export interface ZoneChoiceList {
  zones: Zone[];
  /** Several CDN accounts are in play: each zone is to be shown with its account. */
  labelled: boolean;
}

export class ZoneChoices {
  constructor(private readonly deps: { scopes: AccountScopes; zones: ZoneService }) {}

  /**
   * The live zones matching `query` in every account the workspace uses from `channelId` (best
   * matches of each account in turn), at most `limit`; none when no account holds a key.
   */
  async search(
    workspaceId: string,
    channelId: string | undefined,
    query: string,
    limit = 100,
  ): Promise<ZoneChoiceList> {
    const scope = await this.deps.scopes.scope(workspaceId, channelId, undefined);
    return {
      zones: await searchAccounts(this.deps.zones, workspaceId, scope.accounts, query, limit),
      labelled: scope.multi,
    };
  }

  /**
   * The zone a picker's value names (`<account>/<zone id>`, or an id or a name), in its account;
   * a value that names no account is looked for in `within` when given, else in every account.
   */
  async resolve(workspaceId: string, value: string, within?: string): Promise<Zone> {
    const { zoneId, account } = pickedZone(value);
    return this.deps.scopes.zone(workspaceId, undefined, account ?? within, zoneId);
  }
}

/** The zones matching `query` in each of `accounts` (each carrying its account), interleaved. */
export async function searchAccounts(
  zones: ZoneService,
  workspaceId: string,
  accounts: readonly Account[],
  query: string,
  limit: number,
): Promise<Zone[]> {
  const lists = await Promise.all(
    accounts.map(async (account) =>
      (await zones.search(workspaceId, query, limit, account.id)).map((zone) =>
        withAccount(zone, account),
      ),
    ),
  );
  return interleave(lists, limit);
}

/** The first of each list, then the second of each, and so on: at most `limit`. */
function interleave<T>(lists: T[][], limit: number): T[] {
  const merged: T[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let i = 0; i < longest && merged.length < limit; i++)
    for (const list of lists) {
      const item = list[i];
      if (item !== undefined && merged.length < limit) merged.push(item);
    }
  return merged;
}
