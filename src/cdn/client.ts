// The CDN API client: typed calls, tolerant parsing, bounded retries, and no secret ever shown.
import { STATUS_CODES } from 'node:http';
import type { z } from 'zod';
import { type Clock, type Random, systemClock, systemRandom } from '../clock.js';
import type { Logger } from '../logger.js';
import { formatSeconds } from '../network-failures.js';
import { CdnError, codeForStatus } from './errors.js';
import {
  bodyFor,
  type PurgeBatch,
  type PurgeProgress,
  type PurgeReport,
  type PurgeTarget,
  planPurge,
  runPurge,
} from './purge.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter, type RetryPolicy } from './retry.js';
import {
  BUCKET_MS,
  errorMessageFromBody,
  type Granularity,
  purgeIdFromBody,
  type TrafficAnalytics,
  trafficSchema,
  type Zone,
  type ZonePlan,
  zoneFromCreateBody,
  zoneListSchema,
} from './schemas.js';
import { type CdnTransport, type HttpResponse, wasNotSent } from './transport.js';

export interface CdnClientOptions {
  /** Includes the version prefix, e.g. https://api.cdn.example/v1. */
  baseUrl: string;
  apiKey: string;
  transport: CdnTransport;
  clock?: Clock;
  random?: Random;
  logger?: Logger;
  /** Deadline of one HTTP attempt. */
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
  zones: Zone[];
  page: number;
  perPage: number;
  total: number;
  pages: number;
}

export type CreateZoneResult =
  /** `confirmedBy: 'listing'` when the response did not carry the zone and it was looked up. */
  | { kind: 'created'; zone: Zone; confirmedBy: 'response' | 'listing' }
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

/** The least time worth giving a retry: less would time out for nothing. */
const MIN_ATTEMPT_MS = 1_000;

/** Which failures a call may retry: GETs anything transient, POSTs only what provably did nothing. */
type RetryMode = 'transient' | 'not-applied';

interface Call {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  retry: RetryMode;
  signal?: AbortSignal | undefined;
  deadline?: number | undefined;
}

interface CallResult {
  status: number;
  /** The parsed JSON body, or undefined when the body was empty or not JSON. */
  body: unknown;
}

export class CdnClient {
  readonly #apiKey: string;
  readonly #untrusted: boolean;
  readonly #baseUrl: string;
  readonly #transport: CdnTransport;
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #logger: Logger | undefined;
  readonly #timeoutMs: number;
  readonly #operationTimeoutMs: number;
  readonly #maxPages: number;
  readonly #retry: RetryPolicy;
  readonly #batchSize: number;
  readonly #concurrency: number;

