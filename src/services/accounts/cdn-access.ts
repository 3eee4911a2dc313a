// Gives each workspace's CDN accounts their client: the account's key, its base URL if it set one.
import { CdnClient } from '../../cdn/client.js';
import { EgressPolicy } from '../../cdn/egress.js';
import type { CdnFeature, CdnTransport } from '../../cdn/transport.js';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/index.js';

export interface CdnAccessOptions {
  store: Store;
  transport: CdnTransport;
  /** CDN_API_BASE_URL: used unless a workspace overrides it. */
  defaultBaseUrl: string;
  /** Decides whether a workspace's own base URL is trusted or held to public addresses. */
  egress?: EgressPolicy;
  clock: Clock;
  logger: Logger;
}

export class CdnAccess {
  readonly #egress: EgressPolicy;

  constructor(private readonly options: CdnAccessOptions) {
    this.#egress = options.egress ?? new EgressPolicy();
  }

  /** CDN_API_BASE_URL: where workspaces without an override go. */
  get defaultBaseUrl(): string {
    return this.options.defaultBaseUrl;
  }

  /**
   * A client for a key that is not stored yet (checking a key before saving it). `feature`: what
   * its requests are for, as the metrics count them.
   */
  clientWith(apiKey: string, baseUrl?: string | null, feature?: CdnFeature): CdnClient {
    // The operator's CDN_API_BASE_URL and allowlisted hosts are trusted as configured; any other
    // URL came from a workspace admin and may only reach public addresses over https.
    const untrusted =
      !!baseUrl && baseUrl !== this.options.defaultBaseUrl && !this.#egress.trusts(baseUrl);
    if (untrusted && !baseUrl.startsWith('https://')) {
      throw new AppError({ code: 'insecure_base_url' });
    }
    return new CdnClient({
      baseUrl: baseUrl ?? this.options.defaultBaseUrl,
      apiKey,
      untrusted,
      transport: this.options.transport,
      clock: this.options.clock,
      logger: this.options.logger,
      ...(feature ? { feature } : {}),
    });
  }

  /**
   * The client of one of the workspace's CDN accounts: its key, and its base URL held to the same
   * outbound-address rules as any an admin typed. AppError no_api_key when the account has no key
   * (or is gone). `feature`: what its requests are for, as the metrics count them.
   */
  async clientFor(
    workspaceId: string,
    accountId: string,
    feature?: CdnFeature,
  ): Promise<CdnClient> {
    const credential = await this.options.store.accounts.credential(workspaceId, accountId);
    if (!credential) throw new AppError({ code: 'no_api_key' });
    return this.clientWith(credential.apiKey, credential.baseUrl, feature);
  }
}
