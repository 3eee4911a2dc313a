// Which CDN account a command acts on: the channel's account if it is bound to one, else
// the account typed (`account:<name>`, `<account>/<zone>`), else every account, a zone name being
// looked for in each (in exactly one: that one; in several: the person is asked to say which).

import type { ZonePage } from '../../cdn/client.js';
import type { Zone } from '../../cdn/schemas.js';
import { AppError } from '../../errors.js';
import type { Account } from '../../store/accounts.js';
import type { ChannelBinding } from '../../store/channel-bindings.js';
import type { Store } from '../../store/index.js';
import { zoneKey } from '../../zone-names.js';
import type { AccessService, Caller } from '../access/access.js';
import type { FreezeGate } from '../freezes/gate.js';
import type { ZoneIndex } from '../zones/zone-index.js';
import type { ZonePlan, ZoneService } from '../zones/zones.js';

/** A zone name in several of the accounts a command may use, none named: the person picks one. */
export interface AmbiguousZone {
  kind: 'ambiguous';
  zoneName: string;
  accounts: string[];
}

export type ZoneOrAmbiguous = { kind: 'zone'; zone: Zone } | AmbiguousZone;

/** The accounts a command may use, and whether the choice is already made (one of them). */
export interface AccountScope {
  accounts: Account[];
  /** Whether the workspace has several accounts in play: then messages name each zone's account. */
  multi: boolean;
}

export class AccountScopes {
  constructor(
    private readonly deps: {
      store: Store;
      zones: ZoneService;
      index: ZoneIndex;
      access: AccessService;
      /** Change freezes: zone creation is refused during one (absent: none). */
      freezes?: FreezeGate;
    },
  ) {}

  /**
   * The accounts a command from `channelId` may use. A channel bound to an account uses it only,
   * and refuses another one typed (AppError account_bound); an account typed that the workspace
   * does not have is AppError account_unknown, naming those it has.
   */
  async scope(
    workspaceId: string,
    channelId: string | undefined,
    typed: string | undefined,
  ): Promise<AccountScope> {
    const accounts = await this.deps.store.accounts.list(workspaceId);
    const bound = channelId === undefined ? undefined : await this.#bound(workspaceId, channelId);
    return scopeAmong(accounts, typed, bound);
  }

  /** Every account of the workspace, with a key or not (one read: scopeAmong then picks). */
  async list(workspaceId: string): Promise<Account[]> {
    return this.deps.store.accounts.list(workspaceId);
  }

  /**
   * Refuses, in a channel bound to a CDN account, work recorded in another account (a purge's
   * Retry, Verify or Purge again button, clicked after the channel was bound): AppError
   * account_bound, as when that account is typed there.
   */
  async requireInChannel(
    workspaceId: string,
    channelId: string | undefined,
    accountId: string,
  ): Promise<void> {
    const bound = channelId === undefined ? undefined : await this.#bound(workspaceId, channelId);
    if (!bound || accountId === bound.id) return;
    const asked = await this.account(workspaceId, accountId);
    throw new AppError({
      code: 'account_bound',
      bound: bound.name,
      asked: asked?.name ?? 'removed',
    });
  }

  /** The workspace's account `accountId`, if it has it. */
  async account(workspaceId: string, accountId: string): Promise<Account | undefined> {
    return this.deps.store.accounts.get(workspaceId, accountId);
  }

