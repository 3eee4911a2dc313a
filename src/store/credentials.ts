// Repository: the single-key path (`/cdn login`, `/cdn logout`): the workspace's account `default`.
import type { Kysely } from 'kysely';
import { legacyKeyContext } from './account-model.js';
import { type AccountRepository, LEGACY_KEY_COLUMN } from './accounts.js';
import type { Keyring } from './crypto.js';
import type { Database } from './schema.js';
import type { WorkspaceRepository } from './workspaces.js';

/** What may be shown about a key: everything but the key. */
export interface CredentialStatus {
  workspaceId: string;
  setBy: string;
  setAt: number;
  lastValidatedAt: number | null;
}

export interface Credential extends CredentialStatus {
  apiKey: string;
  /** Changes whenever a key is set: what the workspace's zone index must have been built for. */
  generation: string;
}

/** The column the workspace's key is sealed for (see AccountRepository's mirror). */
export const API_KEY_COLUMN = LEGACY_KEY_COLUMN;

/**
 * The workspace's key: the key of its account `default` (migration 0016).
 * It is written through the account (accounts.ts), which writes cdn_credentials
 * in the same transaction; it is read from cdn_credentials, which stays authoritative for
 * `default` while an older replica may still write it (a rolling upgrade: docs/deploy.md).
 */
export class CredentialRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly keyring: Keyring,
    private readonly accounts: AccountRepository,
    private readonly workspaces: WorkspaceRepository,
  ) {}

  /**
   * Stores the key under a new generation and, in the same transaction, drops the workspace's zone
   * index: whatever the old key listed is never read again, on any replica. The account `default`
   * takes the workspace's base URL (set just before by the caller).
   */
  async set(
    workspaceId: string,
    apiKey: string,
    by: { userId: string; validated: boolean },
  ): Promise<CredentialStatus> {
    const workspace = await this.workspaces.ensure(workspaceId);
    const { setBy, setAt, lastValidatedAt } = await this.accounts.setDefaultKey(
      workspaceId,
      apiKey,
      by,
      workspace.cdnBaseUrl,
    );
    return { workspaceId, setBy, setAt, lastValidatedAt };
  }

  /** The key, decrypted; undefined when the workspace has none. */
  async get(workspaceId: string): Promise<Credential | undefined> {
    const row = await this.db
      .selectFrom('cdn_credentials')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      ...statusOf(workspaceId, row),
      apiKey: this.keyring.decrypt(row.api_key, legacyKeyContext(workspaceId)),
      generation: generationOf(row),
    };
  }

  /**
   * The key, decrypted, and the workspace's own CDN base URL (null: CDN_API_BASE_URL), in one
   * query: what a client of the account `default` needs; undefined when there is no key.
   */
  async withBaseUrl(
    workspaceId: string,
  ): Promise<{ apiKey: string; baseUrl: string | null } | undefined> {
    const row = await this.db
      .selectFrom('cdn_credentials as c')
      .leftJoin('workspaces as w', 'w.id', 'c.workspace_id')
      .select(['c.api_key', 'w.cdn_base_url'])
      .where('c.workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      apiKey: this.keyring.decrypt(row.api_key, legacyKeyContext(workspaceId)),
      baseUrl: row.cdn_base_url ?? null,
    };
  }

  /** Who set the key and when, without decrypting it. */
  async status(workspaceId: string): Promise<CredentialStatus | undefined> {
    const row = await this.db
      .selectFrom('cdn_credentials')
      .select(['set_by', 'set_at', 'last_validated_at'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    return row && statusOf(workspaceId, row);
  }

  /**
   * Returns whether there was a key to delete. The zone index goes with it; the account `default`
   * stays (its id, which watches and reports will refer to, and its base URL) until a key is set
   * again.
   */
  async delete(workspaceId: string): Promise<boolean> {
    const had = (await this.status(workspaceId)) !== undefined;
    const id = await this.accounts.defaultId(workspaceId);
    if (id) {
      await this.accounts.clearKey(workspaceId, id);
      return had;
    }
    // A key an older replica set, with no account yet: removed as that replica would.
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('cdn_credentials').where('workspace_id', '=', workspaceId).execute();
      await trx.deleteFrom('zone_index_state').where('workspace_id', '=', workspaceId).execute();
    });
    return had;
  }
}

function statusOf(
  workspaceId: string,
  row: { set_by: string; set_at: number; last_validated_at: number | null },
): CredentialStatus {
  return {
    workspaceId,
    setBy: row.set_by,
    setAt: row.set_at,
    lastValidatedAt: row.last_validated_at,
  };
}

/** A key's generation; a row written without one (by hand) gets one from its workspace and time. */
export function generationOf(row: {
  workspace_id: string;
  set_at: number;
  generation: string | null;
}): string {
  return row.generation ?? `${row.workspace_id}:${row.set_at}`;
}
