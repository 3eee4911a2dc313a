// A CDN API server that does what the spec says, strictly, for local use and tests.
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { checkHostname } from '../../cdn/hostname.js';
import {
  GRANULARITIES,
  type Granularity,
  ZONE_PLANS,
  ZONE_STATUSES,
  type ZonePlan,
} from '../../cdn/schemas.js';
import { type Clock, systemClock } from '../../clock.js';
import { SandboxState, type SandboxZone } from './state.js';
import { STEP_MS, syntheticTraffic } from './traffic.js';

export const SANDBOX_DEMO_KEY = 'sandbox-demo-key';

export interface SandboxOptions {
  port?: number;
  host?: string;
  /** Accepted bearer keys. */
  apiKeys?: string[];
  clock?: Clock;
  /** Seed the demo zones (every status). Default true. */
  demoZones?: boolean;
  /** Add this many active zones for pagination. */
  bulkZones?: number;
  /** How long a created zone stays pending. */
  activationDelayMs?: number;
  /** Most files or tags in one purge request. */
  maxPurgeItems?: number;
  maxAnalyticsPoints?: number;
  /** What the settings path accepts in its zone segment. */
  settingsPath?: 'id-or-name' | 'id-only' | 'name-only';
  /** The create response, which the spec does not show: the zone in `data`, bare, or no body. */
  createResponse?: 'envelope' | 'top-level' | 'empty';
}

/** A fault for the next `times` requests matching `method` and `path` (relative to /v1). */
export type Fault = {
  method?: 'GET' | 'POST';
  path?: string | RegExp;
  times?: number;
} & (
  | {
      kind: 'status';
      status: number;
      body?: unknown;
      headers?: Record<string, string>;
      /** Do the work first, then answer with this status (an outcome the client cannot know). */
      after?: boolean;
    }
  | { kind: 'latency'; ms: number }
  /** Never answer; with `after`, do the work first. */
  | { kind: 'hang'; after?: boolean }
  /** A 200 whose body is cut-off JSON. */
  | { kind: 'malformed' }
  /** Drop the connection without an answer. */
  | { kind: 'reset' }
);

export interface RecordedRequest {
  method: string;
  /** Relative to /v1, e.g. /zones/zone_…/purge. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** 0 when no answer was sent (hang, reset). */
  status: number;
  at: number;
}

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const MAX_BODY_BYTES = 1024 * 1024;

export class Sandbox extends EventEmitter<{ request: [RecordedRequest] }> {
  readonly requests: RecordedRequest[] = [];
  /** Requests being handled now, and the most ever handled at once. */
  readonly load = { inFlight: 0, peak: 0 };
  readonly state: SandboxState;
  readonly #faults: Array<Fault & { remaining: number }> = [];
  readonly #server: Server;
  readonly #clock: Clock;
  readonly #keys: Set<string>;
  readonly #options: Required<
    Pick<SandboxOptions, 'maxPurgeItems' | 'maxAnalyticsPoints' | 'settingsPath' | 'createResponse'>
  >;
  #url = '';

