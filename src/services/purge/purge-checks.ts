// Who may purge from where, the one place a purge's permissions are checked: an operator of the
// zone's CDN account (guests as configured), in a channel purges may be run from. A request checks
// the accounts it may use before any zone is looked for, then only the accounts not proven yet.
import type { AccessService, Caller } from '../access/access.js';
import type { ChannelService } from '../access/channels.js';
import { requireOperatorWhere } from '../access/operators.js';
import type { AccountScope, AccountScopes } from '../accounts/account-scope.js';

/** The accounts a request proved its caller may purge in. */
export type Proven = ReadonlySet<string>;

export class PurgeChecks {
  constructor(
    private readonly deps: {
      access: AccessService;
      channels: ChannelService;
      /** Which CDN accounts a purge may use. */
      accounts: AccountScopes;
    },
  ) {}

  /**
   * Refuses a caller who may not purge from `channelId`: not an operator (a guest unless guests
   * may operate), or a channel other than those purges are limited to. `accountId`: the CDN
   * account of the zone purged, whose operators the caller must be (none: the workspace's).
   */
  async mayPurge(caller: Caller, channelId: string | undefined, accountId?: string): Promise<void> {
    await this.deps.access.requireOperator(caller, 'purge', accountId);
    await this.deps.channels.requirePurgeChannel(caller, channelId);
  }

  /**
   * Refuses a caller who may purge (mayPurge) in none of the CDN accounts a command may use from
   * `channelId` (`account`: the one typed): checked before any zone is looked for.
   */
  async mayPurgeAny(
    caller: Caller,
    channelId: string | undefined,
    account?: string,
  ): Promise<void> {
    const { access, accounts } = this.deps;
    await requireOperatorWhere({ access, accountScopes: accounts }, caller, 'purge', {
      channelId,
      account,
    });
    await this.deps.channels.requirePurgeChannel(caller, channelId);
  }

  /** mayPurge in the account of each zone. */
  async mayPurgeZones(
    caller: Caller,
    channelId: string | undefined,
    zones: ReadonlyArray<{ accountId: string }>,
  ): Promise<void> {
    const accountIds = [...new Set(zones.map((zone) => zone.accountId))];
    for (const accountId of accountIds.length > 0 ? accountIds : [undefined])
      await this.mayPurge(caller, channelId, accountId);
  }

  /**
   * mayPurgeAny on a scope already read: the caller may purge from `channelId` in at least one of
   * its accounts, so that nobody else makes the bot ask the CDN. Returns what it proved: the
   * scope's one account, if it has one.
   */
  async admit(caller: Caller, channelId: string | undefined, scope: AccountScope): Promise<Proven> {
    const { accounts } = scope;
    await this.deps.access.requireOperatorOfAny(
      caller,
      'purge',
      accounts.map((account) => account.id),
    );
    await this.deps.channels.requirePurgeChannel(caller, channelId);
    const [only, ...others] = accounts;
    if (others.length > 0) return new Set();
    return new Set(only ? [only.id] : []);
  }

  /**
   * Once the zones are known, the caller is an operator of each one's account not `proven` yet
   * (by admit): operators of `staging` purge its zones and not `prod`'s.
   */
  async admitZones(
    caller: Caller,
    proven: Proven,
    zones: ReadonlyArray<{ accountId: string }>,
  ): Promise<void> {
    for (const accountId of new Set(zones.map((zone) => zone.accountId)))
      if (!proven.has(accountId))
        await this.deps.access.requireOperator(caller, 'purge', accountId);
  }
}
