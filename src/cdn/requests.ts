// Requests to the CDN API at the transport's level: one call is its attempts (each bounded, the
// whole operation within its deadline), retried as its method allows; any answer but a 2xx becomes a
// CdnError; a body is checked against its schema; the API key never appears in a message. The
// endpoints built on it are in client.ts.
import { STATUS_CODES } from 'node:http';
import type { z } from 'zod';
import type { Clock, Random } from '../clock.js';
import type { Logger } from '../logger.js';
import { formatSeconds } from '../network-failures.js';
import { nonPublicCause } from './egress.js';
import { CdnError, codeForStatus } from './errors.js';
import { backoffDelay, parseRetryAfter, type RetryPolicy } from './retry.js';
import { errorMessageFromBody } from './schemas.js';
import { type CdnFeature, type CdnTransport, type HttpResponse, wasNotSent } from './transport.js';

export interface CdnRequestsOptions {
  apiKey: string;
  untrusted: boolean;
  baseUrl: string;
  transport: CdnTransport;
  clock: Clock;
  random: Random;
  logger: Logger | undefined;
  timeoutMs: number;
  operationTimeoutMs: number;
  retry: RetryPolicy;
  /** What the requests are for, passed on to the transport (the metrics count it). */
  feature?: CdnFeature;
}

/** The least time worth giving a retry: less would time out for nothing. */
const MIN_ATTEMPT_MS = 1_000;

/** Which failures a call may retry: GETs anything transient, POSTs only what provably did nothing. */
export type RetryMode = 'transient' | 'not-applied';

export interface Call {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  retry: RetryMode;
  signal?: AbortSignal | undefined;
  deadline?: number | undefined;
}

export interface CallResult {
  status: number;
  /** The parsed JSON body, or undefined when the body was empty or not JSON. */
  body: unknown;
}

export class CdnRequests {
  readonly #apiKey: string;
  readonly #untrusted: boolean;
  readonly #feature: CdnFeature | undefined;
  readonly #baseUrl: string;
  readonly #transport: CdnTransport;
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #logger: Logger | undefined;
  readonly #timeoutMs: number;
  readonly #operationTimeoutMs: number;
  readonly #retry: RetryPolicy;

  constructor(options: CdnRequestsOptions) {
    this.#apiKey = options.apiKey;
    this.#untrusted = options.untrusted;
    this.#feature = options.feature;
    this.#baseUrl = options.baseUrl;
    this.#transport = options.transport;
    this.#clock = options.clock;
    this.#random = options.random;
    this.#logger = options.logger;
    this.#timeoutMs = options.timeoutMs;
    this.#operationTimeoutMs = options.operationTimeoutMs;
    this.#retry = options.retry;
  }

  /** The operation's deadline: the caller's, or from now. */
  deadlineOf(options: { deadline?: number | undefined }): number {
    return options.deadline ?? this.#clock.now() + this.#operationTimeoutMs;
  }

  async call(call: Call): Promise<CallResult> {
    const url = new URL(`${this.#baseUrl}${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const operation = `${call.method} ${call.path}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: 'application/json',
    };
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (payload !== undefined) headers['content-type'] = 'application/json';

    const deadline = this.deadlineOf(call);
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
          ...(this.#feature ? { feature: this.#feature } : {}),
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
        if (error.code === 'blocked_address') {
          // The address stays in the operator's log; the user is told only that it is not public.
          const refused = nonPublicCause(error);
          this.#logger?.warn(
            { op: operation, host: url.host, address: refused?.address ?? null },
            'cdn request refused: not a public address',
          );
        }
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

  parse<S extends z.ZodType>(schema: S, body: unknown, operation: string): z.output<S> {
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
