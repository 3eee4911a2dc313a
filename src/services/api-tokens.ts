// Tokens of the HTTP API (issue 30): made by a workspace admin, shown once, stored only as a
// SHA-256 hash; scoped to zones (or every zone of an account) and to kinds of purge; revoked at
// once on every replica (authentication reads the database on every request).
import { createHash, randomBytes } from 'node:crypto';
import { TOKEN_ACTOR_PREFIX } from '../audit-kinds.js';
import { AppError } from '../errors.js';
import type { ApiToken, ApiTokenKind } from '../store/api-tokens.js';
import type { Store } from '../store/index.js';
import { zoneKey } from '../zone-names.js';
import type { AccessService, Caller } from './access.js';

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
   * Zone names (or ids, as a zone picker gives them: resolved to names); null: every zone of the
   * accounts it may use.
   */
  zones: string[] | null;
  /** Null: bound to no account, so it may use every CDN account of the workspace. */
  accountId?: string | null;
  kinds: ApiTokenKind[];
  /** Where its purges are announced; none: each zone's bound channel. */
  channelId?: string | null;
}

/** The SHA-256 of a token's text, as stored. */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export class ApiTokenService {
  /** Set once a token is known to exist: from then on the API stays on (tokens are never deleted but by uninstall). */
  #on = false;

  constructor(
    private readonly deps: {
      store: Store;
      access: AccessService;
      /** Resolves a zone named or picked (its id) to its name; absent: zones are taken as named. */
      zones?: { resolve(workspaceId: string, nameOrId: string): Promise<{ name: string }> };
    },
  ) {}

  /**
   * Makes a token for a workspace admin; the plaintext is returned here only, once, and never
   * stored (only its hash).
   */
  async create(caller: Caller, input: NewTokenInput): Promise<{ token: ApiToken; secret: string }> {
    await this.deps.access.requireAdmin(caller, 'manage_api_tokens');
    const zones =
      input.zones === null || !this.deps.zones
        ? input.zones
        : await Promise.all(
            input.zones.map(
              async (zone) =>
                (await this.deps.zones?.resolve(caller.workspaceId, zone))?.name ?? zone,
            ),
          );
    return this.createUnchecked(caller.workspaceId, caller.userId, { ...input, zones });
  }

  /** As create, for a caller already checked (tests, and the admin's modal after its own check). */
  async createUnchecked(
    workspaceId: string,
    createdBy: string,
    input: NewTokenInput,
  ): Promise<{ token: ApiToken; secret: string }> {
    const name = input.name.trim();
    if (name === '' || name.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name))
      throw new AppError({ code: 'api_token_invalid', field: 'name' });
    const kinds = [...new Set(input.kinds)].filter((k) => API_TOKEN_KINDS.includes(k));
    if (kinds.length === 0) throw new AppError({ code: 'api_token_invalid', field: 'kinds' });
    const zones = input.zones === null ? null : [...new Set(input.zones.map(zoneKey))];
    if (zones !== null && (zones.length === 0 || zones.length > MAX_ZONES))
      throw new AppError({ code: 'api_token_invalid', field: 'zones' });
    const secret = `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const token = await this.deps.store.apiTokens.create({
      workspaceId,
      name,
      hash: hashApiToken(secret),
      hint: secret.slice(0, API_TOKEN_PREFIX.length + 4),
      accountId: input.accountId ?? null,
      zones,
      kinds,
      channelId: input.channelId ?? null,
      createdBy,
    });
    this.#on = true;
    return { token, secret };
  }

  /** Refuses anyone but a workspace admin (before the creation form opens). */
  async requireManager(caller: Caller): Promise<void> {
    await this.deps.access.requireAdmin(caller, 'manage_api_tokens');
  }

  /** The workspace's tokens, newest first (revoked ones too, marked so), for its admins. */
  async list(caller: Caller): Promise<ApiToken[]> {
    await this.deps.access.requireAdmin(caller, 'manage_api_tokens');
    return this.deps.store.apiTokens.list(caller.workspaceId);
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
    const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
    const secret = match?.[1];
    if (secret === undefined || !TOKEN_PATTERN.test(secret)) return undefined;
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

/** Whether a token may purge this zone: named on it (in any account it may use), or every zone. */
export function tokenCoversZone(token: ApiToken, zoneName: string): boolean {
  return token.zones === null || token.zones.includes(zoneKey(zoneName));
}
