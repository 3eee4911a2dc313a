// Setting and removing a workspace's CDN API key: checked against the API before it is stored.
import type { EgressPolicy } from '../cdn/egress.js';
import { isCdnError } from '../cdn/errors.js';
import type { Store } from '../store/index.js';
import type { AccessService, Caller } from './access.js';
import type { CdnAccess } from './cdn-access.js';
import type { ZoneService } from './zones.js';

export type KeyCheck =
  /** `apiUrl`: the API the key was checked against (the override, or CDN_API_BASE_URL). */
  | { ok: true; zoneCount: number; apiUrl: string }
  /** The CDN at `host` refused the key (`status` 401 or 403): the CDN's words, for the user. */
  | { ok: false; refusal: KeyRefusal };

export interface KeyRefusal {
  host: string;
  status: number;
  said: string;
}

export type BaseUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

export class CredentialService {
  constructor(
    private readonly deps: {
      store: Store;
      cdn: CdnAccess;
      egress: EgressPolicy;
      access: AccessService;
      zones: ZoneService;
    },
  ) {}

  /** Admins only: the key form is theirs. */
  async requireAdmin(caller: Caller): Promise<void> {
    await this.deps.access.requireAdmin(caller, 'set_key');
  }

  /** Whether a workspace's own base URL may be called (https, public addresses, or allowlisted). */
  async checkBaseUrl(url: string): Promise<BaseUrlCheck> {
    return this.deps.egress.checkOverride(url);
  }

  /**
   * Asks the CDN whether the key works (GET /zones?per_page=1). Refusals come back as a reason;
   * anything else is thrown, since it says nothing about the key: the CDN out of reach (its
   * CdnError names the host and why: DNS, a refused connection, a timeout, TLS), or down.
   */
  async check(apiKey: string, baseUrl: string | null, signal?: AbortSignal): Promise<KeyCheck> {
    const apiUrl = baseUrl ?? this.deps.cdn.defaultBaseUrl;
    const client = this.deps.cdn.clientWith(apiKey, baseUrl);
    try {
      const page = await client.listZones({ page: 1, perPage: 1 }, signal ? { signal } : {});
      return { ok: true, zoneCount: page.total, apiUrl };
    } catch (error) {
      if (isCdnError(error, 'unauthorized') || isCdnError(error, 'forbidden')) {
        const status = error.status ?? (error.code === 'unauthorized' ? 401 : 403);
        return { ok: false, refusal: { host: hostOf(apiUrl), status, said: error.message } };
      }
      throw error;
    }
  }

  async save(caller: Caller, input: { apiKey: string; baseUrl: string | null }) {
    const { store } = this.deps;
    await store.workspaces.update(caller.workspaceId, { cdnBaseUrl: input.baseUrl });
    const status = await store.credentials.set(caller.workspaceId, input.apiKey, {
      userId: caller.userId,
      validated: true,
    });
    // The old key's index went with it (same transaction); the new key's is built now.
    this.deps.zones.keyChanged(caller.workspaceId);
    await store.audit.record({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: 'credentials.set',
      outcome: 'ok',
      detail: { baseUrlOverride: input.baseUrl !== null },
    });
    return status;
  }

  /** Admins only: returns whether there was a key to remove. */
  async remove(caller: Caller): Promise<boolean> {
    await this.deps.access.requireAdmin(caller, 'remove_key');
    // The zone index is deleted with the key.
    const removed = await this.deps.store.credentials.delete(caller.workspaceId);
    this.deps.zones.forget(caller.workspaceId);
    // Without a key nothing can be watched: the workspace's watches stop with it.
    await this.deps.store.watches.removeWorkspace(caller.workspaceId);
    await this.deps.store.audit.record({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: 'credentials.remove',
      outcome: removed ? 'ok' : 'noop',
    });
    return removed;
  }
}

/** The host a base URL names (`api.cdn.example`), for a refusal's words. */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}
