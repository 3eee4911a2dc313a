// The HTTP API's routes, served as custom routes of Bolt's own HTTP server: the HTTP receiver's in
// HTTP mode, the Socket Mode receiver's on PORT otherwise. A POST's body is read first, bounded in
// size and time, before the request takes a turn (a fair queue between tokens,
// src/throttles/fair-queue.ts); then, in its turn: the API is on (a token exists), the bearer
// token, its rate limit, the body (JSON only, validated by the zod schemas of schemas.ts). Every
// error is application/problem+json (RFC 9457, problems.ts). The OpenAPI document (openapi.ts) is
// served to anyone, always. (Over 400 lines: the body read, the turn and the routes are one request's path.)
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ApiPurgeService } from '../services/api/api-purges.js';
import { ApiRefusal, type ApiRefusalCode } from '../services/api/api-refusal.js';
import {
  type ApiToken,
  type ApiTokenService,
  hashApiToken,
  presentedToken,
  tokenActorId,
} from '../services/api/api-tokens.js';
import type { Store } from '../store/index.js';
import { FairQueue, type FairQueueLimits, QueueFull } from '../throttles/fair-queue.js';
import { openApiDocument } from './openapi.js';
import { type ProblemName as Known, PROBLEM_BASE, PROBLEMS } from './problems.js';
import { IdempotencyKeySchema, parsePurgeRequest, WaitSchema } from './schemas.js';

/** The largest request body read; past it, 413 (the URL count is checked after, also 413). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * How long a body may take to arrive: no gap longer than `idleMs` between its bytes, all of it
 * within `totalMs` (API_BODY_IDLE_TIMEOUT_MS, API_BODY_TIMEOUT_MS); past either, 408.
 */
export interface BodyTimeouts {
  idleMs: number;
  totalMs: number;
}

export const API_PATHS = {
  purges: '/api/v1/purges',
  purge: '/api/v1/purges/:id',
  openapi: '/api/v1/openapi.json',
} as const;

type ProblemName = Known | ApiRefusalCode;

class Problem extends Error {
  constructor(
    readonly kind: ProblemName,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export interface ApiRoutesOptions {
  /** The services, looked up at each request (the routes are made before the app's services). */
  services: () => { tokens: ApiTokenService; purges: ApiPurgeService };
  store: Store;
  logger: Logger;
  maxBodyBytes?: number;
  /** How long a body may take to arrive. */
  bodyTimeouts: BodyTimeouts;
  /**
   * Requests worked on at once in this process, and how many more may wait (API_MAX_IN_FLIGHT,
   * API_MAX_QUEUED), shared fairly between tokens; past that, 503 `busy` with Retry-After. A
   * POST's body is read before it waits; a GET's `?wait` is not counted while it waits. Default:
   * no bound.
   */
  limits?: FairQueueLimits;
  /** Whether the event loop is busy now: then the queue gives one turn at a time (see FairQueue). */
  busy?: () => boolean;
}

/** The API's custom routes, for a Bolt receiver (HTTP or Socket Mode). */
export function apiRoutes(options: ApiRoutesOptions): CustomRoute[] {
  const api = new ApiHandlers(options);
  const route =
    (handle: (req: Request_, res: ServerResponse) => Promise<void>) =>
    (req: Request_, res: ServerResponse) => {
      handle(req, res).catch((error: unknown) => api.fail(req, res, error));
    };
  return [
    { path: API_PATHS.purges, method: ['POST'], handler: route((q, s) => api.create(q, s)) },
    { path: API_PATHS.purge, method: ['GET'], handler: route((q, s) => api.read(q, s)) },
    { path: API_PATHS.openapi, method: ['GET'], handler: route((q, s) => api.openapi(q, s)) },
  ];
}

type Request_ = IncomingMessage & { params?: Record<string, string | string[] | undefined> };

class ApiHandlers {
  readonly #maxBodyBytes: number;
  readonly #timeouts: BodyTimeouts;
  readonly #queue: FairQueue | undefined;
  /** No server URL: paths are relative to where it was fetched (a proxy may change the scheme). */
  readonly #document = (() => {
    const body = JSON.stringify(openApiDocument());
    return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
  })();
  constructor(private readonly options: ApiRoutesOptions) {
    this.#maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
    this.#timeouts = options.bodyTimeouts;
    this.#queue = options.limits && new FairQueue(options.limits, options.busy);
  }

