// Repository: the key `/cdn login` and `/cdn logout` manage, which name no account: the key of the
// workspace's account LOGIN_ACCOUNT, an ordinary account that the first login makes.
import type { AccountRepository } from './accounts.js';

/** The account a login that names none sets the key of (made by it when missing). */
export const LOGIN_ACCOUNT = 'default';

/** What may be shown about a key: everything but the key. */
export interface CredentialStatus {
  workspaceId: string;
  setBy: string;
  setAt: number;
  lastValidatedAt: number | null;
}

export interface Credential extends CredentialStatus {
  /** The account the key is of. */
  accountId: string;
  apiKey: string;
  /** The account's own CDN base URL; null: CDN_API_BASE_URL. */
  baseUrl: string | null;
  /** Changes whenever a key is set: what the account's zone index must have been built for. */
  generation: string;
}

export class CredentialRepository {
  constructor(private readonly accounts: AccountRepository) {}

  /**
   * Stores the key (and base URL) of the login account under a new generation, making the account
   * if needed; its zone index is dropped in the same transaction (AccountRepository.setKey).
   */
  async set(
    workspaceId: string,
    apiKey: string,
    by: { userId: string; validated: boolean },
    baseUrl: string | null = null,
  ): Promise<CredentialStatus & { accountId: string }> {
    const { accountId, setBy, setAt, lastValidatedAt } = await this.accounts.setNamedKey(
      workspaceId,
      LOGIN_ACCOUNT,
      apiKey,
      by,
      baseUrl,
    );
    return { workspaceId, accountId, setBy, setAt, lastValidatedAt };
  }

  /** The login account's key, decrypted, with its base URL; undefined when it has none. */
  async get(workspaceId: string): Promise<Credential | undefined> {
    const account = await this.accounts.byName(workspaceId, LOGIN_ACCOUNT);
    if (!account?.hasKey) return undefined;
    return this.accounts.credential(workspaceId, account.id);
  }

  /** Who set the login account's key and when, without decrypting it. */
  async status(workspaceId: string): Promise<CredentialStatus | undefined> {
    const account = await this.accounts.byName(workspaceId, LOGIN_ACCOUNT);
    if (!account?.hasKey || account.setBy === null || account.setAt === null) return undefined;
    return {
      workspaceId,
      setBy: account.setBy,
      setAt: account.setAt,
      lastValidatedAt: account.lastValidatedAt,
    };
  }

  /**
   * Removes the login account's key; the account stays (what refers to it waits for a new key).
   * Returns whether there was a key.
   */
  async delete(workspaceId: string): Promise<boolean> {
    const account = await this.accounts.byName(workspaceId, LOGIN_ACCOUNT);
    return account === undefined ? false : this.accounts.clearKey(workspaceId, account.id);
  }
}
