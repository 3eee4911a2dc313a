// Which zone, in which CDN account, a purge asked for over the HTTP API is about (issue 29 met
// issue 30): the accounts the token may use (its own when it is bound to one, else every account
// of the workspace), narrowed to the one the request names; a zone name held by several of them is
// refused as ambiguous (the caller names the account), never guessed.
import type { Zone } from '../cdn/schemas.js';
import { AppError } from '../errors.js';
import { DEFAULT_ACCOUNT } from '../store/accounts.js';
import type { AccountScope, AccountScopes } from './account-scope.js';
import { ApiRefusal } from './api-refusal.js';
import type { ApiToken } from './api-tokens.js';
import type { ZoneService } from './zones.js';

/** The zone a request names, its account, and the zones its URLs are checked against. */
export interface ApiPurgeTarget {
  zone: Zone;
  /** The account's id (`default`'s for `default`); null only for a workspace with no account. */
  accountId: string | null;
  accountName: string;
  /** The zones of that account that may serve the URLs (a URL another zone of it serves is refused, not sent). */
  zones: Zone[];
}

export interface TargetDeps {
  accounts: AccountScopes;
  zones: ZoneService;
}

/**
 * The accounts the token may use for this request: ApiRefusal `forbidden_account` when it names
 * one the token is not bound to, `account_not_found` (listing the workspace's accounts) when an
 * unbound token names one the workspace does not have.
 */
export async function apiPurgeScope(
  deps: TargetDeps,
  token: ApiToken,
  account: string | undefined,
): Promise<AccountScope> {
  const { workspaceId } = token;
  let typed = account;
  if (token.accountId !== null) {
    const own = await deps.accounts.account(workspaceId, token.accountId);
    if (!own)
      throw new ApiRefusal('forbidden_account', 'the CDN account of this token no longer exists');
    if (typed !== undefined && typed.toLowerCase() !== own.name.toLowerCase())
      throw new ApiRefusal(
        'forbidden_account',
        `this token may purge zones of the CDN account ${own.name} only`,
      );
    typed = own.name;
  }
  try {
    return await deps.accounts.scope(workspaceId, undefined, typed);
  } catch (error) {
    if (!(error instanceof AppError) || error.problem.code !== 'account_unknown') throw error;
    // The token's own account, without a key now: the CDN cannot be called for it.
    if (token.accountId !== null) throw new AppError({ code: 'no_api_key' });
    throw new ApiRefusal('account_not_found', 'no CDN account of that name in this workspace', {
      accounts: error.problem.accounts,
    });
  }
}

/**
 * The zone named, in the scope's accounts (AccountScopes.resolve): in one of them, that one;
 * in several, ApiRefusal `ambiguous_zone` listing them; in none, `zone_not_found`.
 */
export async function apiPurgeTarget(
  deps: TargetDeps,
  token: ApiToken,
  scope: AccountScope,
  zoneName: string,
  hosts: Iterable<string> = [],
): Promise<ApiPurgeTarget> {
  const { workspaceId } = token;
  let zone: Zone;
  try {
    zone =
      scope.accounts.length === 0
        ? await deps.zones.resolve(workspaceId, zoneName)
        : await deps.accounts.resolve(workspaceId, scope, zoneName);
  } catch (error) {
    if (error instanceof AppError && error.problem.code === 'zone_not_found')
      throw new ApiRefusal('zone_not_found', 'no such zone');
    if (error instanceof AppError && error.problem.code === 'zone_ambiguous')
      throw new ApiRefusal(
        'ambiguous_zone',
        `${error.problem.zoneName} is in several CDN accounts: name one as "account"`,
        { accounts: error.problem.accounts },
      );
    throw error;
  }
  // The zone's account only (its zones carry it, by name): another's zones are not read.
  const own = { ...scope, accounts: scope.accounts.filter((a) => a.name === zone.accountName) };
  // In `default`, only the zones that may serve the URLs' hosts (not every zone of the workspace).
  const zones =
    scope.accounts.length === 0 || (zone.accountName ?? DEFAULT_ACCOUNT) === DEFAULT_ACCOUNT
      ? (await deps.zones.forPurge(workspaceId, zone.id, hosts)).candidates
      : await deps.accounts.all(workspaceId, own);
  return {
    zone,
    accountId: await deps.accounts.idOf(workspaceId, zone),
    accountName: zone.accountName ?? DEFAULT_ACCOUNT,
    zones,
  };
}
