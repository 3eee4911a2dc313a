// Channels and zones: a channel's default zone (`/cdn use`), used when a command names none, and
// the channels purges may be run from (`/cdn config purge-channels`). A channel may be bound to a
// CDN account, with or without a default zone of it: its commands then use that account
// only (AccountScopes), and its default zone is read from that account's zone index.
import { AppError } from '../../errors.js';
import type { Account } from '../../store/accounts.js';
import type { AuditLogRepository } from '../../store/audit-log.js';
import {
  type ChannelBinding,
  type ChannelBindingRepository,
  NO_ZONE,
} from '../../store/channel-bindings.js';
import { type AccountScopes, isRemoved, named } from '../accounts/account-scope.js';
import type { Zone, ZoneService } from '../zones/zones.js';
import type { AccessService, Caller, Visible } from './access.js';
import { requireOperatorWhere } from './operators.js';

/** The commands that may use a channel's default zone. */
export type ZoneCommand = 'purge' | 'analytics' | 'ratelimit';

/** What `/cdn use` alone says about a channel. */
export type ChannelDefault =
  | { kind: 'none' }
  | { kind: 'set'; binding: ChannelBinding; account?: string }
  /** Chosen under an older key: dropped as it was read. */
  | { kind: 'stale'; zoneName: string; account?: string }
  /** Bound to a CDN account that was removed (named when known): its zone commands are refused. */
  | { kind: 'removed'; account?: string };

/** What `/cdn use <account>/[zone]` bound the channel to. */
export interface AccountBinding {
  account: string;
  zone?: Zone;
}

/** A zone a command will act on, and whether it came from the channel's default. */
export interface ChosenZone {
  zone: Zone;
  fromDefault: boolean;
}

export interface ChannelsOverview {
  bindings: ChannelBinding[];
  /** Empty (and none hidden): purges may be run from any channel. */
  purgeChannels: string[];
  /** Defaults and purge channels in conversations the reader is not in, left out. */
  hidden?: { bindings: number; purgeChannels: number };
}

export class ChannelService {
  constructor(
    private readonly deps: {
      bindings: ChannelBindingRepository;
      audit: AuditLogRepository;
      access: AccessService;
      zones: ZoneService;
      /** The workspace's CDN accounts. */
      scopes: AccountScopes;
    },
  ) {}

  /**
   * The channel's default zone (or account) as it stands, a stale one dropped and said to be:
   * stale once its account's key changed. Its account is named when the workspace has several.
   */
  async current(workspaceId: string, channelId: string): Promise<ChannelDefault> {
    const { keyGeneration, binding } = await this.deps.bindings.view(workspaceId, channelId);
    if (!binding) return { kind: 'none' };
    const accounts = await this.deps.scopes.list(workspaceId);
    const account = accounts.find((a) => a.id === binding.accountId);
    if (!account || isRemoved(binding, account))
      return {
        kind: 'removed',
        ...(binding.removedAccount === undefined ? {} : { account: binding.removedAccount }),
      };
    const named = accounts.length > 1 ? { account: account.name } : {};
    if (keyGeneration !== undefined && binding.generation !== keyGeneration) {
      await this.deps.bindings.dropStale(workspaceId, keyGeneration, binding.accountId);
      return { kind: 'stale', zoneName: binding.zoneName, ...named };
    }
    return { kind: 'set', binding, ...named };
  }

  /**
   * Operators of the zone's account only: makes the zone (a live one, by name or id) the
   * channel's default. With several accounts, the zone is looked for in each (AppError
   * zone_ambiguous when several hold it); the channel is bound to the zone's account too.
   */
  async bind(caller: Caller, channelId: string, nameOrId: string): Promise<Zone> {
    const { zone } = await this.#bind(caller, channelId, undefined, nameOrId);
    return zone as Zone;
  }

