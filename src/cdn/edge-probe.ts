// Asks the CDN's edge for one purged URL (HEAD, or GET reading no body where HEAD is refused) and
// reads from the answer's headers whether the edge served a fresh copy (cache-status.ts). The URL
// is user input: it is fetched only on the purged zone's host names, only from public addresses,
// checked as each connection is made (the egress rules of the CDN base URL: publicOnlyLookup
// checks the very address connected to, so DNS rebinding cannot slip through), following no
// redirect off the zone, within a per-request deadline and without reading a body.
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { cannotReach, formatSeconds, unreachableOf } from '../network-failures.js';
import { type CacheReading, readCacheHeaders } from './cache-status.js';
import { assertPublicLiteral, nonPublicCause, publicOnlyLookup, type Resolver } from './egress.js';

export interface EdgeProbeOptions {
  /** One request's deadline, headers included. Default 5 s. */
  timeoutMs?: number;
  /** Redirects followed within the zone. Default 3. */
  maxRedirects?: number;
  /** The most header bytes read of one answer (no body is read). Default 16 KiB. */
  maxHeaderBytes?: number;
  /** DNS, checked at connect time (tests inject their own). */
  resolve?: Resolver;
  /**
   * Development and tests only (the console and the test harness pass the sandbox edge): every
   * probe connects to this address, whatever its host resolves to, with the URL's own Host.
   * Production leaves it out: the URL's host is resolved and must be public.
   */
  edgeAddress?: { host: string; port: number };
  /** Called as each request is sent to the edge (the metrics count them). */
  onRequest?: () => void;
}

export type ProbeResult =
  | ({ url: string; status: number; method: 'HEAD' | 'GET' } & CacheReading)
  | { url: string; verdict: 'unchecked'; reason: string };

export interface ProbeRequest {
  /** Whether a host name is one of the purged zone's (the zone's name or below it). */
  onZone: (hostname: string) => boolean;
  /** How long ago the purge finished, when the answer comes (ms); absent: any hit is `cached`. */
  sincePurgeMs?: () => number;
  /** GET in place of HEAD (its body dropped unread): asks the edge to fill its cache. */
  method?: 'GET';
  /** The whole verification's deadline: aborting it ends the probe as unchecked. */
  signal?: AbortSignal;
}

/** One request's own deadline passed. */
class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(ms: number) {
    super(`no answer within ${formatSeconds(ms)}`);
  }
}

const DEFAULTS = { timeoutMs: 5_000, maxRedirects: 3, maxHeaderBytes: 16 * 1024 };

export class EdgeProber {
  readonly #agent: Dispatcher;
  readonly #timeoutMs: number;
  readonly #maxRedirects: number;
  readonly #checksAddresses: boolean;
  readonly #onRequest: (() => void) | undefined;

