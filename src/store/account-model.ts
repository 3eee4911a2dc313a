// CDN accounts' names, errors, sealing contexts, rows and the query that reads them (for accounts.ts).
import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { CodedError } from '../errors.js';
import type { SecretContext } from './crypto.js';
import type { CdnAccountsTable, Database } from './schema.js';

/** A slug: letters, digits and inner hyphens, 1 to 32 characters (`prod`, `eu-staging`). */
const NAME = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/i;

export const ACCOUNT_KEY_COLUMN = 'cdn_accounts.api_key';
/**
 * The column a key set before accounts was sealed for: 0034 moved such keys onto their account as
 * they were sealed (`sealed_as` = `credentials`), and they are read so until a rotation re-seals them.
 */
export const MOVED_KEY_COLUMN = 'cdn_credentials.api_key';

/** How an account's key is sealed: bound to its workspace, the column and the account's id. */
export const accountKeyContext = (workspaceId: string, accountId: string): SecretContext => ({
  workspace: workspaceId,
  column: ACCOUNT_KEY_COLUMN,
  row: accountId,
});
export const movedKeyContext = (workspaceId: string): SecretContext => ({
  workspace: workspaceId,
  column: MOVED_KEY_COLUMN,
});

/** The context a stored key was sealed in (`sealed_as`): rotation re-seals `credentials` ones. */
export function storedKeyContext(row: {
  workspace_id: string;
  id: string;
  sealed_as: string;
}): SecretContext {
  return row.sealed_as === 'credentials'
    ? movedKeyContext(row.workspace_id)
    : accountKeyContext(row.workspace_id, row.id);
}

export type AccountErrorCode = 'account_name_invalid' | 'account_name_taken' | 'account_not_found';

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
  zone_count: number | null;
  refreshed_at: number | null;
}

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    baseUrl: row.base_url,
    hasKey: row.api_key !== null,
    setBy: row.set_by,
    setAt: row.set_at,
    lastValidatedAt: row.last_validated_at,
    generation: row.generation,
    zoneCount: row.refreshed_at === null ? null : row.zone_count,
    createdAt: row.created_at,
  };
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

/** Accounts as they stand, with the zone count of the index built for each one's current key. */
export function selectAccounts(db: Kysely<Database> | Transaction<Database>) {
  return db
    .selectFrom('cdn_accounts as a')
    .leftJoin('zone_index_state as s', (join) =>
      join
        .onRef('s.workspace_id', '=', 'a.workspace_id')
        .onRef('s.account_id', '=', 'a.id')
        .onRef('s.generation', '=', 'a.generation'),
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
      's.zone_count',
      's.refreshed_at',
    ]);
}

/** Drops the zone index built for the account's key (its zones go with its state). */
export async function dropZoneIndex(
  trx: Transaction<Database>,
  account: Selectable<CdnAccountsTable>,
): Promise<void> {
  await trx
    .deleteFrom('zone_index_state')
    .where('workspace_id', '=', account.workspace_id)
    .where('account_id', '=', account.id)
    .execute();
}
