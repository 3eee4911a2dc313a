// The bot token of a workspace, for work that happens outside a request (jobs, sweeps, reports):
// asked of Bolt's own authorize, as a request's token is (with OAuth, the InstallProvider reads the
// installation store and rotates an expiring token; with SLACK_BOT_TOKEN, that token), never read
// from the installation store on the side.
import type { App, Authorize } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import { isStorageUnavailable } from '../errors.js';

/**
 * The enterprise a workspace belongs to, as read from the store, kept this long: it is asked for
 * each background Web API call, and changes only if the workspace moves into an organization.
 */
const ENTERPRISE_TTL_MS = 5 * 60_000;

/** Where a workspace was last seen installed: by itself, or inside an org-wide install. */
export interface WorkspaceInstall {
  enterpriseId?: string | undefined;
  isEnterpriseInstall: boolean;
}

export interface WorkspaceClientsOptions {
  /** Bolt's authorize (see `appAuthorize`); wins over botToken. */
  authorize?: Authorize<boolean>;
  /** Without authorize (benchmarks, service tests): the one workspace's token. */
  botToken?: string;
  /** The enterprise a workspace belongs to, as stored, for an org-wide install not seen yet. */
  enterpriseOf?: (workspaceId: string) => Promise<string | undefined>;
}

export class WorkspaceClients {
  readonly #seen = new Map<string, WorkspaceInstall>();
  /** enterpriseOf's answers (none: `{}`), read once per workspace every ENTERPRISE_TTL_MS. */
  readonly #stored = new LRUCache<string, { enterpriseId?: string }>({
    max: 10_000,
    ttl: ENTERPRISE_TTL_MS,
  });

  constructor(
    /** The background Web API client (bounded tries, see web-api-options.ts); the token is passed per call. */
    readonly client: WebClient,
    private readonly options: WorkspaceClientsOptions,
  ) {
    if (!options.authorize && !options.botToken)
      throw new TypeError('WorkspaceClients needs Bolt’s authorize or a bot token');
  }

  /** What a request said of its workspace (org-wide or not): later background work uses it. */
  remember(workspaceId: string, install: WorkspaceInstall): void {
    if (workspaceId === '') return;
    this.#seen.set(workspaceId, {
      isEnterpriseInstall: install.isEnterpriseInstall,
      ...(install.enterpriseId ? { enterpriseId: install.enterpriseId } : {}),
    });
  }

  /** The workspace's bot token, as Bolt hands it to a request from that workspace. */
  async tokenFor(workspaceId: string): Promise<string> {
    const { authorize, botToken } = this.options;
    if (!authorize) return botToken as string;
    const seen = this.#seen.get(workspaceId);
    const enterpriseId = seen?.enterpriseId ?? (await this.#storedEnterprise(workspaceId));
    // The workspace's own install first; then its organization's, when it belongs to one.
    const sources = [
      {
        teamId: workspaceId,
        enterpriseId,
        isEnterpriseInstall: seen?.isEnterpriseInstall ?? false,
      },
      ...(enterpriseId && !seen?.isEnterpriseInstall
        ? [{ teamId: workspaceId, enterpriseId, isEnterpriseInstall: true }]
        : []),
      // Not seen since this process started, nothing stored of it: an org-wide install's data is
      // kept under its organization's id (docs/grid.md), so the key may be an organization's.
      ...(seen || enterpriseId
        ? []
        : [{ teamId: undefined, enterpriseId: workspaceId, isEnterpriseInstall: true }]),
    ];
    let failure: unknown;
    for (const source of sources) {
      try {
        const { botToken: token } = await authorize(source);
        if (token) return token;
        failure = new Error(`the installation of ${workspaceId} has no bot token`);
      } catch (error) {
        failure = error;
      }
    }
    // The database away is said as such (it passes by itself; a job tries again later).
    if (isStorageUnavailable(failure)) throw failure;
    throw new Error(`no bot token for workspace ${workspaceId}`, { cause: failure });
  }

  /** The Grid organization the workspace belongs to (none: not Grid), for background work's checks. */
  async enterpriseOf(workspaceId: string): Promise<string | undefined> {
    return this.#seen.get(workspaceId)?.enterpriseId ?? (await this.#storedEnterprise(workspaceId));
  }

  async #storedEnterprise(workspaceId: string): Promise<string | undefined> {
    const { enterpriseOf } = this.options;
    if (!enterpriseOf) return undefined;
    let stored = this.#stored.get(workspaceId);
    if (!stored) {
      const enterpriseId = await enterpriseOf(workspaceId);
      stored = enterpriseId ? { enterpriseId } : {};
      this.#stored.set(workspaceId, stored);
    }
    return stored.enterpriseId;
  }
}

/**
 * The App's own authorize: what Bolt calls for every request (the InstallProvider's with OAuth,
 * the single token's otherwise). Bolt keeps it private and sets it in init(), so it is read when
 * called; a Bolt that no longer has it fails loudly here rather than posting with a stale token.
 */
export function appAuthorize(app: App): Authorize<boolean> {
  return (source, body) => {
    const authorize = (app as unknown as { authorize?: Authorize<boolean> }).authorize;
    if (typeof authorize !== 'function')
      throw new Error('the Bolt App has no authorize yet (is app.init() awaited?)');
    return authorize(source, body);
  };
}
