// One HTTP attempt against the CDN: keep-alive pools, a deadline, and errors classified by code.
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher, errors as undiciErrors } from 'undici';
import { cannotReach, formatSeconds, unreachableOf } from '../network-failures.js';
import {
  assertPublicLiteral,
  NonPublicAddressError,
  publicOnlyLookup,
  type Resolver,
} from './egress.js';
import { CdnError } from './errors.js';
import { type CdnLimits, DEFAULT_CDN_LIMITS, formatByteLimit } from './limits.js';

/**
 * What a CDN request is for, as the metrics count it: a chart someone asked for, a daily report, a
 * watch, a purge (purge everything and its approval's hit rate included), a rate-limit change or
 * state, zone lists and lookups (the zone index), a zone's creation, a key checked at login, or a
 * purged URL asked of the edge.
 */
export type CdnFeature =
  | 'analytics'
  | 'reports'
  | 'watches'
  | 'purge'
  | 'ratelimit'
  | 'zones'
  | 'create'
  | 'login'
  | 'verify';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** For messages and logs: `METHOD /path`. */
  operation: string;
  /** A workspace's own base URL: only public addresses may be connected to (egress.ts). */
  untrusted?: boolean;
  /** What the request is for, for the metrics. */
  feature?: CdnFeature;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | undefined>;
  text: string;
}

/** Socket errors that mean the request never reached the server, so even a POST is safe to resend. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export interface TransportOptions {
  /** Keep-alive connections per origin. */
  connections?: number;
  /**
   * What one operation may take (CDN_MAX_PAGES, CDN_MAX_RESPONSE_BYTES, CDN_OPERATION_TIMEOUT_MS);
   * every client on this transport holds to them unless it is given its own.
   */
  limits?: Partial<CdnLimits>;
  /** Replaces the default Agent (tests); give it `maxResponseSize` too, as the default has. */
  dispatcher?: Dispatcher;
  /** DNS for untrusted hosts, checked at connect time (tests inject their own). */
  resolve?: Resolver;
}

/**
 * Shared by every workspace's client: undici's Agent keeps one keep-alive Pool per origin, so
 * workspaces on the same CDN share connections. It also remembers what it learns about a server.
 */
export class CdnTransport {
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  /** For untrusted base URLs: its connections resolve through publicOnlyLookup. */
  readonly #guarded: Agent;
  readonly #hints = new Map<string, ServerHints>();
  readonly limits: Readonly<CdnLimits>;