  constructor(options: CdnClientOptions) {
    if (!URL.canParse(options.baseUrl)) throw new TypeError('CdnClient: baseUrl is not a URL');
    if (options.apiKey.trim() === '') throw new TypeError('CdnClient: apiKey is empty');
    this.#apiKey = options.apiKey;
    this.#untrusted = options.untrusted ?? false;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#transport = options.transport;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? systemRandom;
    this.#logger = options.logger;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#operationTimeoutMs =
      options.operationTimeoutMs ?? options.transport.limits.operationTimeoutMs;
    this.#maxPages = options.maxPages ?? options.transport.limits.maxPages;
    if (!(this.#operationTimeoutMs >= 1) || !(this.#maxPages >= 1)) {
      throw new TypeError('CdnClient: operationTimeoutMs and maxPages must be at least 1');
    }
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#batchSize = options.purge?.batchSize ?? 30;
    this.#concurrency = options.purge?.concurrency ?? 4;
    if (this.#batchSize < 1 || this.#concurrency < 1) {
      throw new TypeError('CdnClient: purge batchSize and concurrency must be at least 1');
    }
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
    const { body } = await this.#call({
      method: 'GET',
      path: '/zones',
      query,
      retry: 'transient',
      signal: options.signal,
      deadline: options.deadline,
    });
    const { data, meta } = this.#parse(zoneListSchema, body, 'GET /zones');
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
  ): AsyncGenerator<Zone, void, undefined> {
    const listing = { ...options, deadline: this.#deadlineOf(options) };
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
  async findZone(idOrName: string, options: CallOptions = {}): Promise<Zone | undefined> {
    const wanted = idOrName.trim().toLowerCase().replace(/\.$/, '');
    let deleted: Zone | undefined;
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
      response = await this.#call({
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
    const { body } = await this.#call({
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
   * count those too (src/services/traffic-window.ts gets exact ones).
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
    const { body } = await this.#call({
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
    const traffic = this.#parse(trafficSchema, body, 'GET /zones/{id}/analytics/traffic').data;
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
    const deadline = this.#deadlineOf(options);
    for (const [index, form] of forms.entries()) {
      try {
        await this.#call({
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

  /** The operation's deadline: the caller's, or from now. */
  #deadlineOf(options: { deadline?: number | undefined }): number {
    return options.deadline ?? this.#clock.now() + this.#operationTimeoutMs;
  }

  async #findLiveZone(name: string, options: CallOptions): Promise<Zone | undefined> {
    const zone = await this.findZone(name, options);
    return zone && zone.status !== 'deleted' ? zone : undefined;
  }

  async #call(call: Call): Promise<CallResult> {
    const url = new URL(`${this.#baseUrl}${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const operation = `${call.method} ${call.path}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: 'application/json',
    };
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (payload !== undefined) headers['content-type'] = 'application/json';

    const deadline = this.#deadlineOf(call);
    const overdue = () =>
      new CdnError(
        'timeout',
        `The CDN at ${url.host} did not finish ${operation} within ${formatSeconds(this.#operationTimeoutMs)}`,
        { operation },
      );
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      const started = this.#clock.now();
      const left = deadline - started;
      if (attempt === 0 && left <= 0) throw overdue();
      // The attempt's own deadline, or what is left of the operation's if that is sooner. A retry
      // is only planned with MIN_ATTEMPT_MS to spare, so a timer that fired late still leaves it that.
      const attemptMs = Math.min(
        this.#timeoutMs,
        attempt === 0 ? left : Math.max(left, MIN_ATTEMPT_MS),
      );
      let failure: CdnError;
      try {
        const response = await this.#transport.send({
          method: call.method,
          url,
          headers,
          timeoutMs: attemptMs,
          operation,
          ...(this.#untrusted ? { untrusted: true } : {}),
          ...(payload === undefined ? {} : { body: payload }),
          ...(call.signal ? { signal: call.signal } : {}),
        });
        if (this.#logger?.isLevelEnabled('debug')) {
          this.#logger.debug(
            { op: operation, status: response.status, ms: this.#clock.now() - started, attempt },
            'cdn request',
          );
        }
        const result = this.#interpret(response, operation);
        if (!(result instanceof CdnError)) return result;
        failure = result;
      } catch (error) {
        if (!(error instanceof CdnError)) throw error;
        failure = this.#redact(error);
        // Cut short by the operation's deadline rather than the attempt's own: say which.
        if (
          failure.code === 'timeout' &&
          attemptMs < this.#timeoutMs &&
          failure.status === undefined
        ) {
          throw overdue();
        }
      }

      const retriable =
        call.retry === 'transient'
          ? ['rate_limited', 'unavailable', 'timeout', 'network'].includes(failure.code)
          : failure.code === 'rate_limited' || wasNotSent(failure);
      const wait = failure.retryAfterMs ?? backoffDelay(attempt, this.#retry, this.#random);
      if (
        !retriable ||
        attempt >= this.#retry.maxRetries ||
        waited + wait > this.#retry.budgetMs ||
        // A wait that would leave the next attempt no time is not made: the failure is the answer.
        this.#clock.now() + wait + MIN_ATTEMPT_MS > deadline
      ) {
        throw failure;
      }
      this.#logger?.warn(
        { op: operation, code: failure.code, status: failure.status, waitMs: wait, attempt },
        'cdn request failed; retrying',
      );
      await this.#clock.sleep(wait, call.signal);
      waited += wait;
    }
  }

  /** A 2xx is success whatever its body; anything else becomes a CdnError (returned, not thrown). */
  #interpret(response: HttpResponse, operation: string): CallResult | CdnError {
    const body = parseJson(response.text);
    const ok = response.status >= 200 && response.status < 300;
    // Only successful responses carry success: true, so an explicit false is a refusal.
    const refused = ok && isRecord(body) && body.success === false;
    if (ok && !refused) return { status: response.status, body };

    const code = refused ? 'invalid_request' : codeForStatus(response.status);
    const message =
      errorMessageFromBody(body, response.text) ??
      `${response.status} ${STATUS_CODES[response.status] ?? 'Unknown status'}`;
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.#clock.now());
    const requestId = REQUEST_ID_HEADERS.map((name) => response.headers[name]).find(Boolean);
    return new CdnError(code, this.#scrub(message), {
      status: response.status,
      operation,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(requestId === undefined ? {} : { requestId }),
    });
  }

  #parse<S extends z.ZodType>(schema: S, body: unknown, operation: string): z.output<S> {
    if (body === undefined) {
      throw new CdnError('unexpected_response', 'The CDN answered without a JSON body', {
        operation,
      });
    }
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'body';
    throw new CdnError(
      'unexpected_response',
      `The CDN's answer did not match its API (${where}: ${issue?.message ?? 'invalid'})`,
      { operation },
    );
  }

  /** Servers sometimes echo the request; the key must not ride along in a message. */
  #scrub(text: string): string {
    return text.split(this.#apiKey).join('[redacted]');
  }

  #redact(error: CdnError): CdnError {
    return error.message.includes(this.#apiKey)
      ? new CdnError(error.code, this.#scrub(error.message), error)
      : error;
  }
}

const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amz-request-id', 'cf-ray'];

/**
 * Whether a failed POST may still have been applied (a timeout, a 5xx, a connection lost after the
 * request left): its outcome is unknown, never "failed".
 */
export function outcomeUnknown(error: unknown): boolean {
  if (!(error instanceof CdnError)) return false;
  if (error.code === 'timeout' || error.code === 'unavailable') return true;
  return error.code === 'network' && !wasNotSent(error);
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
