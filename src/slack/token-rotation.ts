// Token rotation: a rotating bot token (12 hours; https://api.slack.com/authentication/rotation) is
// refreshed before it expires, by this store rather than Bolt, so that one replica refreshes and
// the others read what it stored: a refresh token is spent by its use, and two replicas
// refreshing with the same one leave one of them holding an invalid token
// (https://github.com/slackapi/node-slack-sdk/issues/2504). Bolt is handed installations without
// the refresh token, so its InstallProvider never refreshes on its own.
import type { Logger as BoltLogger } from '@slack/logger';
import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import type { WebClient } from '@slack/web-api';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { InstallationUpdate } from '../store/installations.js';

/**
 * Refreshed this long before it expires: Bolt's own window (the InstallProvider's
 * EXPIRY_WINDOW, and python-slack-sdk's TokenRotator `minutes_before_expiration=120`).
 */
export const REFRESH_AHEAD_MS = 2 * 60 * 60_000;
/** After a failed refresh, this process waits this long before trying again (while still valid). */
const RETRY_AFTER_FAILURE_MS = 60_000;

/** The installation store's part this needs: reads, and the update one caller at a time. */
export interface LockableInstallations extends InstallationStore {
  updateLocked(
    query: InstallationQuery<boolean>,
    update: InstallationUpdate,
  ): Promise<Installation>;
}

export interface TokenRotationOptions {
  /** Calls oauth.v2.access (no token of its own). */
  client: WebClient;
  clientId: string;
  clientSecret: string;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
}

interface Refreshed {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
}

export class RotatingInstallationStore implements InstallationStore {
  /** When a refresh last failed, by installation (this process only). */
  readonly #failedAt = new Map<string, number>();

  constructor(
    private readonly store: LockableInstallations,
    private readonly options: TokenRotationOptions,
  ) {}

  storeInstallation(installation: Installation, logger?: BoltLogger): Promise<void> {
    return this.store.storeInstallation(installation, logger);
  }

  deleteInstallation(query: InstallationQuery<boolean>, logger?: BoltLogger): Promise<void> {
    return this.store.deleteInstallation?.(query, logger) ?? Promise.resolve();
  }

  async fetchInstallation(
    query: InstallationQuery<boolean>,
    logger?: BoltLogger,
  ): Promise<Installation> {
    let installation = await this.store.fetchInstallation(query, logger);
    if (this.#expiring(installation) && this.#mayTry(query, installation)) {
      installation = await this.store.updateLocked(query, (current) =>
        // Refreshed by another replica meanwhile: what it stored is used as it is.
        this.#expiring(current) ? this.#refresh(query, current) : Promise.resolve(undefined),
      );
    }
    return withoutRefreshToken(installation);
  }

  #expiring(installation: Installation): boolean {
    const { refreshToken, expiresAt } = installation.bot ?? {};
    if (!refreshToken || expiresAt === undefined) return false;
    return expiresAt * 1000 - this.options.clock.now() <= REFRESH_AHEAD_MS;
  }

  /** Not again soon after a failure, unless the token has expired by now. */
  #mayTry(query: InstallationQuery<boolean>, installation: Installation): boolean {
    const failedAt = this.#failedAt.get(keyOf(query));
    const now = this.options.clock.now();
    if (failedAt === undefined || now - failedAt >= RETRY_AFTER_FAILURE_MS) return true;
    return (installation.bot?.expiresAt ?? 0) * 1000 <= now;
  }

  async #refresh(
    query: InstallationQuery<boolean>,
    current: Installation,
  ): Promise<Installation | undefined> {
    const { client, clientId, clientSecret, clock, logger } = this.options;
    const bot = current.bot;
    if (!bot?.refreshToken) return undefined;
    try {
      const answer = (await client.oauth.v2.access({
        client_id: clientId,
        client_secret: clientSecret,
        grant_type: 'refresh_token',
        refresh_token: bot.refreshToken,
      })) as Refreshed;
      if (!answer.access_token || !answer.refresh_token || answer.expires_in === undefined)
        throw new Error('oauth.v2.access answered without a token, a refresh token or an expiry');
      this.#failedAt.delete(keyOf(query));
      return {
        ...current,
        bot: {
          ...bot,
          token: answer.access_token,
          refreshToken: answer.refresh_token,
          expiresAt: Math.floor(clock.now() / 1000) + answer.expires_in,
        },
      };
    } catch (error) {
      // The current token serves until it expires; the next request tries again after a while.
      this.#failedAt.set(keyOf(query), clock.now());
      logger.error(
        { err: error, enterpriseId: query.enterpriseId, teamId: query.teamId },
        'the bot token could not be refreshed',
      );
      return undefined;
    }
  }
}

function keyOf(query: InstallationQuery<boolean>): string {
  return query.isEnterpriseInstall ? `E:${query.enterpriseId}` : `T:${query.teamId}`;
}

/** What Bolt is handed: the token and its expiry, never the refresh token. */
function withoutRefreshToken(installation: Installation): Installation {
  if (!installation.bot?.refreshToken) return installation;
  const { refreshToken: _spent, ...bot } = installation.bot;
  return { ...installation, bot };
}
