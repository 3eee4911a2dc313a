// The installation store as Bolt's authorize reads it, with a short memory: every request of an
// OAuth-installed workspace asks for its installation before any listener runs (before the ack),
// so a read of the database and a decryption would sit in front of every ack, and a database
// outage would leave every user with silence. Installations are kept for `ttlMs`; while the store
// fails, the last one read is used for up to `staleMs` more. A stored or deleted installation
// clears what is kept (a rotated token elsewhere is seen within `ttlMs`).
import type { Logger } from '@slack/logger';
import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import type { Clock } from '../clock.js';

interface Kept {
  installation: Installation;
  at: number;
}

export interface InstallationCacheOptions {
  /** How long an installation read is used without asking the store. Default 30 s. */
  ttlMs?: number;
  /** How long past that it is still used while the store fails. Default 10 min. */
  staleMs?: number;
}

export class CachedInstallationStore implements InstallationStore {
  readonly #kept = new Map<string, Kept>();
  readonly #ttlMs: number;
  readonly #staleMs: number;

  constructor(
    private readonly store: InstallationStore,
    private readonly clock: Pick<Clock, 'now'>,
    options: InstallationCacheOptions = {},
  ) {
    this.#ttlMs = options.ttlMs ?? 30_000;
    this.#staleMs = options.staleMs ?? 10 * 60_000;
  }

  async storeInstallation(installation: Installation, logger?: Logger): Promise<void> {
    this.#kept.clear();
    await this.store.storeInstallation(installation, logger);
  }

  async fetchInstallation(
    query: InstallationQuery<boolean>,
    logger?: Logger,
  ): Promise<Installation> {
    const key = JSON.stringify([
      query.isEnterpriseInstall === true,
      query.enterpriseId ?? null,
      query.teamId ?? null,
      query.userId ?? null,
    ]);
    const kept = this.#kept.get(key);
    const age = kept ? this.clock.now() - kept.at : Number.POSITIVE_INFINITY;
    if (kept && age < this.#ttlMs) return kept.installation;
    try {
      const installation = await this.store.fetchInstallation(query, logger);
      this.#kept.set(key, { installation, at: this.clock.now() });
      return installation;
    } catch (error) {
      // Not installed is an answer, not a failure: nothing is kept for it, nothing stale used.
      if (kept && age < this.#ttlMs + this.#staleMs && !isNotInstalled(error))
        return kept.installation;
      throw error;
    }
  }

  async deleteInstallation(query: InstallationQuery<boolean>, logger?: Logger): Promise<void> {
    this.#kept.clear();
    await this.store.deleteInstallation?.(query, logger);
  }
}

function isNotInstalled(error: unknown): boolean {
  return error instanceof Error && /no installation/i.test(error.message);
}
