// Which CDN account a command acts on: the channel's account if it is bound to one, else
// the account typed (`account:<name>`, `<account>/<zone>`), else every account, a zone name being
// looked for in each (in exactly one: that one; in several: the person is asked to say which).

import type { ZonePage } from '../../cdn/client.js';
import type { Zone } from '../../cdn/schemas.js';
import { AppError } from '../../errors.js';
import type { Account } from '../../store/accounts.js';
import { DEFAULT_ACCOUNT } from '../../store/accounts.js';
import type { ChannelBinding } from '../../store/channel-bindings.js';
import type { Store } from '../../store/index.js';
import { zoneKey } from '../../zone-names.js';
import type { AccessService, Caller } from '../access/access.js';
import type { FreezeGate } from '../freezes/gate.js';
import type { ZoneIndex } from '../zones/zone-index.js';
import type { ZonePlan, ZoneService } from '../zones/zones.js';

/** The accounts a command may use, and whether the choice is already made (one of them). */
export interface AccountScope {
  accounts: Account[];
  /** False for a workspace with one account and nothing typed: everything as for the account `default` alone. */
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
   * account_bound, as when that account is typed there. `accountId` absent: `default`.
   */
  async requireInChannel(
    workspaceId: string,
    channelId: string | undefined,
    accountId: string | undefined,
  ): Promise<void> {
    const bound = channelId === undefined ? undefined : await this.#bound(workspaceId, channelId);
    if (!bound) return;
    const own = accountId ?? (await this.deps.store.accounts.defaultId(workspaceId));
    if (own === bound.id) return;
    const asked = own === undefined ? undefined : await this.account(workspaceId, own);
    throw new AppError({
      code: 'account_bound',
      bound: bound.name,
      asked: asked?.name ?? DEFAULT_ACCOUNT,
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
    const account = binding.accountId
      ? await this.deps.store.accounts.get(workspaceId, binding.accountId)
      : undefined;
    refuseRemoved(binding, account);
    return account;
  }

  /**
   * The zone named, in the scope's accounts: in one account, as ZoneService.resolve; in several,
   * the one account whose index holds a live zone of that name or id, AppError zone_ambiguous when
   * several do, and when none does the first account's answer (a probe, then "not found").
   */
  async resolve(workspaceId: string, scope: AccountScope, nameOrId: string): Promise<Zone> {
    const [first, ...others] = scope.accounts;
    if (!first) throw new AppError({ code: 'no_api_key' });
    if (others.length === 0)
      return named(await this.deps.zones.resolve(workspaceId, nameOrId, indexOf(first)), first);
    const key = zoneKey(nameOrId);
    const found: Zone[] = [];
    // Every account's index in one read of the store (a name in ten accounts is one query, not ten).
    const held = await this.deps.index.findIn(workspaceId, nameOrId, scope.accounts.map(indexOf));
    for (const [at, account] of scope.accounts.entries()) {
      const zones = held[at] ?? [];
      const live = zones.filter(
        (zone) =>
          zone.status !== 'deleted' && (zone.id === nameOrId.trim() || zoneKey(zone.name) === key),
      );
      const zone = live.find((z) => z.id === nameOrId.trim()) ?? live[0];
      if (zone) found.push(named(zone, account));
    }
    if (found.length === 1 && found[0]) return found[0];
    if (found.length > 1)
      throw new AppError({
        code: 'zone_ambiguous',
        zoneName: found[0]?.name ?? nameOrId,
        accounts: found.map((zone) => zone.accountName ?? DEFAULT_ACCOUNT),
      });
    const fallback = scope.accounts.find((a) => isDefaultName(a.name)) ?? first;
    return named(await this.deps.zones.resolve(workspaceId, nameOrId, indexOf(fallback)), fallback);
  }

  /**
   * The zone a command names, in the account it may use (`scope`, then `resolve`); a workspace
   * with no account holding a key resolves in `default` (`default`'s index, no_api_key).
   */
  async zone(
    workspaceId: string,
    channelId: string | undefined,
    typed: string | undefined,
    nameOrId: string,
  ): Promise<Zone> {
    const scope = await this.scope(workspaceId, channelId, typed);
    if (scope.accounts.length === 0) return this.deps.zones.resolve(workspaceId, nameOrId);
    return this.resolve(workspaceId, scope, nameOrId);
  }

  /**
   * The id a new row stores for the zone's account: its own, else `default`'s (every new row
   * names its account; null is left to rows written before accounts existed).
   */
  async idOf(workspaceId: string, zone: { accountId?: string | null }): Promise<string | null> {
    if (zone.accountId) return zone.accountId;
    return (await this.deps.store.accounts.defaultId(workspaceId)) ?? null;
  }

  /**
   * The one account a command that names no zone acts on (`/cdn zones`, `/cdn create`): the
   * channel's or the one typed, else the workspace's only account, else `default`; AppError
   * account_needed, naming them, when it has several and no `default`. None: no account holds a
   * key (the command goes on with `default`'s index). `accountId`: an account chosen earlier (a form
   * opened for it), AppError account_not_found once it is gone.
   */
  async one(
    workspaceId: string,
    where: { channelId?: string; account?: string; accountId?: string },
    command: string,
  ): Promise<{ scope: AccountScope; account?: Account }> {
    const earlier = where.accountId && (await this.account(workspaceId, where.accountId));
    if (where.accountId && !earlier) throw new AppError({ code: 'account_not_found' });
    const typed = earlier ? earlier.name : where.account;
    const scope = await this.scope(workspaceId, where.channelId, typed);
    const [only, ...others] = scope.accounts;
    const account = others.length === 0 ? only : scope.accounts.find((a) => isDefaultName(a.name));
    if (scope.accounts.length > 0 && !account)
      throw new AppError({
        code: 'account_needed',
        command,
        accounts: scope.accounts.map((a) => a.name),
      });
    return { scope, ...(account ? { account } : {}) };
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
    const page = await this.deps.zones.page(caller, params, chosen && indexOf(chosen));
    return scope.multi && chosen ? { ...page, account: chosen.name } : page;
  }

  /**
   * The account `/cdn create` makes a zone in (`one`), for one of its operators only and not
   * during a freeze they hold no exception to (the form is opened, and the flood limit counted,
   * once this says yes).
   */
  async forCreate(
    caller: Caller,
    where: { channelId?: string; account?: string; accountId?: string },
  ): Promise<{ scope: AccountScope; account?: Account }> {
    const chosen = await this.one(caller.workspaceId, where, 'create');
    await this.deps.access.requireOperator(caller, 'create_zone', chosen.account?.id);
    await this.deps.freezes?.precheck({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: 'create',
      ...(chosen.account ? { accountId: chosen.account.id } : {}),
    });
    return chosen;
  }

  /** `/cdn create` in the account `forCreate` gives (ZoneService.create), by `caller`. */
  async create(
    caller: Caller,
    where: { channelId?: string; account?: string; accountId?: string },
    input: { domain: string; plan: ZonePlan },
  ): Promise<Awaited<ReturnType<ZoneService['create']>>> {
    const { account: chosen } = await this.forCreate(caller, where);
    const accountId = chosen && indexOf(chosen);
    await this.deps.freezes?.require({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: 'create',
      ...(chosen ? { accountId: chosen.id } : {}),
    });
    return this.deps.zones.create(caller.workspaceId, {
      ...input,
      actorId: caller.userId,
      ...(accountId === undefined ? {} : { accountId }),
    });
  }

  /** Every zone of the scope's accounts, each carrying its account. */
  async all(workspaceId: string, scope: AccountScope): Promise<Zone[]> {
    const zones: Zone[] = [];
    for (const account of scope.accounts)
      for (const zone of await this.deps.index.all(workspaceId, indexOf(account)))
        zones.push(named(zone, account));
    return zones;
  }
}

/**
 * Whether the channel's binding is to a CDN account that was removed: marked so when it was, or
 * naming an account the workspace no longer has (`account`: the one it names, as read).
 */
export function isRemoved(binding: ChannelBinding, account: Account | undefined): boolean {
  return binding.removedAccount !== undefined || (!!binding.accountId && !account);
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
    return { accounts: [bound], multi: true };
  }
  if (typed !== undefined) {
    const account = all.find((a) => a.name.toLowerCase() === typed.toLowerCase());
    if (!account)
      throw new AppError({
        code: 'account_unknown',
        name: typed,
        accounts: all.map((a) => a.name),
      });
    return { accounts: [account], multi: all.length > 1 || !isDefaultName(account.name) };
  }
  return { accounts: all, multi: all.length > 1 };
}

function isDefaultName(name: string): boolean {
  return name.toLowerCase() === DEFAULT_ACCOUNT;
}

/** The account whose zone index to read: undefined for `default` (its index is zone_index). */
export function indexOf(account: Account): string | undefined {
  return isDefaultName(account.name) ? undefined : account.id;
}

/** The zone with its account's id and name (the id absent for `default`, as the index has it). */
export function named(zone: Zone, account: Account): Zone {
  return isDefaultName(account.name)
    ? { ...zone, accountName: account.name }
    : { ...zone, accountId: account.id, accountName: account.name };
}