  /**
   * Operators of `account` only: binds the channel to the CDN account `account` (`/cdn use
   * staging/`), and makes `nameOrId`, a zone of that account, its default zone if one is given.
   */
  async bindAccount(
    caller: Caller,
    channelId: string,
    account: string,
    nameOrId?: string,
  ): Promise<AccountBinding> {
    const bound = await this.#bind(caller, channelId, account, nameOrId);
    return { account: bound.account.name, ...(bound.zone ? { zone: bound.zone } : {}) };
  }

  async #bind(
    caller: Caller,
    channelId: string,
    typed: string | undefined,
    nameOrId: string | undefined,
  ): Promise<{ zone?: Zone; account: Account }> {
    const { workspaceId } = caller;
    const { access, scopes } = this.deps;
    // The account typed (checked to exist), else the one the zone is found in.
    const scope = await scopes.scope(workspaceId, undefined, typed);
    // An operator of some account it may be bound to, before the zone is looked for in them.
    await access.requireOperatorOfAny(
      caller,
      'bind_channel',
      scope.accounts.map((a) => a.id),
    );
    let account = typed === undefined ? undefined : scope.accounts[0];
    // The generation read before the zone was found: if the key changed meanwhile, the binding
    // is stale from the start, and said to be when used. Without an account typed, the zone's
    // own account's is read once it is found.
    let keyGeneration =
      account && (await this.deps.bindings.keyGeneration(workspaceId, account.id));
    let zone: Zone | undefined;
    if (nameOrId !== undefined) {
      zone = await scopes.resolve(workspaceId, scope, nameOrId);
      if (zone.status === 'deleted')
        throw new AppError({ code: 'zone_deleted', zoneName: zone.name });
      if (!account) {
        account = await scopes.account(workspaceId, zone.accountId);
        keyGeneration = await this.deps.bindings.keyGeneration(workspaceId, zone.accountId);
      }
    }
    if (!account || keyGeneration === undefined) throw new AppError({ code: 'no_api_key' });
    // The account it is bound to, and the one it was bound to if it changes: the caller must be
    // an operator of each.
    await access.requireOperator(caller, 'bind_channel', account.id);
    const { binding: before } = await this.deps.bindings.view(workspaceId, channelId);
    if (before && before.accountId !== account.id)
      await access.requireOperator(caller, 'bind_channel', before.accountId);
    await this.deps.bindings.set(
      workspaceId,
      channelId,
      zone ?? NO_ZONE,
      keyGeneration,
      caller.userId,
      account.id,
    );
    await this.#audit(
      caller,
      'channel.use',
      { channel: channelId, account: account.name },
      zone,
      account.id,
    );
    return { ...(zone ? { zone } : {}), account };
  }

  /**
   * Operators of the account the channel is bound to (no binding: any account's) only: clears
   * the channel's default; returns whether there was one.
   */
  async unbind(caller: Caller, channelId: string): Promise<boolean> {
    const { binding } = await this.deps.bindings.view(caller.workspaceId, channelId);
    const { access, scopes } = this.deps;
    if (binding) await access.requireOperator(caller, 'bind_channel', binding.accountId);
    else await requireOperatorWhere({ access, accountScopes: scopes }, caller, 'bind_channel');
    const removed = await this.deps.bindings.clear(caller.workspaceId, channelId);
    if (removed) await this.#audit(caller, 'channel.unuse', { channel: channelId });
    return removed;
  }

  /**
   * The zone a command acts on: the one named, else the channel's default. AppError when neither
   * (no_zone_named), or when the default is stale, deleted or gone.
   */
  async choose(
    workspaceId: string,
    channelId: string | undefined,
    named: string | undefined,
    command: ZoneCommand,
  ): Promise<ChosenZone> {
    if (named !== undefined) {
      const zone = await this.deps.scopes.zone(workspaceId, channelId, undefined, named);
      return { zone, fromDefault: false };
    }
    return { zone: await this.defaultZone(workspaceId, channelId, command), fromDefault: true };
  }

  /** The channel's default zone, checked to be current and live. */
  async defaultZone(
    workspaceId: string,
    channelId: string | undefined,
    command: ZoneCommand,
  ): Promise<Zone> {
    const found = channelId === undefined ? undefined : await this.current(workspaceId, channelId);
    if (!found || found.kind === 'none') throw new AppError({ code: 'no_zone_named', command });
    if (found.kind === 'removed')
      throw new AppError({
        code: 'channel_account_removed',
        ...(found.account === undefined ? {} : { account: found.account }),
      });
    if (found.kind === 'stale') {
      throw new AppError({ code: 'channel_default_stale', zoneName: found.zoneName });
    }
    const { binding } = found;
    // Bound to an account only (`/cdn use staging/`): no default zone.
    if (binding.zoneId === NO_ZONE.id) throw new AppError({ code: 'no_zone_named', command });
    const account = await this.deps.scopes.account(workspaceId, binding.accountId);
    if (!account) throw new AppError({ code: 'channel_account_removed' });
    let zone: Zone;
    try {
      zone = named(await this.deps.zones.resolve(workspaceId, binding.zoneId, account.id), account);
    } catch (error) {
      if (error instanceof AppError && error.code === 'zone_not_found') {
        throw new AppError(
          { code: 'channel_default_gone', zoneName: binding.zoneName, deleted: false },
          { cause: error },
        );
      }
      throw error;
    }
    if (zone.status === 'deleted') {
      throw new AppError({ code: 'channel_default_gone', zoneName: zone.name, deleted: true });
    }
    return zone;
  }

  /**
   * Refuses a purge (of URLs, tags or everything) asked from a channel purges are not allowed
   * in; from nowhere (the App Home) when any limit is set. The refusal names only the allowed
   * channels the caller is in, and counts the others.
   */
  async requirePurgeChannel(caller: Caller, channelId: string | undefined): Promise<void> {
    const allowed = await this.deps.bindings.purgeChannels(caller.workspaceId);
    if (allowed.length === 0) return;
    if (channelId !== undefined && allowed.includes(channelId)) return;
    const { shown, hidden } = await this.purgeChannelsFor(caller);
    throw new AppError({ code: 'purge_channel_restricted', channelIds: shown, hidden });
  }

  /** Admins only: the channels purges may be run from; empty allows every channel again. */
  async setPurgeChannels(caller: Caller, channelIds: string[]): Promise<string[]> {
    await this.deps.access.requireAdmin(caller, 'configure_access');
    await this.deps.bindings.setPurgeChannels(caller.workspaceId, channelIds, caller.userId);
    const saved = await this.deps.bindings.purgeChannels(caller.workspaceId);
    await this.#audit(caller, 'config.purge_channels', { channels: saved });
    return saved;
  }

  /**
   * The channels purges may be run from, as the caller may see them: those they are in, and how
   * many others there are.
   */
  async purgeChannelsFor(caller: Caller): Promise<Visible<string>> {
    const all = await this.deps.bindings.purgeChannels(caller.workspaceId);
    const seen = await this.deps.access.visibleConversations(caller, all);
    const shown = all.filter((id) => seen.has(id));
    return { shown, hidden: all.length - shown.length };
  }

  /**
   * For the App Home, to the workspace's full members: every current channel default and the
   * purge channels, of the conversations the caller is in.
   */
  async overview(caller: Caller): Promise<ChannelsOverview> {
    await this.deps.access.requireFullMember(caller, 'read_config');
    const { workspaceId } = caller;
    const [all, purgeChannels] = await Promise.all([
      this.deps.bindings.list(workspaceId),
      this.purgeChannelsFor(caller),
    ]);
    const bindings = await this.deps.access.visibleIn(caller, all);
    return {
      bindings: bindings.shown,
      purgeChannels: purgeChannels.shown,
      hidden: { bindings: bindings.hidden, purgeChannels: purgeChannels.hidden },
    };
  }

  async #audit(
    caller: Caller,
    action: string,
    detail: Record<string, unknown>,
    zone?: Zone,
    accountId?: string,
  ): Promise<void> {
    await this.deps.audit.record({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action,
      outcome: 'ok',
      detail,
      ...(zone
        ? { zoneId: zone.id, zoneName: zone.name, accountId: zone.accountId }
        : accountId
          ? { accountId }
          : {}),
    });
  }
}