  /**
   * Runs a request's work in its turn (see FairQueue), in the line of the token it presents (one
   * line for requests presenting none); a full queue is 503 `busy`. A client that leaves while
   * waiting leaves the line.
   */
  async #inTurn<T>(req: IncomingMessage, res: ServerResponse, work: () => Promise<T>): Promise<T> {
    if (!this.#queue) return work();
    const secret = presentedToken(req.headers.authorization);
    const left = new AbortController();
    const leave = () => left.abort(new Problem('unavailable', 'The client left.'));
    res.once('close', leave);
    try {
      return await this.#queue.run(work, {
        key: secret === undefined ? '' : hashApiToken(secret),
        signal: left.signal,
      });
    } catch (error) {
      if (!(error instanceof QueueFull)) throw error;
      throw new Problem(
        'busy',
        'Too many API requests at once on this server; try again shortly.',
        {},
        { 'retry-after': '1' },
      );
    } finally {
      res.off('close', leave);
    }
  }

  async create(req: Request_, res: ServerResponse): Promise<void> {
    // Read before the turn: a client slow to send its body holds nothing others wait for.
    const body = await this.#readBody(req);
    return this.#inTurn(req, res, () => this.#create(req, res, body));
  }

  async #create(req: Request_, res: ServerResponse, raw: Buffer): Promise<void> {
    const token = await this.#token(req);
    try {
      await this.options.services().purges.takeRequest(token);
      const key = this.#idempotencyKey(req);
      const body = this.#json(req, raw);
      const parsed = parsePurgeRequest(body);
      if (!parsed.success)
        throw new Problem('invalid_body', 'The body does not match the PurgeRequest schema.', {
          errors: parsed.error.issues.slice(0, 20).map((issue) => ({
            path: issue.path.map(String).join('.') || '(body)',
            message: issue.message,
          })),
        });
      // `kind` says again what the body says: the request (and its Idempotency-Key's body hash)
      // is the same with it or without it.
      const { kind: _, ...request } = parsed.data;
      const { state, created } = await this.options.services().purges.create(token, request, key);
      const url = `/api/v1/purges/${encodeURIComponent(state.id)}`;
      if (!created) await this.#audit(token, 'api.purge.replayed', 'ok', { purge: state.id });
      send(
        res,
        202,
        {
          id: state.id,
          status: state.status,
          ...(state.not_before ? { not_before: state.not_before } : {}),
          url,
        },
        { location: url },
      );
    } catch (error) {
      const problem = toProblem(error);
      // A refusal is audited, except the rate limit's own (a flood must not flood the audit log).
      if (problem && problem.kind !== 'rate_limited')
        await this.#audit(token, 'api.purge.refused', 'refused', {
          problem: PROBLEMS[problem.kind].type,
        }).catch(() => undefined);
      throw error;
    }
  }

  async read(req: Request_, res: ServerResponse): Promise<void> {
    // The client leaving ends the wait.
    const left = new AbortController();
    res.on('close', () => left.abort());
    const purges = this.options.services().purges;
    // The wait itself holds no turn: only the reads before it and after it count.
    const { token, first, seconds } = await this.#inTurn(req, res, async () => {
      const token = await this.#token(req);
      await purges.takeRequest(token);
      const id = String(req.params?.id ?? '');
      const query = new URL(req.url ?? '/', 'http://api.invalid').searchParams;
      const raw = query.get('wait');
      let seconds = 0;
      if (raw !== null) {
        const wait = WaitSchema.safeParse(raw);
        if (!wait.success)
          throw new Problem('invalid_query', '`wait` is a whole number of seconds from 0 to 60.');
        seconds = wait.data;
      }
      return { token, first: await purges.get(token, id), seconds };
    });
    const state = await purges.waitFrom(token, first, seconds, left.signal);
    if (!res.writableEnded && !res.destroyed) send(res, 200, state);
  }

  /**
   * The OpenAPI document: to anyone, whether the API is on or not (it is the same for every
   * workspace and holds no secret), outside the queue, cacheable and revalidated by its ETag.
   */
  async openapi(req: Request_, res: ServerResponse): Promise<void> {
    const { body, etag } = this.#document;
    const headers = { etag, 'cache-control': 'public, max-age=300' };
    if (ifNoneMatch(req.headers['if-none-match'], etag)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(body);
  }

  /** Answers an error as a problem; anything unexpected is logged, and said without detail. */
  fail(req: Request_, res: ServerResponse, error: unknown): void {
    let problem = toProblem(error);
    if (!problem) {
      this.options.logger.error({ err: error, path: req.url }, 'API request failed');
      problem = new Problem('unavailable', 'Something went wrong on our side.');
    }
    const { status, type, title } = PROBLEMS[problem.kind];
    if (res.headersSent || res.destroyed) return;
    // A body not read to its end is left unread: the connection is closed after the answer.
    if (!req.complete) res.setHeader('connection', 'close');
    res.writeHead(status, {
      'content-type': 'application/problem+json',
      'cache-control': 'no-store',
      ...problem.headers,
    });
    res.end(
      JSON.stringify({
        type: `${PROBLEM_BASE}${type}`,
        title,
        status,
        detail: problem.detail,
        ...problem.extra,
      }),
    );
  }

  async #on(): Promise<void> {
    if (!(await this.options.services().tokens.enabled()))
      throw new Problem('off', 'The API is off until an admin makes its first token.');
  }

  async #token(req: IncomingMessage): Promise<ApiToken> {
    await this.#on();
    const token = await this.options.services().tokens.authenticate(req.headers.authorization);
    if (!token)
      throw new Problem(
        'unauthorized',
        'Send a live API token: Authorization: Bearer cdnb_…',
        {},
        { 'www-authenticate': 'Bearer realm="cdn-chatops"' },
      );
    return token;
  }

  #idempotencyKey(req: IncomingMessage): string | undefined {
    const header = req.headers['idempotency-key'];
    if (header === undefined) return undefined;
    const parsed = IdempotencyKeySchema.safeParse(header);
    if (!parsed.success)
      throw new Problem('invalid_header', 'Idempotency-Key is 1 to 255 visible ASCII characters.');
    return parsed.data;
  }

  /**
   * The whole body: at most maxBodyBytes (413, as soon as Content-Length or the bytes read say
   * more), with no pause longer than the idle timeout between its bytes (the socket's own
   * timeout) and all of it within the total one (408 for either; the connection is then closed).
   */
  #readBody(req: IncomingMessage): Promise<Buffer> {
    const tooLarge = () =>
      new Problem('body_too_large', `The body may be at most ${this.#maxBodyBytes} bytes.`);
    if (Number(req.headers['content-length'] ?? Number.NaN) > this.#maxBodyBytes)
      return Promise.reject(tooLarge());
    const { idleMs, totalMs } = this.#timeouts;
    const socket = req.socket;
    const socketTimeout = socket.timeout ?? 0;
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (error?: unknown) => {
        clearTimeout(total);
        req.off('data', onData).off('end', onEnd).off('error', onClose).off('close', onClose);
        req.off('timeout', onIdle);
        socket.setTimeout(socketTimeout);
        if (error === undefined) resolve(Buffer.concat(chunks, size));
        else {
          // The rest is left unread: the answer closes the connection (see fail).
          req.pause();
          reject(error);
        }
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > this.#maxBodyBytes) done(tooLarge());
        else chunks.push(chunk);
      };
      const onEnd = () => done();
      const onClose = () => done(new Problem('unavailable', 'The client left.'));
      const onIdle = () =>
        done(
          new Problem(
            'request_timeout',
            `No byte of the body arrived for ${seconds(idleMs)}: send it at once, in full.`,
          ),
        );
      const total = setTimeout(
        () =>
          done(
            new Problem(
              'request_timeout',
              `The body must arrive within ${seconds(totalMs)} of the request.`,
            ),
          ),
        totalMs,
      );
      req.on('data', onData).once('end', onEnd).once('error', onClose).once('close', onClose);
      // The socket's idle timeout: Node emits it on the request while its body is unread.
      req.setTimeout(idleMs, onIdle);
    });
  }

  /** The body as JSON: application/json only. */
  #json(req: IncomingMessage, raw: Buffer): unknown {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json')
      throw new Problem('unsupported_media_type', 'Send the body as application/json.');
    try {
      return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
    } catch {
      throw new Problem('invalid_json', 'The body is not valid UTF-8 JSON.');
    }
  }

  async #audit(token: ApiToken, action: string, outcome: string, detail: Record<string, unknown>) {
    await this.options.store.audit.record({
      workspaceId: token.workspaceId,
      actorId: tokenActorId(token),
      action,
      outcome,
      detail: { token: token.name, tokenId: token.id, ...detail },
    });
  }
}

