// The CDN API client: one typed method per endpoint, with tolerant parsing of what it answers.
// Each request's attempts, retries, error mapping and redaction are in requests.ts. (Just over
// 400 lines: one short method per endpoint, each with its tolerant parsing; nothing to split.)
import { type Clock, type Random, systemClock, systemRandom } from '../clock.js';
import type { Logger } from '../logger.js';
import { CdnError } from './errors.js';
import { outcomeUnknown } from './outcome.js';
import {
  bodyFor,
  type PurgeBatch,
  type PurgeProgress,
  type PurgeReport,
  type PurgeTarget,
  planPurge,
  runPurge,
} from './purge.js';
import { type CallResult, CdnRequests } from './requests.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
import {
  BUCKET_MS,
  type CdnZone,
  type Granularity,
  purgeIdFromBody,
  type TrafficAnalytics,
  trafficSchema,
  type ZonePlan,
  zoneFromCreateBody,
  zoneListSchema,
} from './schemas.js';
import type { CdnFeature, CdnTransport } from './transport.js';

export interface CdnClientOptions {
  /** Includes the version prefix, e.g. https://api.cdn.example/v1. */
  baseUrl: string;
  apiKey: string;
  transport: CdnTransport;
  clock?: Clock;
  random?: Random;
  logger?: Logger;
  /** Deadline of one HTTP attempt; by default the transport's limit (CDN_ATTEMPT_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Deadline of one whole operation, retries included; by default the transport's limit. */
  operationTimeoutMs?: number;
  /** Pages one listing of every zone may read; by default the transport's limit. */
  maxPages?: number;
  retry?: Partial<RetryPolicy>;
  /** URLs or tags per purge request, and purge requests in flight at once. */
  purge?: { batchSize?: number; concurrency?: number };
  /** A base URL a workspace chose: only public addresses may be reached (see egress.ts). */
  untrusted?: boolean;
  /** What this client's requests are for (the metrics count them by it). */
  feature?: CdnFeature;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * When the whole operation must be over, on the client's clock (epoch ms). By default the
   * operation's own start plus `operationTimeoutMs`; an operation made of others (a lookup that
   * lists every page) hands its deadline down, so the whole of it is bounded, not each part.
   */
  deadline?: number;
}

export interface ZonePage {
  zones: CdnZone[];
  page: number;
  perPage: number;
  total: number;
  pages: number;
}

export type CreateZoneResult =
  /** `confirmedBy: 'listing'` when the response did not carry the zone and it was looked up. */
  | { kind: 'created'; zone: CdnZone; confirmedBy: 'response' | 'listing' }
  /** The CDN said yes but the zone is not listed yet. */
  | { kind: 'accepted'; name: string };

/** Both forms of a zone, because the settings path may want either (see updateSettings). */
export interface ZoneRef {
  id: string;
  name: string;
}

export interface ZoneSettings {
  limits: { enabled: boolean; mode: 'automatic' };
}

export const MAX_PER_PAGE = 100;

export class CdnClient {
  readonly #requests: CdnRequests;
  readonly #baseUrl: string;
  readonly #transport: CdnTransport;
  readonly #clock: Clock;
  readonly #maxPages: number;
  readonly #batchSize: number;
  readonly #concurrency: number;

