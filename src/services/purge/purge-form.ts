// The purge form across CDN accounts: the zones its picker offers (those of every
// account the person may purge in from the channel), the zone it opens on (named, the channel's
// default, or the one zone a message's URLs fall in), and the zone picked, found again in its own
// account when the form is submitted. A message whose URLs are served by a zone of the same name
// in several accounts asks which account first, as `/cdn purge` does (AccountPickService).
import { AppError } from '../../errors.js';
import type { Account } from '../../store/accounts.js';
import type { Caller } from '../access/access.js';
import type { AccountPick, AccountPickService } from '../accounts/account-picks.js';
import { type AccountScope, type AccountScopes, named } from '../accounts/account-scope.js';
import { searchAccounts } from '../zones/zone-choices.js';
import type { Zone, ZoneService } from '../zones/zones.js';
import type { PurgeService } from './purge-plan.js';

/** The zones a purge form offers or opens on. */
export interface FormZones {
  zones: Zone[];
  /** Several CDN accounts are in play: each zone is to be shown with its account. */
  labelled: boolean;
}

/** What the purge form opens on: a zone (or none), or first a question of which account. */
export type FormStart =
  | { kind: 'form'; zone?: Zone; labelled: boolean }
  | { kind: 'pick'; pick: AccountPick };

export class PurgeFormService {
  constructor(
    private readonly deps: {
      purges: PurgeService;
      picks: AccountPickService;
      scopes: AccountScopes;
      zones: ZoneService;
    },
  ) {}

  /**
   * The form of `/cdn purge` (or `/cdn purge <zone>`), for a caller who may purge from
   * `channelId`: on the zone named (in the account typed, or the one account holding it; none
   * when several do: the picker offers each), else on the channel's default zone if it has a
   * usable one, else on none.
   */
  async open(
    caller: Caller,
    channelId: string | undefined,
    zoneName?: string,
    account?: string,
  ): Promise<{ zone?: Zone; labelled: boolean }> {
    await this.deps.purges.checks.mayPurgeAny(caller, channelId, account);
    const scope = await this.deps.scopes.scope(caller.workspaceId, channelId, undefined);
    const labelled = scope.multi;
    let zone: Zone | undefined;
    try {
      const found = await this.deps.purges.zoneOrAmbiguous(caller, channelId, zoneName, account);
      // A zone named that is in several accounts: none, and the picker offers each.
      if (found.kind === 'zone') zone = found.zone;
    } catch (error) {
      // With none named, no usable default: the form opens all the same.
      if (!(error instanceof AppError) || zoneName !== undefined) throw error;
    }
    return { ...(zone ? { zone: withAccount(zone, scope) } : {}), labelled };
  }

  /**
   * The purge form's picker: the live zones matching `query` in every account the caller may
   * purge in from `channelId` (best matches of each account in turn), at most `limit`, each
   * carrying its account. Refused (the first account's refusal) when they may purge in none.
   */
  async choices(
    caller: Caller,
    channelId: string | undefined,
    query: string,
    limit = 100,
  ): Promise<FormZones> {
    const { purges, scopes, zones } = this.deps;
    const { workspaceId } = caller;
    const scope = await scopes.scope(workspaceId, channelId, undefined);
    if (scope.accounts.length === 0) {
      // No account holds a key: nothing to pick from (after the caller's own checks).
      await purges.checks.mayPurge(caller, channelId);
      return { zones: [], labelled: false };
    }
    const allowed: Account[] = [];
    let refusal: unknown;
    for (const account of scope.accounts) {
      try {
        await purges.checks.mayPurge(caller, channelId, account.id);
        allowed.push(account);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        refusal ??= error;
      }
    }
    if (allowed.length === 0) throw refusal;
    return {
      zones: await searchAccounts(zones, workspaceId, allowed, query, limit),
      labelled: scope.multi,
    };
  }

  /**
   * The zone picked in a submitted form (its account as the option named it; none: looked for in
   * the accounts the channel may use), found again in that account for a caller who may purge in it from
   * `channelId` (PurgeService.zoneFor; a channel bound to another account refuses it).
   */
  async picked(
    caller: Caller,
    channelId: string | undefined,
    picked: { account?: string; zoneId: string },
  ): Promise<Zone> {
    return this.deps.purges.zoneFor(caller, channelId, picked.zoneId, picked.account);
  }

  /**
   * What the message shortcut opens for a message's URLs: the form, on the one zone they all fall
   * in (in its account) if there is one; or, when they fall in a zone whose name is in several
   * accounts, the question of which account (the pick then purges, as for `/cdn purge <url>`).
   */
  async forMessage(
    caller: Caller,
    channelId: string | undefined,
    urls: string[],
  ): Promise<FormStart> {
    const planned = await this.deps.picks.planPurge(caller, channelId, {
      kind: 'items',
      urls,
      tags: [],
      unknown: [],
    });
    if (planned.kind === 'pick') return planned;
    const scope = await this.deps.scopes.scope(caller.workspaceId, channelId, undefined);
    const { groups } = planned.plan;
    const zone = groups.length === 1 ? groups[0]?.zone : undefined;
    return {
      kind: 'form',
      ...(zone ? { zone: withAccount(zone, scope) } : {}),
      labelled: scope.multi,
    };
  }
}

/** The zone with its account's name, for the form's option value. */
function withAccount(zone: Zone, scope: AccountScope): Zone {
  if (zone.accountName !== undefined) return zone;
  const account = scope.accounts.find((a) => a.id === zone.accountId);
  return account ? named(zone, account) : zone;
}
