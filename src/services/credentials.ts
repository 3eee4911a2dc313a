// Setting and removing a workspace's CDN API key: checked against the API before it is stored.
import { isCdnError } from '../cdn/errors.js';
import type { Store } from '../store/index.js';
import type { CdnAccess } from './cdn-access.js';

export type KeyCheck =
  | { ok: true; zoneCount: number }
  /** The CDN refused the key (401/403): show the user why. */
  | { ok: false; reason: string };

export class CredentialService {
  constructor(
    private readonly store: Store,
    private readonly cdn: CdnAccess,
  ) {}

  /**
   * Asks the CDN whether the key works (GET /zones?per_page=1). Refusals come back as a reason;
   * anything else (the CDN down, a timeout) is thrown, since it says nothing about the key.
   */
  async check(apiKey: string, baseUrl: string | null, signal?: AbortSignal): Promise<KeyCheck> {
    const client = this.cdn.clientWith(apiKey, baseUrl);
    try {
      const page = await client.listZones({ page: 1, perPage: 1 }, signal ? { signal } : {});
      return { ok: true, zoneCount: page.total };
    } catch (error) {
      if (isCdnError(error, 'unauthorized') || isCdnError(error, 'forbidden')) {
        return { ok: false, reason: `The CDN refused this key: ${error.message}` };
      }
      throw error;
    }
  }

  async save(
    workspaceId: string,
    input: { apiKey: string; baseUrl: string | null; actorId: string },
  ) {
    await this.store.workspaces.update(workspaceId, { cdnBaseUrl: input.baseUrl });
    const status = await this.store.credentials.set(workspaceId, input.apiKey, {
      userId: input.actorId,
      validated: true,
    });
    await this.store.audit.record({
      workspaceId,
      actorId: input.actorId,
      action: 'credentials.set',
      outcome: 'ok',
      detail: { baseUrlOverride: input.baseUrl !== null },
    });
    return status;
  }

  async remove(workspaceId: string, actorId: string): Promise<boolean> {
    const removed = await this.store.credentials.delete(workspaceId);
    await this.store.audit.record({
      workspaceId,
      actorId,
      action: 'credentials.remove',
      outcome: removed ? 'ok' : 'noop',
    });
    return removed;
  }
}