  constructor(options: CdnClientOptions) {
    if (!URL.canParse(options.baseUrl)) throw new TypeError('CdnClient: baseUrl is not a URL');
    if (options.apiKey.trim() === '') throw new TypeError('CdnClient: apiKey is empty');
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#transport = options.transport;
    this.#clock = options.clock ?? systemClock;
    const operationTimeoutMs =
      options.operationTimeoutMs ?? options.transport.limits.operationTimeoutMs;
    this.#maxPages = options.maxPages ?? options.transport.limits.maxPages;
    if (!(operationTimeoutMs >= 1) || !(this.#maxPages >= 1)) {
      throw new TypeError('CdnClient: operationTimeoutMs and maxPages must be at least 1');
    }
    this.#batchSize = options.purge?.batchSize ?? 30;
    this.#concurrency = options.purge?.concurrency ?? 4;
    if (this.#batchSize < 1 || this.#concurrency < 1) {
      throw new TypeError('CdnClient: purge batchSize and concurrency must be at least 1');
    }
    this.#requests = new CdnRequests({
      apiKey: options.apiKey,
      untrusted: options.untrusted ?? false,
      baseUrl: this.#baseUrl,
      transport: options.transport,
      clock: this.#clock,
      random: options.random ?? systemRandom,
      logger: options.logger,
      timeoutMs: options.timeoutMs ?? options.transport.limits.attemptTimeoutMs,
      operationTimeoutMs,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      ...(options.feature ? { feature: options.feature } : {}),
    });
  }

  get baseUrl(): string {
    return this.#baseUrl;
  }

  async listZones(
    params: { page?: number; perPage?: number; status?: string } = {},
    options: CallOptions = {},
  ): Promise<ZonePage> {
    const page = params.page ?? 1;
    const perPage = params.perPage ?? 20;
    if (!Number.isInteger(page) || page < 1) {
      throw new CdnError('invalid_request', 'Page numbers start at 1');
    }
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE) {
      throw new CdnError('invalid_request', `Zones per page must be 1 to ${MAX_PER_PAGE}`);
    }
    const query: Record<string, string> = { page: String(page), per_page: String(perPage) };
    if (params.status !== undefined) query.status = params.status;
    const { body } = await this.#requests.call({
      method: 'GET',
      path: '/zones',
      query,
      retry: 'transient',
      signal: options.signal,
      deadline: options.deadline,
    });
    const { data, meta } = this.#requests.parse(zoneListSchema, body, 'GET /zones');
    return {
      zones: data,
      page: meta.page,
      perPage: meta.per_page,
      total: meta.total,
      pages: Math.max(1, Math.ceil(meta.total / meta.per_page)),
    };
  }

  /**
   * Every zone, page by page at the maximum page size, within one deadline and at most `maxPages`
   * pages. A server that ignores `page` (it answers another page, or the same zones again) or
   * whose `total` keeps growing ends the listing with `unexpected_response`, not a loop.
   */
  async *allZones(
    params: { status?: string } = {},
    options: CallOptions = {},
  ): AsyncGenerator<CdnZone, void, undefined> {
    const listing = { ...options, deadline: this.#requests.deadlineOf(options) };
    const refuse = (message: string) =>
      new CdnError('unexpected_response', message, { operation: 'GET /zones' });
    const seen = new Set<string>();
    let firstTotal = 0;
    for (let page = 1; ; page++) {
      if (page > this.#maxPages) {
        throw refuse(`The zone list ran past ${this.#maxPages} pages, the most the bot reads`);
      }
      const result = await this.listZones({ ...params, page, perPage: MAX_PER_PAGE }, listing);
      if (result.page !== page) {
        throw refuse(
          `The CDN answered page ${result.page} when asked for page ${page} of the zone list: it seems to ignore paging`,
        );
      }
      if (page === 1) {
        firstTotal = result.total;
        const most = this.#maxPages * MAX_PER_PAGE;
        if (result.total > most) {
          throw refuse(
            `The CDN lists ${count(result.total)} zones, more than the ${count(most)} (${this.#maxPages} pages) the bot reads`,
          );
        }
      } else if (result.total > firstTotal + MAX_PER_PAGE) {
        // A few zones created while we page are fine; a page's worth more each time is not.
        throw refuse(
          `The zone list kept growing while the bot read it (${count(firstTotal)} zones, then ${count(result.total)})`,
        );
      }
      if (page > 1 && result.zones.length > 0 && result.zones.every((z) => seen.has(z.id))) {
        throw refuse(
          `The CDN sent the same zones again for page ${page} of the zone list: it seems to ignore paging`,
        );
      }
      for (const zone of result.zones) seen.add(zone.id);
      yield* result.zones;
      // A short page ends the listing even if `total` moved while we were paging.
      if (result.zones.length < MAX_PER_PAGE || page * MAX_PER_PAGE >= result.total) return;
    }
  }

  /** A zone by id or domain name; a live zone wins over a deleted one of the same name. */
  async findZone(idOrName: string, options: CallOptions = {}): Promise<CdnZone | undefined> {
    const wanted = idOrName.trim().toLowerCase().replace(/\.$/, '');
    let deleted: CdnZone | undefined;
    for await (const zone of this.allZones({}, options)) {
      if (zone.id === idOrName.trim()) return zone;
      if (zone.name.toLowerCase() === wanted) {
        if (zone.status !== 'deleted') return zone;
        deleted ??= zone;
      }
    }
    return deleted;
  }

  /**
   * Creates a zone. A create is never sent twice: when its outcome is unknown (deadline, 5xx, a
   * dropped connection) the zone list is checked instead, and only a zone found there is success.
   */
  async createZone(
    input: { name: string; plan?: ZonePlan },
    options: CallOptions = {},
  ): Promise<CreateZoneResult> {
    const body: Record<string, string> = { name: input.name };
    if (input.plan !== undefined) body.plan = input.plan;
    let response: CallResult;
    // The create and the lookup that confirms it are two operations, each with its own deadline:
    // a create that used all of its time must still be looked for.
    const lookup = options.signal ? { signal: options.signal } : {};
    try {
      response = await this.#requests.call({
        method: 'POST',
        path: '/zones',
        body,
        retry: 'not-applied',
        signal: options.signal,
        deadline: options.deadline,
      });
    } catch (error) {
      if (!outcomeUnknown(error)) throw error;
      // A lookup that fails too leaves the outcome unknown: the create's own error says so.
      const found = await this.#findLiveZone(input.name, lookup).catch(() => undefined);
      if (found) return { kind: 'created', zone: found, confirmedBy: 'listing' };
      throw error;
    }
    const zone = zoneFromCreateBody(response.body);
    if (zone) return { kind: 'created', zone, confirmedBy: 'response' };
    const found = await this.#findLiveZone(input.name, lookup);
    return found
      ? { kind: 'created', zone: found, confirmedBy: 'listing' }
      : { kind: 'accepted', name: input.name };
  }

  async purge(
    zoneId: string,
    target: PurgeTarget,
    options: CallOptions & { onProgress?: (progress: PurgeProgress) => void } = {},
  ): Promise<PurgeReport> {
    const batches = this.purgeBatches(target);
    if (batches.length === 0) throw new CdnError('invalid_request', 'Nothing to purge');
    return runPurge(
      batches,
      (batch) => this.sendPurgeBatch(zoneId, batch, options),
      options.onProgress
        ? { concurrency: this.#concurrency, onProgress: options.onProgress }
        : { concurrency: this.#concurrency },
    );
  }

  /** The requests a purge is sent as: one kind each, de-duplicated, at most the configured batch size (30) each. */
  purgeBatches(target: PurgeTarget): PurgeBatch[] {
    return planPurge(target, this.#batchSize);
  }

  /** Requests sent at once by `purge` (and by a purge job running its batches). */
  get purgeConcurrency(): number {
    return this.#concurrency;
  }

  /** Sends one batch; a CdnError says why it failed (see `outcomeUnknown` for what that means). */
  async sendPurgeBatch(
    zoneId: string,
    batch: PurgeBatch,
    options: CallOptions = {},
  ): Promise<{ purgeId?: string }> {
    const { body } = await this.#requests.call({
      method: 'POST',
      path: `/zones/${encodeURIComponent(zoneId)}/purge`,
      body: bodyFor(batch),
      retry: 'not-applied',
      signal: options.signal,
      deadline: options.deadline,
    });
    const purgeId = purgeIdFromBody(body);
    return purgeId === undefined ? {} : { purgeId };
  }

  /**
   * The spec shows no defaults for since, until or granularity, so all three are always sent.
   * Buckets that lie wholly outside [since, until) are dropped (a CDN may answer with the bucket
   * starting at `until`, or whole buckets around the range); `totals` are the CDN's own, which may
   * count those too (src/services/analytics/traffic-window.ts gets exact ones).
   */
  async trafficAnalytics(
    zoneId: string,
    range: { since: Date; until: Date; granularity: Granularity },
    options: CallOptions = {},
  ): Promise<TrafficAnalytics> {
    if (!(range.since.getTime() < range.until.getTime())) {
      throw new CdnError('invalid_request', 'The start of the range must be before its end');
    }
    const path = `/zones/${encodeURIComponent(zoneId)}/analytics/traffic`;
    const { body } = await this.#requests.call({
      method: 'GET',
      path,
      query: {
        since: isoSeconds(range.since),
        until: isoSeconds(range.until),
        granularity: range.granularity,
      },
      retry: 'transient',
      signal: options.signal,
      deadline: options.deadline,
    });
    const traffic = this.#requests.parse(
      trafficSchema,
      body,
      'GET /zones/{id}/analytics/traffic',
    ).data;
    const step = BUCKET_MS[range.granularity];
    const since = range.since.getTime();
    const until = range.until.getTime();
    const series = traffic.series.filter((p) => p.time < until && p.time + step > since);
    return { ...traffic, series };
  }

  /**
   * The spec shows the domain name in the `{zone_id}` position of this one path. The id is sent
   * first; on 404 the name is tried once, and whichever form works is remembered for the server.
   */
  async updateSettings(
    zone: ZoneRef,
    settings: ZoneSettings,
    options: CallOptions = {},
  ): Promise<void> {
    const hints = this.#transport.hints(this.#baseUrl);
    const first = hints.settingsPathForm ?? 'id';
    const forms = first === 'id' ? (['id', 'name'] as const) : (['name', 'id'] as const);
    const body = { limits: { enabled: settings.limits.enabled, mode: settings.limits.mode } };
    const deadline = this.#requests.deadlineOf(options);
    for (const [index, form] of forms.entries()) {
      try {
        await this.#requests.call({
          method: 'POST',
          path: `/zones/${encodeURIComponent(zone[form])}/settings`,
          body,
          retry: 'not-applied',
          signal: options.signal,
          deadline,
        });
        hints.settingsPathForm = form;
        return;
      } catch (error) {
        const lastForm = index === forms.length - 1;
        if (lastForm || !(error instanceof CdnError) || error.code !== 'not_found') throw error;
      }
    }
  }

  async #findLiveZone(name: string, options: CallOptions): Promise<CdnZone | undefined> {
    const zone = await this.findZone(name, options);
    return zone && zone.status !== 'deleted' ? zone : undefined;
  }
}

/** A count as a person reads it: 10,000. */
function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** ISO 8601, to the second when there are no milliseconds (shorter URLs and logs). */
function isoSeconds(date: Date): string {
  const iso = date.toISOString();
  return date.getUTCMilliseconds() === 0 ? iso.replace('.000Z', 'Z') : iso;
}
