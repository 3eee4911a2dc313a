// Repository: a workspace's named CDN accounts, each with its own sealed API key.
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import {
  type Account,
  type AccountCredential,
  accountKeyContext,
  blankAccount,
  checkName,
  DEFAULT_ACCOUNT,
  defaultAccountIdIn,
  dropZoneIndex,
  isAccountName,
  isDefault,
  isUniqueViolation,
  type KeyAuthor,
  legacyKeyContext,
  notFound,
  reserved,
  selectAccounts,
  storedKeyContext,
  taken,
  toAccount,
} from './account-model.js';
import type { Keyring } from './crypto.js';
import type { CdnAccountsTable, Database } from './schema.js';
import type { WorkspaceRepository } from './workspaces.js';

export {
  ACCOUNT_KEY_COLUMN,
  type Account,
  type AccountCredential,
  AccountError,
  type AccountErrorCode,
  accountKeyContext,
  checkName,
  DEFAULT_ACCOUNT,
  type KeyAuthor,
  LEGACY_KEY_COLUMN,
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

  /**
   * The account's key, decrypted, and its base URL; undefined when it has none. For `default`
   * both are read where the single-key path keeps them (see `mirror`).
   */
  async credential(workspaceId: string, accountId: string): Promise<AccountCredential | undefined> {
    const row = await selectAccounts(this.db)
      .select(['a.api_key as own_key', 'a.sealed_as', 'c.api_key as legacy_key'])
      .where('a.workspace_id', '=', workspaceId)
      .where('a.id', '=', accountId)
      .executeTakeFirst();
    if (!row) return undefined;
    const account = toAccount(row);
    if (account.setBy === null || account.setAt === null) return undefined;
    let apiKey: string;
    if (isDefault(row.name)) {
      if (row.legacy_key === null) return undefined;
      apiKey = this.keyring.decrypt(row.legacy_key, legacyKeyContext(workspaceId));
    } else {
      if (row.own_key === null) return undefined;
      apiKey = this.keyring.decrypt(row.own_key, storedKeyContext({ ...row, id: accountId }));
    }
    return {
      accountId,
      workspaceId,
      name: account.name,
      apiKey,
      baseUrl: account.baseUrl,
      generation: account.generation ?? `${workspaceId}:${account.setAt}`,
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
      if (isDefault(name)) await this.mirror(trx, workspaceId, { baseUrl: input.baseUrl ?? null });
    });
    return (await this.get(workspaceId, id)) as Account;
  }

  /** Renames an account; `default` is neither renamed nor given to another (see the error). */
  async rename(workspaceId: string, accountId: string, newName: string): Promise<Account> {
    const name = checkName(newName);
    const account = await this.require(workspaceId, accountId);
    if (isDefault(account.name) !== isDefault(name)) {
      throw reserved();
    }
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
   * The single-key path (`/cdn login`): the account `default`, made if the workspace has none,
   * gets this base URL and key, in one transaction.
   */
  async setDefaultKey(
    workspaceId: string,
    apiKey: string,
    by: KeyAuthor,
    baseUrl: string | null,
  ): Promise<AccountCredential> {
    await this.workspaces.ensure(workspaceId);
    const now = this.clock.now();
    const id = await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('cdn_accounts')
        .values(blankAccount(this.newId(), workspaceId, DEFAULT_ACCOUNT, baseUrl, now))
        .onConflict((c) => c.columns(['workspace_id', 'name_key']).doNothing())
        .execute();
      const account = await trx
        .selectFrom('cdn_accounts')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('name_key', '=', DEFAULT_ACCOUNT)
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('cdn_accounts')
        .set({ base_url: baseUrl })
        .where('id', '=', account.id)
        .execute();
      await this.mirror(trx, workspaceId, { baseUrl });
      await this.writeKey(trx, workspaceId, account.id, apiKey, by);
      return account.id;
    });
    return (await this.credential(workspaceId, id)) as AccountCredential;
  }

  /** The id of the workspace's account `default`; undefined when it has none. */
  async defaultId(workspaceId: string): Promise<string | undefined> {
    return defaultAccountIdIn(this.db, workspaceId);
  }

  /** Sets (or, null, clears) the account's own API base URL. The caller has checked it. */
  async setBaseUrl(workspaceId: string, accountId: string, baseUrl: string | null): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('cdn_accounts')
        .set({ base_url: baseUrl, updated_at: this.clock.now() })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', accountId)
        .returning('name')
        .executeTakeFirst();
      if (!result) throw notFound();
      if (isDefault(result.name)) await this.mirror(trx, workspaceId, { baseUrl });
    });
  }

  /** Records that the key was just checked and works (the App Home's "still works"). */
  async markValidated(workspaceId: string, accountId: string, generation: string): Promise<void> {
    const now = this.clock.now();
    await this.db.transaction().execute(async (trx) => {
      const account = await trx
        .updateTable('cdn_accounts')
        .set({ last_validated_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', accountId)
        // The key checked is still the one stored.
        .where('generation', '=', generation)
        .returning('name')
        .executeTakeFirst();
      if (account && isDefault(account.name))
        await trx
          .updateTable('cdn_credentials')
          .set({ last_validated_at: now })
          .where('workspace_id', '=', workspaceId)
          .where('generation', '=', generation)
          .execute();
    });
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
      if (isDefault(before.name)) await this.mirror(trx, workspaceId, { key: null });
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
    if (isDefault(before.name)) await this.mirror(trx, workspaceId, { key: null });
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
    if (isDefault(before.name)) {
      const row = (await this.row(trx, workspaceId, accountId)) as Selectable<CdnAccountsTable>;
      await this.mirror(trx, workspaceId, { key: { apiKey, row } });
    }
  }

  /**
   * Until every reader and every replica uses accounts, what is written to the account `default`
   * is also written, in the same transaction, where the single-key code reads it: its base URL in
   * workspaces.cdn_base_url, its key in cdn_credentials (sealed a second time, for that column).
   * An older replica during a rolling upgrade, and the store's queries that join cdn_credentials,
   * see the same key, generation and base URL. `key`: the key just set, or null when it went.
   */
  private async mirror(
    trx: Transaction<Database>,
    workspaceId: string,
    change: {
      baseUrl?: string | null;
      key?: { apiKey: string; row: Selectable<CdnAccountsTable> } | null;
    },
  ): Promise<void> {
    if (change.baseUrl !== undefined) {
      await trx
        .updateTable('workspaces')
        .set({ cdn_base_url: change.baseUrl, updated_at: this.clock.now() })
        .where('id', '=', workspaceId)
        .execute();
    }
    if (change.key === null) {
      await trx.deleteFrom('cdn_credentials').where('workspace_id', '=', workspaceId).execute();
    } else if (change.key !== undefined) {
      const { apiKey, row: account } = change.key;
      const row = {
        api_key: this.keyring.encrypt(apiKey, legacyKeyContext(workspaceId)),
        key_id: this.keyring.primaryId,
        set_by: account.set_by as string,
        set_at: account.set_at as number,
        last_validated_at: account.last_validated_at,
        generation: account.generation,
      };
      await trx
        .insertInto('cdn_credentials')
        .values({ workspace_id: workspaceId, ...row })
        .onConflict((c) => c.column('workspace_id').doUpdateSet(row))
        .execute();
    }
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