  constructor(options: EdgeProbeOptions = {}) {
    this.#onRequest = options.onRequest;
    this.#timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.#maxRedirects = options.maxRedirects ?? DEFAULTS.maxRedirects;
    const common = {
      connections: 4,
      keepAliveTimeout: 2_000,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      maxHeaderSize: options.maxHeaderBytes ?? DEFAULTS.maxHeaderBytes,
    };
    const route = options.edgeAddress;
    this.#checksAddresses = route === undefined;
    if (route) {
      // The sandbox edge speaks plain HTTP on a local port, for https URLs too.
      const base = buildConnector({ timeout: this.#timeoutMs });
      this.#agent = new Agent({
        ...common,
        connect: ({ servername: _tls, ...opts }, callback) =>
          base(
            {
              ...opts,
              protocol: 'http:',
              hostname: route.host,
              host: `${route.host}:${route.port}`,
              port: String(route.port),
            },
            callback,
          ),
      });
    } else {
      this.#agent = new Agent({
        ...common,
        connect: { timeout: this.#timeoutMs, lookup: publicOnlyLookup(options.resolve) },
      });
    }
  }

  async probe(input: string, request: ProbeRequest): Promise<ProbeResult> {
    const unchecked = (reason: string): ProbeResult => ({
      url: input,
      verdict: 'unchecked',
      reason,
    });
    let url = URL.parse(input);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      return unchecked('not an http(s) URL');
    if (!request.onZone(url.hostname)) return unchecked(`${url.hostname} is not on the zone`);
    for (let hop = 0; ; hop++) {
      if (request.signal?.aborted) return unchecked('the verification ran out of time');
      let answer: { status: number; headers: Record<string, string | undefined> };
      let method: 'HEAD' | 'GET' = request.method ?? 'HEAD';
      try {
        if (this.#checksAddresses) assertPublicLiteral(url);
        answer = await this.#ask(url, method, request.signal);
        // HEAD refused: GET, its body left unread (the connection is closed instead).
        if (method === 'HEAD' && (answer.status === 405 || answer.status === 501)) {
          method = 'GET';
          answer = await this.#ask(url, 'GET', request.signal);
        }
      } catch (error) {
        return unchecked(this.#why(error, url, request.signal));
      }
      const location = answer.headers.location;
      if (answer.status >= 300 && answer.status < 400 && location !== undefined) {
        const next = URL.parse(location, url.href);
        if (!next || (next.protocol !== 'http:' && next.protocol !== 'https:'))
          return unchecked('redirected to something other than an http(s) URL');
        if (!request.onZone(next.hostname))
          return unchecked(`redirected off the zone, to ${next.hostname}; not followed`);
        if (hop >= this.#maxRedirects)
          return unchecked(`more than ${this.#maxRedirects} redirects`);
        url = next;
        continue;
      }
      const since = request.sincePurgeMs?.();
      const reading = readCacheHeaders(
        answer.headers,
        since === undefined ? {} : { sincePurgeMs: since },
      );
      return { url: input, status: answer.status, method, ...reading };
    }
  }

  /**
   * Warms one URL: a GET through the edge, with the same checks as a probe, then a HEAD to see
   * whether the edge now serves it from its cache (`cached`: warmed).
   */
  async warm(
    input: string,
    request: { onZone: (hostname: string) => boolean; signal?: AbortSignal },
  ): Promise<ProbeResult> {
    const filled = await this.probe(input, { ...request, method: 'GET' });
    if ('reason' in filled) return filled;
    return this.probe(input, request);
  }

  /** One request; its body is never read (HEAD has none; a GET's is dropped with the socket). */
  async #ask(
    url: URL,
    method: 'HEAD' | 'GET',
    outer: AbortSignal | undefined,
  ): Promise<{ status: number; headers: Record<string, string | undefined> }> {
    // One controller and a timer held here (AbortSignal.any holds AbortSignal.timeout weakly: a
    // collected one never fires).
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new TimeoutError(this.#timeoutMs)),
      this.#timeoutMs,
    );
    const forward = () => controller.abort(outer?.reason);
    outer?.addEventListener('abort', forward, { once: true });
    if (outer?.aborted) forward();
    let response: Dispatcher.ResponseData;
    try {
      this.#onRequest?.();
      response = await this.#agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers: { 'user-agent': 'cdn-chatops-verify/1', accept: '*/*' },
        signal: controller.signal,
      });
      if (method === 'HEAD') await response.body.dump({ limit: 0 }).catch(() => undefined);
      else {
        // Destroying an unread body makes undici emit its abort as an error: nothing to report.
        response.body.on('error', () => undefined);
        response.body.destroy();
      }
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forward);
    }
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    return { status: response.statusCode, headers };
  }

  #why(error: unknown, url: URL, outer: AbortSignal | undefined): string {
    const refused = nonPublicCause(error);
    if (refused) return refused.message;
    if (outer?.aborted) return 'the verification ran out of time';
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      return `the edge did not answer within ${formatSeconds(this.#timeoutMs)}`;
    if ((error as { code?: string }).code === 'UND_ERR_HEADERS_OVERFLOW')
      return 'the edge sent more header bytes than the bot reads';
    const failure = unreachableOf(error);
    if (failure?.kind === 'timeout')
      return `the edge did not answer within ${formatSeconds(this.#timeoutMs)}`;
    return failure ? cannotReach('the edge', url.host, failure) : 'the request failed';
  }

  async close(): Promise<void> {
    await this.#agent.close().catch(() => this.#agent.destroy());
  }
}
