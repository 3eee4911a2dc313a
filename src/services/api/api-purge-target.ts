// Which zone, in which CDN account, a purge asked for over the HTTP API is about:
// the accounts the token reaches (its own account, or every account of the workspace only for a
// token an admin made so), narrowed to the one the request names; a zone name held by several of
// them is refused as ambiguous (the caller names the account), never guessed.
import type { Zone } from '../../cdn/schemas.js';
import { AppError } from '../../errors.js';
import {
  type AccountScope,
  type AccountScopes,
  named,
  scopeAmong,
} from '../accounts/account-scope.js';
import type { ZoneService } from '../zones/zones.js';
import { ApiRefusal } from './api-refusal.js';
import { type ApiToken, reachAmong } from './api-tokens.js';

/** The zone a request names, its account, and the zones its URLs are checked against. */
export interface ApiPurgeTarget {
  zone: Zone;
  /** The zone's account. */
  accountId: string;
  accountName: string;
  /** The zones of that account that may serve the URLs (a URL another zone of it serves is refused, not sent). */
  zones: Zone[];
}

export interface TargetDeps {
  accounts: AccountScopes;
  zones: ZoneService;
}

/**
 * The accounts the token may use for this request (tokenReach): ApiRefusal `forbidden_account`
 * when it names one the token does not reach, or the token's own account no longer exists (it then
 * reaches nothing); `account_not_found` (listing the workspace's accounts) when a token for every
 * account names one the workspace does not have.
 */
export async function apiPurgeScope(
  deps: TargetDeps,
  token: ApiToken,
  account: string | undefined,
): Promise<AccountScope> {
  // One read of the workspace's accounts: what the token reaches, then the scope among them.
  const accounts = await deps.accounts.list(token.workspaceId);
  const reach = reachAmong(token, accounts);
  if (reach.kind === 'none')
    throw new ApiRefusal('forbidden_account', 'the CDN account of this token no longer exists');
  let typed = account;
  if (reach.kind === 'account') {
    if (typed !== undefined && typed.toLowerCase() !== reach.name.toLowerCase())
      throw new ApiRefusal(
        'forbidden_account',
        `this token may purge zones of the CDN account ${reach.name} only`,
      );
    typed = reach.name;
  }
  try {
    return scopeAmong(accounts, typed);
  } catch (error) {
    if (!(error instanceof AppError) || error.problem.code !== 'account_unknown') throw error;
    // The token's own account, without a key now: the CDN cannot be called for it.
    if (reach.kind === 'account') throw new AppError({ code: 'no_api_key' });
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
  const [only, ...others] = scope.accounts;
  if (!only) throw new AppError({ code: 'no_api_key' });
  let zone: Zone;
  let zones: Zone[] | undefined;
  try {
    // One account: the zone and the zones that may serve the URLs' hosts in one read of its index
    // (forPurge finds the zone among them), not the zone first and the same index read again.
    if (others.length === 0) {
      const found = await deps.zones.forPurge(workspaceId, zoneName, hosts, only.id);
      zone = named(found.zone, only);
      zones = found.candidates.map((candidate) => named(candidate, only));
    } else zone = await deps.accounts.resolve(workspaceId, scope, zoneName);
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
  // The zone's account only: only the zones of it that may serve the URLs' hosts are read.
  const account = scope.accounts.find((a) => a.id === zone.accountId) ?? only;
  zones ??= (await deps.zones.forPurge(workspaceId, zone.id, hosts, account.id)).candidates.map(
    (candidate) => named(candidate, account),
  );
  return { zone, accountId: account.id, accountName: account.name, zones };
}
