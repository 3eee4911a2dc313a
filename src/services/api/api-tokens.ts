// Tokens of the HTTP API: made by a workspace admin, shown once, stored only as a
// SHA-256 hash; scoped to one CDN account (or, chosen so by the admin, every account), to zones of
// it (or every zone) and to kinds of purge; revoked at once on every replica (authentication reads
// the database on every request). A token's reach never grows unless an admin chooses it: one
// made for every account (`all`) names none.
import { createHash, randomBytes } from 'node:crypto';
import { TOKEN_ACTOR_PREFIX } from '../../audit-kinds.js';
import { AppError } from '../../errors.js';
import type { Account } from '../../store/accounts.js';
import type { ApiToken, ApiTokenKind } from '../../store/api-tokens.js';
import type { Store } from '../../store/index.js';
import { zoneKey } from '../../zone-names.js';
import type { AccessService, Caller } from '../access/access.js';

export type { ApiToken, ApiTokenKind };

/** Every token starts so: secret scanners and people can tell what it is. */
export const API_TOKEN_PREFIX = 'cdnb_';
/** 32 random bytes, base64url: 43 characters after the prefix. */
const TOKEN_PATTERN = /^cdnb_[A-Za-z0-9_-]{43}$/;
export const API_TOKEN_KINDS: readonly ApiTokenKind[] = ['urls_tags', 'everything'];
const MAX_NAME_LENGTH = 64;
const MAX_ZONES = 100;

export interface NewTokenInput {
  name: string;
  /**
   * Zone names (or ids, as a zone picker gives them: resolved to names, in the token's account);
   * null: every zone of the accounts it reaches.
   */
  zones: string[] | null;
  /** The one CDN account it reaches; none: the workspace's only account. */
  accountId?: string | null;
  /**
   * Every CDN account of the workspace, including those added later (an admin's explicit choice;
   * then `zones` must be null: a zone named is a zone of one account).
   */
  allAccounts?: boolean;
  kinds: ApiTokenKind[];
  /** Where its purges are announced; none: each zone's bound channel. */
  channelId?: string | null;
}

/** A token just made: its secret (shown once) and what it reaches. */
export interface NewToken {
  token: ApiToken;
  secret: string;
  reach: TokenReach;
}

/** The SHA-256 of a token's text, as stored. */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The token an Authorization header presents (`Bearer cdnb_…`), if it has a token's shape. */
export function presentedToken(authorization: string | undefined): string | undefined {
  const secret = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
  return secret !== undefined && TOKEN_PATTERN.test(secret) ? secret : undefined;
}

export class ApiTokenService {
  /** Set once a token is known to exist: from then on the API stays on (tokens are never deleted but by uninstall). */
  #on = false;

  constructor(
    private readonly deps: {
      store: Store;
      access: AccessService;
      /** Resolves a zone named or picked (its id) to its name; absent: zones are taken as named. */
      zones?: {
        /** `within`: the account to look in when the value names none (a picker's bare id). */
        resolve(
          workspaceId: string,
          nameOrId: string,
          within?: string,
        ): Promise<{ name: string; accountId: string; accountName?: string }>;
      };
    },
  ) {}

  /**
   * Makes a token for a workspace admin; the plaintext is returned here only, once, and never
   * stored (only its hash). Zones picked are looked for in the token's account: one of another
   * account is AppError api_token_zone_account. Audited with what it reaches.
   */
  async create(caller: Caller, input: NewTokenInput): Promise<NewToken> {
    await this.deps.access.requireAdmin(caller, 'manage_api_tokens');
    const account = await this.#account(caller.workspaceId, input);
    let zones = input.zones;
    const resolver = this.deps.zones;
    if (zones !== null && account !== 'all' && resolver) {
      const within = account.name;
      zones = await Promise.all(
        zones.map(async (value) => {
          // A picked value names its zone's account when several are in play: it must be this one.
          const zone = await resolver.resolve(caller.workspaceId, value, within);
          const zoneAccount = zone.accountName ?? within;
          if (zone.accountId !== account.id)
            throw new AppError({
              code: 'api_token_zone_account',
              zoneName: zone.name,
              zoneAccount,
              tokenAccount: within,
            });
          return zone.name;
        }),
      );
    }
    const made = await this.#make(caller.workspaceId, caller.userId, { ...input, zones }, account);
    const { token } = made;
    const accountName = account === 'all' ? null : account.name;
    await this.deps.store.audit.record({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: 'api.token.created',
      outcome: 'ok',
      ...(token.accountId === null ? {} : { accountId: token.accountId }),
      detail: {
        token: token.name,
        tokenId: token.id,
        account: accountName,
        allAccounts: token.allAccounts,
        zones: token.zones ?? 'all',
        kinds: token.kinds,
        note: accountName === null ? 'every CDN account' : `CDN account ${accountName}`,
      },
    });
    return made;
  }