  constructor(options: TransportOptions = {}) {
    this.limits = Object.freeze(checkLimits({ ...DEFAULT_CDN_LIMITS, ...options.limits }));
    // undici counts a body's bytes as they arrive and destroys the connection past the limit
    // (ResponseExceededMaxSizeError), so a runaway body is never buffered beyond it.
    const common = {
      connections: options.connections ?? 16,
      keepAliveTimeout: 30_000,
      maxResponseSize: this.limits.maxResponseBytes,
    };
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? new Agent(common);
    this.#guarded = new Agent({
      ...common,
      connect: { lookup: publicOnlyLookup(options.resolve) },
    });
  }

  /** Facts learned about the server at `baseUrl` (e.g. which settings path form it accepts). */
  hints(baseUrl: string): ServerHints {
    let hints = this.#hints.get(baseUrl);
    if (!hints) {
      hints = {};
      this.#hints.set(baseUrl, hints);
    }
    return hints;
  }

  async send(request: HttpRequest): Promise<HttpResponse> {
    // One controller and one timer per attempt: AbortSignal.timeout + AbortSignal.any cost several
    // times more, which shows at hundreds of purge requests a second.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, request.timeoutMs);
    const forward = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', forward, { once: true });
    if (request.signal?.aborted) forward();
    const signal = controller.signal;
    try {
      // A literal IP never goes through lookup, so it is checked here.
      if (request.untrusted) assertPublicLiteral(request.url);
      const dispatcher = request.untrusted ? this.#guarded : this.#dispatcher;
      const response = await dispatcher.request({
        origin: request.url.origin,
        path: `${request.url.pathname}${request.url.search}`,
        method: request.method,
        headers: request.headers,
        body: request.body ?? null,
        signal,
      });
      const declared = Number(response.headers['content-length']);
      // A body announced as too long is not read at all (undici would stop at the limit anyway).
      if (declared > this.limits.maxResponseBytes) {
        response.body.destroy();
        throw this.#tooLarge(request.operation);
      }
      const text = await response.body.text();
      return { status: response.statusCode, headers: flatten(response.headers), text };
    } catch (error) {
      if (error instanceof CdnError) throw error;
      if (findCause(error, undiciErrors.ResponseExceededMaxSizeError)) {
        throw this.#tooLarge(request.operation, error);
      }
      const blocked = findCause(error, NonPublicAddressError);
      if (blocked) {
        throw new CdnError('blocked_address', blocked.message, {
          operation: request.operation,
          cause: error,
        });
      }
      // A caller's own abort is not a CDN failure: hand back exactly what they aborted with.
      if (request.signal?.aborted) throw request.signal.reason;
      // Not "cannot reach": the request may have been delivered, and acted on (a purge whose
      // outcome is unknown, audited as such), before the answer failed to come.
      if (timedOut) {
        throw new CdnError(
          'timeout',
          `The CDN at ${request.url.host} did not answer within ${formatSeconds(request.timeoutMs)}`,
          { operation: request.operation, cause: error },
        );
      }
      throw networkError(error, request);
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', forward);
    }
  }

  #tooLarge(operation: string, cause?: unknown): CdnError {
    return new CdnError(
      'unexpected_response',
      `The CDN's answer to ${operation} was larger than ${formatByteLimit(this.limits.maxResponseBytes)}, the most the bot reads`,
      { operation, ...(cause === undefined ? {} : { cause }) },
    );
  }

  /**
   * Closes the connections once their requests have ended, or, past `graceMs`, destroys them with
   * whatever is still in flight (a stopping process must not wait out a hung CDN call).
   */
  async close(graceMs = 2_000): Promise<void> {
    const dispatchers = this.#ownsDispatcher ? [this.#guarded, this.#dispatcher] : [this.#guarded];
    const closed = Promise.all(dispatchers.map((d) => d.close()));
    const timer = new AbortController();
    const late = await Promise.race([
      closed.then(() => false),
      delay(graceMs, true, { signal: timer.signal }).catch(() => false),
    ]);
    timer.abort();
    if (late) await Promise.all(dispatchers.map((d) => d.destroy()));
  }
}

export interface ServerHints {
  settingsPathForm?: 'id' | 'name';
}

/** True when a network error proves the request was never delivered (or a restored error says so). */
export function wasNotSent(error: unknown): boolean {
  if (!(error instanceof CdnError)) return false;
  return (
    error.notSent === true || (error.code === 'network' && NOT_SENT_CODES.has(causeCode(error)))
  );
}

/** "Cannot reach the CDN at api.cdn.example: DNS lookup failed (ENOTFOUND)". */
function networkError(error: unknown, request: HttpRequest): CdnError {
  const failure = unreachableOf(error);
  const host = request.url.host;
  const reason = failure
    ? cannotReach('the CDN', host, failure)
    : `Cannot reach the CDN at ${host}: the connection failed`;
  return new CdnError('network', reason, { operation: request.operation, cause: error });
}

/** An error and the causes it wraps (undici nests the socket's error a few levels deep). */
function* causes(error: unknown): Generator<object> {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

function findCause<T>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  for (const cause of causes(error)) if (cause instanceof type) return cause;
  return undefined;
}

function causeCode(error: unknown): string {
  for (const cause of causes(error)) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'network') return code;
  }
  return '';
}

function flatten(headers: Record<string, string | string[] | undefined>) {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Limits are whole and positive; a mistake here is the operator's, named at start-up. */
function checkLimits(limits: CdnLimits): CdnLimits {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`CdnTransport: limits.${name} must be a whole number of at least 1`);
    }
  }
  return limits;
}
