// CDN accounts' names, errors, sealing contexts, rows and the query that reads them (for accounts.ts).
import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { CodedError } from '../errors.js';
import type { SecretContext } from './crypto.js';
import type { CdnAccountsTable, Database } from './schema.js';

/** The account every workspace's single key became (0016), and what "no account named" means. */
export const DEFAULT_ACCOUNT = 'default';

/** A slug: letters, digits and inner hyphens, 1 to 32 characters (`prod`, `eu-staging`). */
const NAME = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/i;

export const ACCOUNT_KEY_COLUMN = 'cdn_accounts.api_key';
/** The column the keys of `default` were sealed for before 0016 (and are still mirrored to). */
export const LEGACY_KEY_COLUMN = 'cdn_credentials.api_key';

/** How an account's key is sealed: bound to its workspace, the column and the account's id. */
export const accountKeyContext = (workspaceId: string, accountId: string): SecretContext => ({
  workspace: workspaceId,
  column: ACCOUNT_KEY_COLUMN,
  row: accountId,
});
export const legacyKeyContext = (workspaceId: string): SecretContext => ({
  workspace: workspaceId,
  column: LEGACY_KEY_COLUMN,
});

/** The context a stored key was sealed in (`sealed_as`): rotation re-seals `credentials` ones. */
export function storedKeyContext(row: {
  workspace_id: string;
  id: string;
  sealed_as: string;
}): SecretContext {
  return row.sealed_as === 'credentials'
    ? legacyKeyContext(row.workspace_id)
    : accountKeyContext(row.workspace_id, row.id);
}

export type AccountErrorCode =
  | 'account_name_invalid'
  | 'account_name_taken'
  | 'account_not_found'
  /** `default` is what the single-key commands use: it is not renamed, nor is another named so. */
  | 'account_default_reserved';