  /** As create, for a caller already checked (tests), its zones taken as named. */
  async createUnchecked(
    workspaceId: string,
    createdBy: string,
    input: NewTokenInput,
  ): Promise<NewToken> {
    return this.#make(workspaceId, createdBy, input, await this.#account(workspaceId, input));
  }

  /**
   * The account a new token is for: `all` (chosen so), the one given by id (AppError
   * account_not_found when the workspace has no such account), else the workspace's only one.
   */
  async #account(
    workspaceId: string,
    input: Pick<NewTokenInput, 'accountId' | 'allAccounts'>,
  ): Promise<Account | 'all'> {
    if (input.allAccounts) {
      if (input.accountId) throw new AppError({ code: 'api_token_invalid', field: 'account' });
      return 'all';
    }
    if (input.accountId) {
      const account = await this.deps.store.accounts.get(workspaceId, input.accountId);
      if (!account) throw new AppError({ code: 'account_not_found' });
      return account;
    }
    // None named: the workspace's only account; with several, the admin names one.
    const [only, ...others] = await this.deps.store.accounts.list(workspaceId);
    if (!only) throw new AppError({ code: 'no_api_key' });
    if (others.length > 0) throw new AppError({ code: 'api_token_invalid', field: 'account' });
    return only;
  }

  async #make(
    workspaceId: string,
    createdBy: string,
    input: NewTokenInput,
    account: Account | 'all',
  ): Promise<NewToken> {
    const name = input.name.trim();
    if (name === '' || name.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name))
      throw new AppError({ code: 'api_token_invalid', field: 'name' });
    const kinds = [...new Set(input.kinds)].filter((k) => API_TOKEN_KINDS.includes(k));
    if (kinds.length === 0) throw new AppError({ code: 'api_token_invalid', field: 'kinds' });
    const zones = input.zones === null ? null : [...new Set(input.zones.map(zoneKey))];
    if (zones !== null && (zones.length === 0 || zones.length > MAX_ZONES))
      throw new AppError({ code: 'api_token_invalid', field: 'zones' });
    // Every account means every zone: a zone named is one account's (pick that account instead).
    if (account === 'all' && zones !== null)
      throw new AppError({ code: 'api_token_invalid', field: 'account' });
    const secret = `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const token = await this.deps.store.apiTokens.create({
      workspaceId,
      name,
      hash: hashApiToken(secret),
      hint: secret.slice(0, API_TOKEN_PREFIX.length + 4),
      ...(account === 'all'
        ? { accountId: null, allAccounts: true as const }
        : { accountId: account.id, allAccounts: false as const }),
      zones,
      kinds,
      channelId: input.channelId ?? null,
      createdBy,
    });
    this.#on = true;
    return { token, secret, reach: account === 'all' ? { kind: 'all' } : reachOf(account) };
  }

  /**
   * The accounts a new token may be for, for the creation form (a workspace admin only); AppError
   * no_api_key when the workspace has none yet (a token would reach nothing).
   */
  async formChoices(caller: Caller): Promise<TokenFormChoices> {
    await this.deps.access.requireAdmin(caller, 'manage_api_tokens');
    const accounts = await this.deps.store.accounts.list(caller.workspaceId);
    if (accounts.length === 0) throw new AppError({ code: 'no_api_key' });
    // The only account, when there is one; else none (the admin picks).
    const preselected = accounts.length === 1 ? accounts[0] : undefined;
    return { accounts, ...(preselected ? { preselected: preselected.id } : {}) };
  }

  /**
   * The workspace's tokens, newest first (revoked ones too, marked so), each with what it reaches
   * now, for its admins.
   */
  async list(caller: Caller): Promise<ListedToken[]> {
    await this.deps.access.requireAdmin(caller, 'manage_api_tokens');
    const [tokens, accounts] = await Promise.all([
      this.deps.store.apiTokens.list(caller.workspaceId),
      this.deps.store.accounts.list(caller.workspaceId),
    ]);
    return tokens.map((token) => ({ ...token, reach: reachAmong(token, accounts) }));
  }

  /** Revokes a token of the caller's workspace; refused from the next request on, on every replica. */
  async revoke(caller: Caller, tokenId: string): Promise<boolean> {
    await this.deps.access.requireAdmin(caller, 'manage_api_tokens');
    const revoked = await this.deps.store.apiTokens.revoke(
      caller.workspaceId,
      tokenId,
      caller.userId,
    );
    if (revoked) {
      const token = await this.deps.store.apiTokens.get(caller.workspaceId, tokenId);
      await this.deps.store.audit.record({
        workspaceId: caller.workspaceId,
        actorId: caller.userId,
        action: 'api.token.revoked',
        outcome: 'ok',
        detail: { token: token?.name ?? tokenId, tokenId },
      });
    } else if (!(await this.deps.store.apiTokens.get(caller.workspaceId, tokenId))) {
      throw new AppError({ code: 'api_token_unknown' });
    }
    return revoked;
  }

  /**
   * The live token an `Authorization` header carries, else undefined (none, malformed, unknown,
   * revoked). Read from the database every time: a revocation holds at once, everywhere.
   */
  async authenticate(authorization: string | undefined): Promise<ApiToken | undefined> {
    const secret = presentedToken(authorization);
    if (secret === undefined) return undefined;
    const token = await this.deps.store.apiTokens.byHash(hashApiToken(secret));
    if (!token || token.revokedAt !== null) return undefined;
    // Its last use as just read: noted again once a minute, not once a request.
    await this.deps.store.apiTokens.touch(token.id, token.lastUsedAt);
    return token;
  }

  /** Whether the API is on: a token was ever made in any workspace (checked until one is). */
  async enabled(): Promise<boolean> {
    if (!this.#on) this.#on = await this.deps.store.apiTokens.any();
    return this.#on;
  }
}

/**
 * Who a token is in the audit log, jobs and approvals: `token:<name>`, what `/cdn audit
 * token:<name>` looks for (each entry's detail carries the token's id too).
 */
export function tokenActorId(token: Pick<ApiToken, 'name'>): string {
  return `${TOKEN_ACTOR_PREFIX}${token.name}`;
}

/** What a token reaches, as looked up now. */
export type TokenReach =
  /** Every CDN account of the workspace, including those added later: an admin chose so. */
  | { kind: 'all' }
  /** One account. */
  | { kind: 'account'; id: string; name: string }
  /** Nothing: its account was removed. */
  | { kind: 'none' };

/** The creation form's accounts, and the one chosen at first (never every account). */
export interface TokenFormChoices {
  accounts: Array<Pick<Account, 'id' | 'name' | 'hasKey'>>;
  preselected?: string;
}

/** A token as the list shows it. */
export type ListedToken = ApiToken & { reach: TokenReach };

/**
 * What a token reaches, among the workspace's accounts: every account only when it was made so;
 * else its own account (never every account, never an account added after it).
 */
export function reachAmong(
  token: Pick<ApiToken, 'accountId' | 'allAccounts'>,
  accounts: readonly Account[],
): TokenReach {
  if (token.allAccounts) return { kind: 'all' };
  return reachOf(accounts.find((a) => a.id === token.accountId));
}

function reachOf(account: Pick<Account, 'id' | 'name'> | undefined): TokenReach {
  return account ? { kind: 'account', id: account.id, name: account.name } : { kind: 'none' };
}

/** Whether a token may purge this zone: named on it (in the accounts it reaches), or every zone. */
export function tokenCoversZone(token: ApiToken, zoneName: string): boolean {
  return token.zones === null || token.zones.includes(zoneKey(zoneName));
}
