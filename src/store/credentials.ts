// Repository: each workspace's CDN API key, sealed by the keyring.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Keyring, SecretContext } from './crypto.js';
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

export const API_KEY_COLUMN = 'cdn_credentials.api_key';
const context = (workspaceId: string): SecretContext => ({
  workspace: workspaceId,
  column: API_KEY_COLUMN,
});

export class CredentialRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
    private readonly workspaces: WorkspaceRepository,
    private readonly newGeneration: () => string = randomUUID,
  ) {}

  /**
   * Stores the key under a new generation and, in the same transaction, drops the workspace's zone
   * index: whatever the old key listed is never read again, on any replica.
   */
  async set(
    workspaceId: string,
    apiKey: string,
    by: { userId: string; validated: boolean },
  ): Promise<CredentialStatus> {
    await this.workspaces.ensure(workspaceId);
    const now = this.clock.now();
    const row = {
      workspace_id: workspaceId,
      api_key: this.keyring.encrypt(apiKey, context(workspaceId)),
      key_id: this.keyring.primaryId,
      set_by: by.userId,
      set_at: now,
      last_validated_at: by.validated ? now : null,
      generation: this.newGeneration(),
    };
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('cdn_credentials')
        .values(row)
        .onConflict((conflict) =>
          conflict.column('workspace_id').doUpdateSet({
            api_key: row.api_key,
            key_id: row.key_id,
            set_by: row.set_by,
            set_at: row.set_at,
            last_validated_at: row.last_validated_at,
            generation: row.generation,
          }),
        )
        .execute();
      await trx.deleteFrom('zone_index_state').where('workspace_id', '=', workspaceId).execute();
    });
    return { workspaceId, setBy: by.userId, setAt: now, lastValidatedAt: row.last_validated_at };
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
      workspaceId,
      apiKey: this.keyring.decrypt(row.api_key, context(workspaceId)),
      generation: generationOf(row),
      setBy: row.set_by,
      setAt: row.set_at,
      lastValidatedAt: row.last_validated_at,
    };
  }

  /** Who set the key and when, without decrypting it. */
  async status(workspaceId: string): Promise<CredentialStatus | undefined> {
    const row = await this.db
      .selectFrom('cdn_credentials')
      .select(['set_by', 'set_at', 'last_validated_at'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    return (
      row && {
        workspaceId,
        setBy: row.set_by,
        setAt: row.set_at,
        lastValidatedAt: row.last_validated_at,
      }
    );
  }

  /** Returns whether there was a key to delete. The zone index goes with it. */
  async delete(workspaceId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('cdn_credentials')
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      await trx.deleteFrom('zone_index_state').where('workspace_id', '=', workspaceId).execute();
      return result.numDeletedRows > 0n;
    });
  }
}

/** A key's generation; a row written without one (by hand) gets one from its workspace and time. */
export function generationOf(row: {
  workspace_id: string;
  set_at: number;
  generation: string | null;
}): string {
  return row.generation ?? `${row.workspace_id}:${row.set_at}`;
}
