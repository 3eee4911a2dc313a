// Repository: a workspace's named CDN accounts, each with its own sealed API key.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import {
  type Account,
  type AccountCredential,
  accountKeyContext,
  blankAccount,
  checkName,
  dropZoneIndex,
  isAccountName,
  isUniqueViolation,
  type KeyAuthor,
  notFound,
  selectAccounts,
  storedKeyContext,
  taken,
  toAccount,
} from './account-model.js';
import type { Keyring } from './crypto.js';
import type { Database } from './schema.js';
import type { WorkspaceRepository } from './workspaces.js';

export {
  ACCOUNT_KEY_COLUMN,
  type Account,
  type AccountCredential,
  AccountError,
  type AccountErrorCode,
  accountKeyContext,
  checkName,
  type KeyAuthor,
  MOVED_KEY_COLUMN,
  storedKeyContext,
} from './account-model.js';

type Db = Kysely<Database> | Transaction<Database>;

export class AccountRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
    private readonly workspaces: WorkspaceRepository,
    private readonly newId: () => string = randomUUID,
    private readonly newGeneration: () => string = randomUUID,
  ) {}

  /** The workspace's accounts by name, with their zone counts. */
  async list(workspaceId: string): Promise<Account[]> {
    const rows = await selectAccounts(this.db)
      .where('a.workspace_id', '=', workspaceId)
      .orderBy('a.name_key')
      .execute();
    return rows.map(toAccount);
  }

  async get(workspaceId: string, accountId: string): Promise<Account | undefined> {
    const row = await selectAccounts(this.db)
      .where('a.workspace_id', '=', workspaceId)
      .where('a.id', '=', accountId)
      .executeTakeFirst();
    return row && toAccount(row);
  }

  /** The account of that name, in any case; undefined when there is none (or the name is no slug). */
  async byName(workspaceId: string, name: string): Promise<Account | undefined> {
    if (!isAccountName(name)) return undefined;
    const row = await selectAccounts(this.db)
      .where('a.workspace_id', '=', workspaceId)
      .where('a.name_key', '=', name.toLowerCase())
      .executeTakeFirst();
    return row && toAccount(row);
  }

  /** The account's key, decrypted, and its base URL; undefined when it has none. */
  async credential(workspaceId: string, accountId: string): Promise<AccountCredential | undefined> {
    const row = await selectAccounts(this.db)
      .select('a.sealed_as')
      .where('a.workspace_id', '=', workspaceId)
      .where('a.id', '=', accountId)
      .executeTakeFirst();
    if (!row || row.api_key === null) return undefined;
    const account = toAccount(row);
    if (account.setBy === null || account.setAt === null || account.generation === null)
      return undefined;
    return {
      accountId,
      workspaceId,
      name: account.name,
      apiKey: this.keyring.decrypt(row.api_key, storedKeyContext(row)),
      baseUrl: account.baseUrl,
      generation: account.generation,
      setBy: account.setBy,
      setAt: account.setAt,
      lastValidatedAt: account.lastValidatedAt,
    };
  }

  /**
   * A new account, with its key if one is given. AccountError `account_name_taken` when the
   * workspace has one of that name in any case.
   */
  async create(
    workspaceId: string,
    input: { name: string; baseUrl?: string | null; apiKey?: string; by: KeyAuthor },
  ): Promise<Account> {
    const name = checkName(input.name);
    await this.workspaces.ensure(workspaceId);
    const id = this.newId();
    const now = this.clock.now();
    await this.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('cdn_accounts')
        .values(blankAccount(id, workspaceId, name, input.baseUrl ?? null, now))
        .onConflict((c) => c.columns(['workspace_id', 'name_key']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) throw taken(name);
      if (input.apiKey !== undefined) {
        await this.writeKey(trx, workspaceId, id, input.apiKey, input.by);
      }
    });
    return (await this.get(workspaceId, id)) as Account;
  }

  /** Renames an account (AccountError `account_name_taken` when another has that name). */
  async rename(workspaceId: string, accountId: string, newName: string): Promise<Account> {
    const name = checkName(newName);
    await this.require(workspaceId, accountId);
    try {
      await this.db
        .updateTable('cdn_accounts')
        .set({ name, name_key: name.toLowerCase(), updated_at: this.clock.now() })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', accountId)
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw taken(name);
      throw error;
    }
    return (await this.get(workspaceId, accountId)) as Account;
  }

  /**
   * Stores the account's key under a new generation and, in the same transaction, drops its zone
   * index: whatever the old key listed is never read again, on any replica.
   */
  async setKey(
    workspaceId: string,
    accountId: string,
    apiKey: string,
    by: KeyAuthor,
  ): Promise<Account> {
    await this.require(workspaceId, accountId);
    await this.db.transaction().execute(async (trx) => {
      await this.writeKey(trx, workspaceId, accountId, apiKey, by);
    });
    return (await this.get(workspaceId, accountId)) as Account;
  }

  /**
   * The account named `name` with this base URL and key, made if the workspace has none of that
   * name, in one transaction (`/cdn login`, which names no account).
   */
  async setNamedKey(
    workspaceId: string,
    name: string,
    apiKey: string,
    by: KeyAuthor,
    baseUrl: string | null,
  ): Promise<AccountCredential> {
    const checked = checkName(name);
    await this.workspaces.ensure(workspaceId);
    const now = this.clock.now();
    const id = await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('cdn_accounts')
        .values(blankAccount(this.newId(), workspaceId, checked, baseUrl, now))
        .onConflict((c) => c.columns(['workspace_id', 'name_key']).doNothing())
        .execute();
      const account = await trx
        .selectFrom('cdn_accounts')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('name_key', '=', checked.toLowerCase())
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('cdn_accounts')
        .set({ base_url: baseUrl })
        .where('id', '=', account.id)
        .execute();
      await this.writeKey(trx, workspaceId, account.id, apiKey, by);
      return account.id;
    });
    return (await this.credential(workspaceId, id)) as AccountCredential;
  }

  /** Sets (or, null, clears) the account's own API base URL. The caller has checked it. */
  async setBaseUrl(workspaceId: string, accountId: string, baseUrl: string | null): Promise<void> {
    const result = await this.db
      .updateTable('cdn_accounts')
      .set({ base_url: baseUrl, updated_at: this.clock.now() })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', accountId)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw notFound();
  }

  /** Records that the key was just checked and works (the App Home's "still works"). */
  async markValidated(workspaceId: string, accountId: string, generation: string): Promise<void> {
    await this.db
      .updateTable('cdn_accounts')
      .set({ last_validated_at: this.clock.now() })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', accountId)
      // The key checked is still the one stored.
      .where('generation', '=', generation)
      .execute();
  }

  /**
   * Removes the account's key (the account, its id and base URL stay, so what refers to it waits
   * for a new key); its zone index goes with it. Returns whether there was a key.
   */
  async clearKey(workspaceId: string, accountId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const before = await this.row(trx, workspaceId, accountId);
      if (!before) return false;
      await trx
        .updateTable('cdn_accounts')
        .set({
          api_key: null,
          key_id: null,
          sealed_as: 'account',
          set_by: null,
          set_at: null,
          last_validated_at: null,
          generation: null,
          updated_at: this.clock.now(),
        })
        .where('id', '=', accountId)
        .execute();
      await dropZoneIndex(trx, before);
      return before.api_key !== null;
    });
  }

  /**
   * Deletes the account and its zone index. Rows that refer to it (audit, purges, watches…) are
   * left as they are: what stops with an account is the caller's to decide and say first
   * (AccountUsageRepository.remove does both in one transaction).
   */
  async remove(workspaceId: string, accountId: string): Promise<boolean> {
    return this.db.transaction().execute((trx) => this.removeIn(trx, workspaceId, accountId));
  }

  /** `remove` within the caller's transaction; false when there is no such account. */
  async removeIn(
    trx: Transaction<Database>,
    workspaceId: string,
    accountId: string,
  ): Promise<boolean> {
    const before = await this.row(trx, workspaceId, accountId);
    if (!before) return false;
    await trx.deleteFrom('cdn_accounts').where('id', '=', accountId).execute();
    await dropZoneIndex(trx, before);
    return true;
  }

  private async writeKey(
    trx: Transaction<Database>,
    workspaceId: string,
    accountId: string,
    apiKey: string,
    by: KeyAuthor,
  ): Promise<void> {
    const before = await this.row(trx, workspaceId, accountId);
    if (!before) throw notFound();
    const now = this.clock.now();
    await trx
      .updateTable('cdn_accounts')
      .set({
        api_key: this.keyring.encrypt(apiKey, accountKeyContext(workspaceId, accountId)),
        key_id: this.keyring.primaryId,
        sealed_as: 'account',
        set_by: by.userId,
        set_at: now,
        last_validated_at: by.validated ? now : null,
        generation: this.newGeneration(),
        updated_at: now,
      })
      .where('id', '=', accountId)
      .execute();
    await dropZoneIndex(trx, before);
  }

  private async require(workspaceId: string, accountId: string): Promise<Account> {
    const account = await this.get(workspaceId, accountId);
    if (!account) throw notFound();
    return account;
  }

  private row(db: Db, workspaceId: string, accountId: string) {
    return db
      .selectFrom('cdn_accounts')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', accountId)
      .executeTakeFirst();
  }
}