/** `ms` for people: "5 s", "0.2 s". */
const seconds = (ms: number): string => `${ms / 1000} s`;

/** Whether an If-None-Match header names this ETag (or is `*`). */
function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** An error the API answers with its own problem; undefined for anything unexpected. */
function toProblem(error: unknown): Problem | undefined {
  if (error instanceof Problem) return error;
  if (error instanceof ApiRefusal) {
    const headers: Record<string, string> =
      error.extra.retryAfterSeconds === undefined
        ? {}
        : { 'retry-after': String(error.extra.retryAfterSeconds) };
    return new Problem(
      error.code,
      error.detail,
      {
        ...(error.extra.items ? { items: error.extra.items } : {}),
        ...(error.extra.accounts ? { accounts: error.extra.accounts } : {}),
        ...(error.extra.freeze ? { freeze: error.extra.freeze } : {}),
      },
      headers,
    );
  }
  if (error instanceof AppError) {
    const code = error.problem.code;
    if (code === 'no_api_key')
      return new Problem(
        'no_api_key',
        'An admin must give the bot the CDN key first (/cdn login).',
      );
    if (code === 'storage_unavailable')
      return new Problem('unavailable', 'The database did not answer; try again shortly.');
    if (code === 'insecure_base_url')
      return new Problem('not_ready', 'The workspace’s CDN settings do not allow calls now.');
    if (code === 'cannot_post')
      return new Problem(
        'no_approval_channel',
        'The bot cannot post the approval request in its channel.',
      );
  }
  return undefined;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(JSON.stringify(body));
}
