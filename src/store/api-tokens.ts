// Repository: tokens of the HTTP API. Only a token's hash is stored; a lookup reads revocation
// from the database every time, so a revoked token is refused on every replica at once.
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import type { ApiTokensTable, Database } from './schema.js';

export type ApiTokenKind = 'urls_tags' | 'everything';

export interface ApiToken {
  id: string;
  workspaceId: string;
  name: string;
  /** The token's first characters, to tell it apart in a list. */
  hint: string;
  /** The one CDN account it reaches; null exactly when it reaches them all (`allAccounts`). */
  accountId: string | null;
  /** Every CDN account of the workspace, including those added later: chosen so by an admin. */
  allAccounts: boolean;
  /** Zone names it may purge; null: every zone of the accounts it reaches. */
  zones: string[] | null;
  kinds: ApiTokenKind[];
  channelId: string | null;
  createdBy: string;
  createdAt: number;
  revokedAt: number | null;
  revokedBy: string | null;
  lastUsedAt: number | null;
}

/** A token reaches one account, or (an admin's choice) every account and names none. */
type TokenReachColumns =
  | { accountId: string; allAccounts: false }
  | { accountId: null; allAccounts: true };

export type NewApiToken = Pick<
  ApiToken,
  'workspaceId' | 'name' | 'hint' | 'zones' | 'kinds' | 'channelId' | 'createdBy'
> &
  TokenReachColumns & { hash: string };

/** last_used_at is written at most this often per token (one write a minute, not one a request). */
const LAST_USED_GRANULARITY_MS = 60_000;

export class ApiTokenRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly newId: () => string = randomUUID,
  ) {}

  async create(input: NewApiToken): Promise<ApiToken> {
    const row: Selectable<ApiTokensTable> = {
      id: this.newId(),
      workspace_id: input.workspaceId,
      name: input.name,
      token_hash: input.hash,
      token_hint: input.hint,
      account_id: input.accountId,
      account_scope: input.allAccounts ? 'all' : 'account',
      zones: input.zones === null ? null : JSON.stringify(input.zones),
      kinds: JSON.stringify(input.kinds),
      channel_id: input.channelId,
      created_by: input.createdBy,
      created_at: this.clock.now(),
      revoked_at: null,
      revoked_by: null,
      last_used_at: null,
    };
    await this.db.insertInto('api_tokens').values(row).execute();
    return toToken(row);
  }

  /** The token with this hash, revoked or not (the caller decides). */
  async byHash(hash: string): Promise<ApiToken | undefined> {
    const row = await this.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('token_hash', '=', hash)
      .executeTakeFirst();
    return row && toToken(row);
  }

  async get(workspaceId: string, id: string): Promise<ApiToken | undefined> {
    const row = await this.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toToken(row);
  }

  /** A workspace's tokens, newest first, revoked ones included. */
  async list(workspaceId: string, limit = 100): Promise<ApiToken[]> {
    const rows = await this.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toToken);
  }

  /** Whether any token was ever made (the API is off until then). */
  async any(): Promise<boolean> {
    const row = await this.db.selectFrom('api_tokens').select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** Revokes it; false when it was already revoked or is not the workspace's. */
  async revoke(workspaceId: string, id: string, by: string): Promise<boolean> {
    const result = await this.db
      .updateTable('api_tokens')
      .set({ revoked_at: this.clock.now(), revoked_by: by })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Notes a use, at most once a minute per token (one conditional UPDATE). `lastUsedAt`, as the
   * token was just read: within the minute, nothing is written (no statement at all). Returns
   * whether the UPDATE was sent.
   */
  async touch(id: string, lastUsedAt?: number | null): Promise<boolean> {
    const now = this.clock.now();
    if (typeof lastUsedAt === 'number' && lastUsedAt > now - LAST_USED_GRANULARITY_MS) return false;
    await this.db
      .updateTable('api_tokens')
      .set({ last_used_at: now })
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('last_used_at', 'is', null),
          eb('last_used_at', '<=', now - LAST_USED_GRANULARITY_MS),
        ]),
      )
      .execute();
    return true;
  }

  /** Revokes every live token of a workspace (uninstall); returns how many. */
  async revokeAll(workspaceId: string, by: string): Promise<number> {
    const result = await this.db
      .updateTable('api_tokens')
      .set({ revoked_at: this.clock.now(), revoked_by: by })
      .where('workspace_id', '=', workspaceId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}

function toToken(row: Selectable<ApiTokensTable>): ApiToken {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    hint: row.token_hint,
    accountId: row.account_scope === 'all' ? null : row.account_id,
    // Anything but an explicit `all` is one account: an unknown value never widens a token.
    allAccounts: row.account_scope === 'all',
    zones: row.zones === null ? null : (JSON.parse(row.zones) as string[]),
    kinds: JSON.parse(row.kinds) as ApiTokenKind[],
    channelId: row.channel_id,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    revokedBy: row.revoked_by,
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  };
}