  constructor(options: SandboxOptions = {}) {
    super();
    this.#clock = options.clock ?? systemClock;
    this.#keys = new Set(options.apiKeys ?? [SANDBOX_DEMO_KEY]);
    this.#options = {
      maxPurgeItems: options.maxPurgeItems ?? 30,
      maxAnalyticsPoints: options.maxAnalyticsPoints ?? 10_080,
      settingsPath: options.settingsPath ?? 'id-or-name',
      createResponse: options.createResponse ?? 'envelope',
    };
    this.state = new SandboxState(this.#clock, options.activationDelayMs ?? 60_000);
    if (options.demoZones ?? true) this.state.seedDemo();
    if (options.bulkZones) this.state.seedBulk(options.bulkZones);
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) json(res, 500, failure('internal', String(error)));
      });
    });
  }

  /** Origin, e.g. http://127.0.0.1:4010. */
  get url(): string {
    return this.#url;
  }

  /** What CDN_API_BASE_URL should be. */
  get baseUrl(): string {
    return `${this.#url}/v1`;
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => resolve());
    });
    const address = this.#server.address() as AddressInfo;
    this.#url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
    return this;
  }

  inject(fault: Fault): void {
    this.#faults.push({ ...fault, remaining: fault.times ?? 1 });
  }

  clearFaults(): void {
    this.#faults.length = 0;
  }

  /** Resolves once `count` recorded requests (past or future) satisfy `predicate`. */
  waitFor(predicate: (request: RecordedRequest) => boolean, count = 1): Promise<RecordedRequest[]> {
    return new Promise((resolve) => {
      const check = () => {
        const matching = this.requests.filter(predicate);
        if (matching.length < count) return false;
        this.off('request', check);
        resolve(matching);
        return true;
      };
      if (!check()) this.on('request', check);
    });
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = req.method ?? 'GET';
    const path = url.pathname.startsWith('/v1/') ? url.pathname.slice(3) : url.pathname;
    this.load.inFlight += 1;
    this.load.peak = Math.max(this.load.peak, this.load.inFlight);
    const text = await readBody(req);
    const record: RecordedRequest = {
      method,
      path,
      query: Object.fromEntries(url.searchParams),
      body: typeof text === 'string' ? tryJson(text) : undefined,
      status: 0,
      at: this.#clock.now(),
    };
    const finish = (reply?: Reply) => {
      if (reply) {
        record.status = reply.status;
        json(res, reply.status, reply.body, reply.headers);
      }
      this.load.inFlight -= 1;
      this.requests.push(record);
      this.emit('request', record);
    };

    const fault = this.#takeFault(method, path);
    if (fault?.kind === 'latency') await delay(fault.ms);
    if (fault?.kind === 'reset') {
      req.socket.destroy();
      return finish();
    }
    if (fault?.kind === 'malformed') {
      record.status = 200;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"success":true,"data":[{"id":');
      return finish();
    }
    const faultFirst = (fault?.kind === 'status' || fault?.kind === 'hang') && !fault.after;
    if (fault && faultFirst) return finish(fault.kind === 'status' ? faultReply(fault) : undefined);

    const reply =
      text === null
        ? fail(413, 'payload_too_large', 'Request body exceeds 1 MiB')
        : (this.#authorize(req) ?? this.#route(method, path, url.searchParams, req, text));
    if (fault?.kind === 'status') return finish(faultReply(fault));
    if (fault?.kind === 'hang') return finish();
    return finish(reply);
  }

  #takeFault(method: string, path: string): Fault | undefined {
    const index = this.#faults.findIndex(
      (fault) =>
        (fault.method === undefined || fault.method === method) &&
        (fault.path === undefined ||
          (typeof fault.path === 'string' ? fault.path === path : fault.path.test(path))),
    );
    const fault = this.#faults[index];
    if (!fault) return undefined;
    if (--fault.remaining <= 0) this.#faults.splice(index, 1);
    return fault;
  }

  #authorize(req: IncomingMessage): Reply | undefined {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer (.+)$/.exec(header);
    if (!match) return fail(401, 'unauthorized', 'Missing bearer token');
    if (!this.#keys.has(match[1] ?? '')) return fail(401, 'unauthorized', 'Invalid API key');
    return undefined;
  }

  #route(
    method: string,
    path: string,
    query: URLSearchParams,
    req: IncomingMessage,
    text: string | undefined,
  ): Reply {
    const routes: Array<[RegExp, Record<string, (zone: string) => Reply>]> = [
      [/^\/zones$/, { GET: () => this.#listZones(query), POST: () => this.#createZone(req, text) }],
      [/^\/zones\/([^/]+)\/purge$/, { POST: (zone) => this.#purge(zone, req, text) }],
      [/^\/zones\/([^/]+)\/analytics\/traffic$/, { GET: (zone) => this.#analytics(zone, query) }],
      [/^\/zones\/([^/]+)\/settings$/, { POST: (zone) => this.#settings(zone, req, text) }],
    ];
    for (const [pattern, handlers] of routes) {
      const match = pattern.exec(path);
      if (!match) continue;
      const handler = handlers[method];
      if (!handler) {
        return {
          ...fail(405, 'method_not_allowed', `${method} is not supported here`),
          headers: { allow: Object.keys(handlers).join(', ') },
        };
      }
      let segment: string;
      try {
        segment = decodeURIComponent(match[1] ?? '');
      } catch {
        return fail(400, 'invalid_path', 'Malformed path segment');
      }
      return handler(segment);
    }
    return fail(404, 'not_found', `No such endpoint: ${method} ${path}`);
  }

  #listZones(query: URLSearchParams): Reply {
    const page = integerParam(query, 'page', 1);
    const perPage = integerParam(query, 'per_page', 20);
    const status = query.get('status');
    if (page === null || page < 1) return fail(400, 'invalid_page', 'page must be an integer ≥ 1');
    if (perPage === null || perPage < 1 || perPage > 100) {
      return fail(400, 'invalid_per_page', 'per_page must be an integer from 1 to 100');
    }
    if (status !== null && !isOneOf(status, ZONE_STATUSES)) {
      return fail(400, 'invalid_status', 'status must be one of active, pending, deleted');
    }
    const zones = this.state.list(status ?? undefined);
    const slice = zones.slice((page - 1) * perPage, page * perPage);
    return ok({
      data: slice.map((zone) => this.state.toJson(zone)),
      meta: { page, per_page: perPage, total: zones.length },
    });
  }

  #createZone(req: IncomingMessage, text: string | undefined): Reply {
    const body = jsonBody(req, text);
    if ('status' in body) return body;
    const { name, plan } = body.value;
    if (typeof name !== 'string') return fail(400, 'invalid_name', 'name is required');
    const check = checkHostname(name);
    if (!check.ok || check.ascii !== name.toLowerCase()) {
      return fail(400, 'invalid_name', 'name must be a domain name in ASCII (punycode) form');
    }
    if (plan !== undefined && !isOneOf(plan, ZONE_PLANS)) {
      return fail(400, 'invalid_plan', 'plan must be one of free, pro, business, enterprise');
    }
    if (this.state.byName(name)) {
      return fail(409, 'zone_exists', `A zone named ${name.toLowerCase()} already exists`);
    }
    const zone = this.state.create(name, (plan as ZonePlan | undefined) ?? 'free');
    switch (this.#options.createResponse) {
      case 'envelope':
        return { status: 201, body: { success: true, data: this.state.toJson(zone) } };
      case 'top-level':
        return { status: 201, body: { success: true, ...this.state.toJson(zone) } };
      case 'empty':
        return { status: 204 };
    }
  }

  #purge(zoneId: string, req: IncomingMessage, text: string | undefined): Reply {
    const zone = this.#liveZone(this.state.byId(zoneId));
    if (!zone) return fail(404, 'zone_not_found', 'No such zone');
    const body = jsonBody(req, text);
    if ('status' in body) return body;
    const { purge_everything: everything, files, tags } = body.value;
    const given = [everything, files, tags].filter((value) => value !== undefined).length;
    if (everything !== undefined && typeof everything !== 'boolean') {
      return fail(400, 'invalid_purge', 'purge_everything must be a boolean');
    }
    if (given > 1) {
      return fail(
        400,
        'invalid_purge',
        'Send exactly one of purge_everything, files or tags in a purge request',
      );
    }
    if (everything === true) {
      return ok({ data: { id: this.state.recordPurge(zone.id, 'everything', []).id } });
    }
    const kind = files !== undefined ? 'files' : tags !== undefined ? 'tags' : undefined;
    const items = files ?? tags;
    if (kind === undefined || !Array.isArray(items) || items.length === 0) {
      return fail(400, 'invalid_purge', 'Nothing to purge: give files, tags or purge_everything');
    }
    if (items.length > this.#options.maxPurgeItems) {
      return fail(
        400,
        'too_many_items',
        `At most ${this.#options.maxPurgeItems} ${kind} per purge request`,
      );
    }
    for (const item of items) {
      const problem = kind === 'files' ? fileProblem(item, zone.name) : tagProblem(item);
      if (problem) return fail(400, 'invalid_purge', problem);
    }
    return ok({ data: { id: this.state.recordPurge(zone.id, kind, items as string[]).id } });
  }

  #analytics(zoneId: string, query: URLSearchParams): Reply {
    const zone = this.#liveZone(this.state.byId(zoneId));
    if (!zone) return fail(404, 'zone_not_found', 'No such zone');
    const since = instantParam(query, 'since');
    const until = instantParam(query, 'until');
    const granularity = query.get('granularity');
    if (since === null) return fail(400, 'invalid_since', 'since must be an ISO 8601 date-time');
    if (until === null) return fail(400, 'invalid_until', 'until must be an ISO 8601 date-time');
    if (granularity === null || !isOneOf(granularity, GRANULARITIES)) {
      return fail(400, 'invalid_granularity', 'granularity must be one of minute, hour, day');
    }
    if (since >= until) return fail(400, 'invalid_range', 'since must be before until');
    const step = STEP_MS[granularity as Granularity];
    const points = Math.ceil((until - Math.floor(since / step) * step) / step);
    if (points > this.#options.maxAnalyticsPoints) {
      return fail(
        400,
        'range_too_large',
        `At most ${this.#options.maxAnalyticsPoints} points per request; use a coarser granularity`,
      );
    }
    // Only active zones serve traffic, and none before they were created or after now.
    const buckets =
      this.state.statusOf(zone) === 'active'
        ? syntheticTraffic(
            zone.id,
            { since, until, granularity: granularity as Granularity },
            { from: zone.createdAt, to: this.#clock.now() },
          )
        : [];
    let requests = 0;
    let bandwidth = 0;
    let hits = 0;
    for (const bucket of buckets) {
      requests += bucket.requests;
      bandwidth += bucket.bandwidth;
      hits += bucket.hits;
    }
    return ok({
      data: {
        totals: {
          requests,
          bandwidth,
          cache_hit_rate: requests === 0 ? 0 : Math.round((hits / requests) * 10_000) / 10_000,
        },
        timeseries: buckets.map((bucket) => ({
          timestamp: new Date(bucket.start).toISOString().replace('.000Z', 'Z'),
          requests: bucket.requests,
          bandwidth: bucket.bandwidth,
        })),
      },
    });
  }

  #settings(idOrName: string, req: IncomingMessage, text: string | undefined): Reply {
    const accepts = this.#options.settingsPath;
    const zone = this.#liveZone(
      (accepts !== 'name-only' ? this.state.byId(idOrName) : undefined) ??
        (accepts !== 'id-only' ? this.state.byName(idOrName) : undefined),
    );
    if (!zone) return fail(404, 'zone_not_found', 'No such zone');
    const body = jsonBody(req, text);
    if ('status' in body) return body;
    const unknown = Object.keys(body.value).filter((key) => key !== 'limits');
    if (unknown.length > 0) {
      return fail(400, 'unknown_setting', `Unknown setting: ${unknown.join(', ')}`);
    }
    const limits = body.value.limits as Record<string, unknown> | undefined;
    if (typeof limits !== 'object' || limits === null || typeof limits.enabled !== 'boolean') {
      return fail(400, 'invalid_limits', 'limits.enabled must be a boolean');
    }
    if (limits.mode !== 'automatic') {
      return fail(400, 'invalid_limits', 'limits.mode must be "automatic"');
    }
    zone.limits = { enabled: limits.enabled, mode: 'automatic' };
    return ok({ data: { limits: zone.limits } });
  }

  #liveZone(zone: SandboxZone | undefined): SandboxZone | undefined {
    return zone && !zone.deleted ? zone : undefined;
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return new Sandbox(options).listen(options.port ?? 0, options.host ?? '127.0.0.1');
}

function ok(body: Record<string, unknown>): Reply {
  return { status: 200, body: { success: true, ...body } };
}

function failure(code: string, message: string) {
  return { success: false, errors: [{ code, message }] };
}

function fail(status: number, code: string, message: string): Reply {
  return { status, body: failure(code, message) };
}

function faultReply(fault: Extract<Fault, { kind: 'status' }>): Reply {
  return {
    status: fault.status,
    body: fault.body ?? failure('injected', `Injected ${fault.status}`),
    ...(fault.headers ? { headers: fault.headers } : {}),
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  if (body === undefined) {
    res.writeHead(status, headers).end();
  } else if (typeof body === 'string') {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
  } else {
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify(body));
  }
}

/** The body as text; undefined when empty; null when over the limit. */
async function readBody(req: IncomingMessage): Promise<string | undefined | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return size === 0 ? undefined : Buffer.concat(chunks).toString('utf8');
}

function jsonBody(
  req: IncomingMessage,
  text: string | undefined,
): { value: Record<string, unknown> } | Reply {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    return fail(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json');
  }
  const value = text === undefined ? undefined : tryJson(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(400, 'invalid_json', 'The body must be a JSON object');
  }
  return { value: value as Record<string, unknown> };
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function integerParam(query: URLSearchParams, name: string, fallback: number): number | null {
  const value = query.get(name);
  if (value === null) return fallback;
  return /^\d{1,9}$/.test(value) ? Number(value) : null;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

function instantParam(query: URLSearchParams, name: string): number | null {
  const value = query.get(name);
  if (value === null || !ISO_DATE_TIME.test(value)) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : time;
}

function isOneOf<T extends string>(value: unknown, options: readonly T[]): value is T {
  return typeof value === 'string' && (options as readonly string[]).includes(value);
}

function fileProblem(item: unknown, zoneName: string): string | undefined {
  if (typeof item !== 'string') return 'files must be strings';
  const url = URL.parse(item);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return `Not an http(s) URL: ${item.slice(0, 200)}`;
  }
  if (url.hostname !== zoneName && !url.hostname.endsWith(`.${zoneName}`)) {
    return `URL is outside the zone ${zoneName}: ${item.slice(0, 200)}`;
  }
  return undefined;
}

function tagProblem(item: unknown): string | undefined {
  if (typeof item !== 'string' || item.trim() === '') return 'tags must be non-empty strings';
  if (item.length > 1024) return 'A tag is longer than 1024 characters';
  return undefined;
}
