// One HTTP attempt against the CDN: keep-alive pools, a deadline, and errors classified by code.
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import {
  assertPublicLiteral,
  NonPublicAddressError,
  publicOnlyLookup,
  type Resolver,
} from './egress.js';
import { CdnError } from './errors.js';

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
  /** Larger bodies are refused rather than buffered (a proxy page or a runaway series). */
  maxBodyBytes?: number;
  /** Replaces the default Agent (tests). */
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
  readonly #maxBodyBytes: number;
  readonly #hints = new Map<string, ServerHints>();

  constructor(options: TransportOptions = {}) {
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({ connections: options.connections ?? 16, keepAliveTimeout: 30_000 });
    this.#guarded = new Agent({
      connections: options.connections ?? 16,
      keepAliveTimeout: 30_000,
      connect: { lookup: publicOnlyLookup(options.resolve) },
    });
    this.#maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
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
      const text = await readText(
        response.body,
        response.headers['content-length'],
        this.#maxBodyBytes,
        request.operation,
      );
      return { status: response.statusCode, headers: flatten(response.headers), text };
    } catch (error) {
      if (error instanceof CdnError) throw error;
      const blocked = findCause(error, NonPublicAddressError);
      if (blocked) {
        throw new CdnError('blocked_address', blocked.message, {
          operation: request.operation,
          cause: error,
        });
      }
      // A caller's own abort is not a CDN failure: hand back exactly what they aborted with.
      if (request.signal?.aborted) throw request.signal.reason;
      if (timedOut) {
        throw new CdnError(
          'timeout',
          `The CDN did not answer within ${formatSeconds(request.timeoutMs)}`,
          { operation: request.operation, cause: error },
        );
      }
      throw networkError(error, request.operation);
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', forward);
    }
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

/** True when a network error proves the request was never delivered. */
export function wasNotSent(error: unknown): boolean {
  return (
    error instanceof CdnError && error.code === 'network' && NOT_SENT_CODES.has(causeCode(error))
  );
}

function networkError(error: unknown, operation: string): CdnError {
  const code = causeCode(error);
  const reason =
    code === 'ECONNREFUSED'
      ? 'the connection was refused'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'its host name could not be resolved'
        : 'the connection failed';
  return new CdnError('network', `Could not reach the CDN API: ${reason}`, {
    operation,
    cause: error,
  });
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

async function readText(
  body: AsyncIterable<Buffer> & { destroy(): unknown; text(): Promise<string> },
  length: string | string[] | undefined,
  limit: number,
  operation: string,
): Promise<string> {
  const declared = typeof length === 'string' ? Number(length) : Number.NaN;
  // A declared length within the limit can be read in one go; otherwise count as it streams.
  if (Number.isInteger(declared) && declared <= limit) return body.text();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new CdnError('unexpected_response', 'The CDN sent a response too large to read', {
        operation,
      });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function flatten(headers: Record<string, string | string[] | undefined>) {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