export class AccountError extends Error implements CodedError {
  override readonly name = 'AccountError';
  constructor(
    readonly code: AccountErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What may be shown about an account: everything but its key. */
export interface Account {
  id: string;
  workspaceId: string;
  name: string;
  /** Null: CDN_API_BASE_URL. */
  baseUrl: string | null;
  hasKey: boolean;
  setBy: string | null;
  setAt: number | null;
  lastValidatedAt: number | null;
  /** Changes whenever a key is set; null while there is none. */
  generation: string | null;
  /** Zones in the index built for the current key; null when none is built yet. */
  zoneCount: number | null;
  createdAt: number;
}

/** An account with its key, decrypted. */
export interface AccountCredential {
  accountId: string;
  workspaceId: string;
  name: string;
  apiKey: string;
  baseUrl: string | null;
  generation: string;
  setBy: string;
  setAt: number;
  lastValidatedAt: number | null;
}

export interface KeyAuthor {
  userId: string;
  /** Whether the key was just checked against the CDN. */
  validated: boolean;
}

export interface AccountRow {
  id: string;
  workspace_id: string;
  name: string;
  base_url: string | null;
  api_key: string | null;
  set_by: string | null;
  set_at: number | null;
  last_validated_at: number | null;
  generation: string | null;
  created_at: number;
  legacy_workspace: string | null;
  legacy_set_by: string | null;
  legacy_set_at: number | null;
  legacy_validated_at: number | null;
  legacy_generation: string | null;
  workspace_base_url: string | null;
  zone_count: number | null;
  refreshed_at: number | null;
}

export function toAccount(row: AccountRow): Account {
  const common = {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    zoneCount: row.refreshed_at === null ? null : row.zone_count,
    createdAt: row.created_at,
  };
  if (isDefault(row.name)) {
    const hasKey = row.legacy_workspace !== null;
    return {
      ...common,
      baseUrl: row.workspace_base_url,
      hasKey,
      setBy: row.legacy_set_by,
      setAt: row.legacy_set_at,
      lastValidatedAt: row.legacy_validated_at,
      generation: hasKey
        ? (row.legacy_generation ?? `${row.workspace_id}:${row.legacy_set_at}`)
        : null,
    };
  }
  return {
    ...common,
    baseUrl: row.base_url,
    hasKey: row.api_key !== null,
    setBy: row.set_by,
    setAt: row.set_at,
    lastValidatedAt: row.last_validated_at,
    generation: row.generation,
  };
}

/**
 * `default`'s id, as a subquery (null while the workspace has no account `default`): what a new
 * row of `default`'s names as its account (rows from before 0016 hold null).
 */
export function defaultAccountIdOf(workspaceId: string) {
  return sql<
    string | null
  >`(select id from cdn_accounts where workspace_id = ${workspaceId} and name_key = 'default')`;
}

/** `default`'s id, read in `db` (the caller's transaction, if any); undefined while it has none. */
export async function defaultAccountIdIn(
  db: Kysely<Database> | Transaction<Database>,
  workspaceId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('cdn_accounts')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('name_key', '=', DEFAULT_ACCOUNT)
    .executeTakeFirst();
  return row?.id;
}

/**
 * The account a row of timed work names, as the app sees it: another account's id; nothing for
 * `default`'s (its id, or null from before), told apart by `account_key`, its account's name.
 */
export function otherAccountOf(row: { account_id: string | null; account_key: string | null }): {
  accountId?: string;
} {
  return row.account_id !== null && row.account_key !== DEFAULT_ACCOUNT
    ? { accountId: row.account_id }
    : {};
}

export function isDefault(name: string): boolean {
  return name.toLowerCase() === DEFAULT_ACCOUNT;
}

/** The name, if it is a slug; AccountError `account_name_invalid` otherwise. */
export function checkName(name: string): string {
  const trimmed = name.trim();
  if (!NAME.test(trimmed)) {
    throw new AccountError(
      'account_name_invalid',
      'An account name is 1 to 32 letters, digits or inner hyphens',
    );
  }
  return trimmed;
}

export function taken(name: string): AccountError {
  return new AccountError('account_name_taken', `The workspace already has an account "${name}"`);
}

export function notFound(): AccountError {
  return new AccountError('account_not_found', 'No such account in this workspace');
}

/** A unique index refused the write (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Whether a name is a slug an account may have. */
export function isAccountName(name: string): boolean {
  return NAME.test(name);
}

export function reserved(): AccountError {
  return new AccountError(
    'account_default_reserved',
    'The account "default" keeps its name, and no other account may take it',
  );
}

/** A new account's row, without a key. */
export function blankAccount(
  id: string,
  workspaceId: string,
  name: string,
  baseUrl: string | null,
  now: number,
): Insertable<CdnAccountsTable> {
  return {
    id,
    workspace_id: workspaceId,
    name,
    name_key: name.toLowerCase(),
    base_url: baseUrl,
    api_key: null,
    key_id: null,
    set_by: null,
    set_at: null,
    last_validated_at: null,
    generation: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Accounts as they stand. The key of `default` (who set it, when, its generation) and its base
 * URL are read from cdn_credentials and workspaces, which an older replica may still write during
 * a rolling upgrade; its zone count is the index's built for the current generation.
 */
export function selectAccounts(db: Kysely<Database> | Transaction<Database>) {
  return (
    db
      .selectFrom('cdn_accounts as a')
      .leftJoin('cdn_credentials as c', (join) =>
        join.onRef('c.workspace_id', '=', 'a.workspace_id').on('a.name_key', '=', DEFAULT_ACCOUNT),
      )
      .leftJoin('workspaces as w', 'w.id', 'a.workspace_id')
      // Zone counts: `default`'s index is zone_index_state, any other account's its own (0022),
      // each only when built for the account's current key.
      .leftJoin('zone_index_state as s', (join) =>
        join
          .onRef('s.workspace_id', '=', 'a.workspace_id')
          .on('a.name_key', '=', DEFAULT_ACCOUNT)
          .on(
            sql<boolean>`${sql.ref('s.generation')} = coalesce(${sql.ref('c.generation')}, ${sql.ref('a.generation')})`,
          ),
      )
      .leftJoin('account_zone_index_state as x', (join) =>
        join
          .onRef('x.workspace_id', '=', 'a.workspace_id')
          .onRef('x.account_id', '=', 'a.id')
          .onRef('x.generation', '=', 'a.generation')
          .on('a.name_key', '<>', DEFAULT_ACCOUNT),
      )
      .select([
        'a.id',
        'a.workspace_id',
        'a.name',
        'a.base_url',
        'a.api_key',
        'a.set_by',
        'a.set_at',
        'a.last_validated_at',
        'a.generation',
        'a.created_at',
        'c.workspace_id as legacy_workspace',
        'c.set_by as legacy_set_by',
        'c.set_at as legacy_set_at',
        'c.last_validated_at as legacy_validated_at',
        'c.generation as legacy_generation',
        'w.cdn_base_url as workspace_base_url',
        sql<number | null>`coalesce(${sql.ref('s.zone_count')}, ${sql.ref('x.zone_count')})`.as(
          'zone_count',
        ),
        sql<number | null>`coalesce(${sql.ref('s.refreshed_at')}, ${sql.ref('x.refreshed_at')})`.as(
          'refreshed_at',
        ),
      ])
  );
}

/**
 * The zone index built for the account's key: `default`'s in zone_index_state (one row per
 * workspace, account_id null or its id), any other account's in account_zone_index_state (0022).
 */
export async function dropZoneIndex(
  trx: Transaction<Database>,
  account: Selectable<CdnAccountsTable>,
): Promise<void> {
  await trx
    .deleteFrom('zone_index_state')
    .where('workspace_id', '=', account.workspace_id)
    .where((eb) =>
      isDefault(account.name)
        ? eb.or([eb('account_id', '=', account.id), eb('account_id', 'is', null)])
        : eb('account_id', '=', account.id),
    )
    .execute();
  await trx
    .deleteFrom('account_zone_index_state')
    .where('workspace_id', '=', account.workspace_id)
    .where('account_id', '=', account.id)
    .execute();
}