  /**
   * The account the channel is bound to, if any (a binding made with an account); AppError
   * channel_account_removed when that account was removed (never another one in its place).
   */
  async #bound(workspaceId: string, channelId: string): Promise<Account | undefined> {
    const { binding } = await this.deps.store.channelBindings.view(workspaceId, channelId);
    if (!binding) return undefined;
    const account = await this.deps.store.accounts.get(workspaceId, binding.accountId);
    refuseRemoved(binding, account);
    return account;
  }

  /**
   * The zone named, in the scope's accounts: in one account, as ZoneService.resolve; in several,
   * the one account whose index holds a live zone of that name or id, the accounts that all hold
   * one when several do (`ambiguous`: the person is asked which), and when none does the first
   * account's answer (a probe, then "not found").
   */
  async find(workspaceId: string, scope: AccountScope, nameOrId: string): Promise<ZoneOrAmbiguous> {
    const [first, ...others] = scope.accounts;
    if (!first) throw new AppError({ code: 'no_api_key' });
    const zone = (account: Account) =>
      this.deps.zones.resolve(workspaceId, nameOrId, account.id).then((z) => named(z, account));
    if (others.length === 0) return { kind: 'zone', zone: await zone(first) };
    const key = zoneKey(nameOrId);
    const found: Zone[] = [];
    // Every account's index in one read of the store (a name in ten accounts is one query, not ten).
    const held = await this.deps.index.findIn(
      workspaceId,
      nameOrId,
      scope.accounts.map((account) => account.id),
    );
    for (const [at, account] of scope.accounts.entries()) {
      const zones = held[at] ?? [];
      const live = zones.filter(
        (z) => z.status !== 'deleted' && (z.id === nameOrId.trim() || zoneKey(z.name) === key),
      );
      const match = live.find((z) => z.id === nameOrId.trim()) ?? live[0];
      if (match) found.push(named(match, account));
    }
    const [only, ...also] = found;
    if (only && also.length === 0) return { kind: 'zone', zone: only };
    if (only)
      return {
        kind: 'ambiguous',
        zoneName: only.name,
        accounts: found.map((z) => z.accountName ?? z.accountId),
      };
    return { kind: 'zone', zone: await zone(first) };
  }

  /** `find`, a name held by several accounts refused as AppError zone_ambiguous. */
  async resolve(workspaceId: string, scope: AccountScope, nameOrId: string): Promise<Zone> {
    const found = await this.find(workspaceId, scope, nameOrId);
    if (found.kind === 'zone') return found.zone;
    throw new AppError({
      code: 'zone_ambiguous',
      zoneName: found.zoneName,
      accounts: found.accounts,
    });
  }

  /**
   * The zone a command names, in the account it may use (`scope`, then `resolve`); AppError
   * no_api_key when no account holds a key.
   */
  async zone(
    workspaceId: string,
    channelId: string | undefined,
    typed: string | undefined,
    nameOrId: string,
  ): Promise<Zone> {
    return this.resolve(workspaceId, await this.scope(workspaceId, channelId, typed), nameOrId);
  }

  /**
   * The one account a command that names no zone acts on (`/cdn zones`, `/cdn create`): the
   * channel's or the one typed, else the workspace's only account with a key; AppError
   * account_needed, naming them, when it has several, and no_api_key when none has a key.
   * `accountId`: an account chosen earlier (a form opened for it), AppError account_not_found
   * once it is gone.
   */
  async one(
    workspaceId: string,
    where: { channelId?: string; account?: string; accountId?: string },
    command: string,
  ): Promise<{ scope: AccountScope; account: Account }> {
    const earlier = where.accountId && (await this.account(workspaceId, where.accountId));
    if (where.accountId && !earlier) throw new AppError({ code: 'account_not_found' });
    const typed = earlier ? earlier.name : where.account;
    const scope = await this.scope(workspaceId, where.channelId, typed);
    const [account, ...others] = scope.accounts;
    if (!account) throw new AppError({ code: 'no_api_key' });
    if (others.length > 0)
      throw new AppError({
        code: 'account_needed',
        command,
        accounts: scope.accounts.map((a) => a.name),
      });
    return { scope, account };
  }

  /**
   * One page of `/cdn zones` in the account `one` gives (ZoneService.page); `account` names it
   * when the workspace has several (the list says whose zones it shows).
   */
  async page(
    caller: Caller,
    where: { channelId?: string; account?: string },
    params: { status?: string; name?: string; page: number },
  ): Promise<ZonePage & { account?: string }> {
    const { scope, account: chosen } = await this.one(caller.workspaceId, where, 'zones');
    const page = await this.deps.zones.page(caller, params, chosen.id);
    return scope.multi ? { ...page, account: chosen.name } : page;
  }

  /**
   * The account `/cdn create` makes a zone in (`one`), for one of its operators only and not
   * during a freeze they hold no exception to (the form is opened, and the flood limit counted,
   * once this says yes).
   */
  async forCreate(
    caller: Caller,
    where: { channelId?: string; account?: string; accountId?: string },
  ): Promise<{ scope: AccountScope; account: Account }> {
    const chosen = await this.one(caller.workspaceId, where, 'create');
    await this.deps.access.requireOperator(caller, 'create_zone', chosen.account.id);
    await this.deps.freezes?.precheck({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: 'create',
      accountId: chosen.account.id,
    });
    return chosen;
  }

  /** `/cdn create` in the account `forCreate` gives (ZoneService.create), by `caller`. */
  async create(
    caller: Caller,
    where: { channelId?: string; account?: string; accountId?: string },
    input: { domain: string; plan: ZonePlan },
  ): Promise<Awaited<ReturnType<ZoneService['create']>>> {
    const { account } = await this.forCreate(caller, where);
    await this.deps.freezes?.require({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: 'create',
      accountId: account.id,
    });
    return this.deps.zones.create(caller.workspaceId, {
      ...input,
      actorId: caller.userId,
      accountId: account.id,
    });
  }

  /** Every zone of the scope's accounts, each carrying its account. */
  async all(workspaceId: string, scope: AccountScope): Promise<Zone[]> {
    const zones: Zone[] = [];
    for (const account of scope.accounts)
      for (const zone of await this.deps.index.all(workspaceId, account.id))
        zones.push(named(zone, account));
    return zones;
  }
}

/**
 * Whether the channel's binding is to a CDN account that was removed: marked so when it was, or
 * naming an account the workspace no longer has (`account`: the one it names, as read).
 */
export function isRemoved(binding: ChannelBinding, account: Account | undefined): boolean {
  return binding.removedAccount !== undefined || !account;
}

/** AppError channel_account_removed for a binding to a CDN account that was removed. */
export function refuseRemoved(binding: ChannelBinding, account: Account | undefined): void {
  if (!isRemoved(binding, account)) return;
  throw new AppError({
    code: 'channel_account_removed',
    ...(binding.removedAccount === undefined ? {} : { account: binding.removedAccount }),
  });
}

/**
 * AccountScopes.scope among the workspace's accounts already read (`accounts`, keyed or not) and
 * the channel's account (`bound`), if any.
 */
export function scopeAmong(
  accounts: readonly Account[],
  typed: string | undefined,
  bound?: Account,
): AccountScope {
  const all = accounts.filter((a) => a.hasKey);
  if (bound) {
    if (typed !== undefined && typed.toLowerCase() !== bound.name.toLowerCase())
      throw new AppError({ code: 'account_bound', bound: bound.name, asked: typed });
    return { accounts: [bound], multi: all.length > 1 };
  }
  if (typed !== undefined) {
    const account = all.find((a) => a.name.toLowerCase() === typed.toLowerCase());
    if (!account)
      throw new AppError({
        code: 'account_unknown',
        name: typed,
        accounts: all.map((a) => a.name),
      });
    return { accounts: [account], multi: all.length > 1 };
  }
  return { accounts: all, multi: all.length > 1 };
}

/** The zone with its account's id and name. */
export function named(zone: Zone, account: Account): Zone {
  return { ...zone, accountId: account.id, accountName: account.name };
}
