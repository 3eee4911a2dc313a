// A CDN API server that does what the spec says, strictly, for local use and tests.
// This module is the server: its lifecycle, authorization, fault injection and request log;
// the endpoints live in modules by concern (zones, purge, analytics, settings).
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { type Clock, systemClock } from '../../clock.js';
import {
  endlessPage,
  type Fault,
  Faults,
  faultReply,
  ignoredPaging,
  streamHugeBody,
} from './faults.js';
import { fail, failure, json, type Reply, readBody, tryJson } from './http.js';
import { route } from './routes.js';
import type { SandboxRules } from './rules.js';
import { SandboxState, type SandboxStateSnapshot } from './state.js';
import { listZones } from './zones.js';

export type { Fault } from './faults.js';

export const SANDBOX_DEMO_KEY = 'sandbox-demo-key';

/** Every account's state (SandboxStateSnapshot): the default one, and those of `accounts` by key. */
export interface SandboxSnapshot {
  default: SandboxStateSnapshot;
  accounts: Record<string, SandboxStateSnapshot>;
}

export interface SandboxOptions extends Partial<SandboxRules> {
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
  /**
   * Keys that are accounts of their own, each with its own zones (seeded as said: the demo zones,
   * bulk zones, or active zones of these names; nothing by default). Every other accepted key sees
   * the one default account, `state`.
   */
  accounts?: Record<string, { demoZones?: boolean; bulkZones?: number; zones?: string[] }>;
}

export interface RecordedRequest {
  method: string;
  /** Relative to /v1, e.g. /zones/zone_…/purge. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** 0 when no answer was sent (hang, reset). */
  status: number;
  at: number;
  /** For a `huge-body` fault: the body bytes written before it ended or the client went away. */
  bodyBytesSent?: number;
}

export class Sandbox extends EventEmitter<{ request: [RecordedRequest] }> {
  readonly requests: RecordedRequest[] = [];
  /** Requests being handled now, and the most ever handled at once. */
  readonly load = { inFlight: 0, peak: 0 };
  /** The default account: what every key not listed in `accounts` sees. */
  readonly state: SandboxState;
  readonly #accounts = new Map<string, SandboxState>();
  readonly #faults = new Faults();
  readonly #server: Server;
  readonly #clock: Clock;
  readonly #keys: Set<string>;
  readonly #rules: SandboxRules;
  #url = '';

  constructor(options: SandboxOptions = {}) {
    super();
    this.#clock = options.clock ?? systemClock;
    this.#keys = new Set(options.apiKeys ?? [SANDBOX_DEMO_KEY]);
    this.#rules = {
      maxPurgeItems: options.maxPurgeItems ?? 30,
      maxAnalyticsPoints: options.maxAnalyticsPoints ?? 10_080,
      analyticsUntil: options.analyticsUntil ?? 'exclusive',
      settingsPath: options.settingsPath ?? 'id-or-name',
      createResponse: options.createResponse ?? 'envelope',
    };
    this.state = new SandboxState(this.#clock, options.activationDelayMs ?? 60_000);
    if (options.demoZones ?? true) this.state.seedDemo();
    if (options.bulkZones) this.state.seedBulk(options.bulkZones);
    for (const [key, seed] of Object.entries(options.accounts ?? {})) {
      const account = new SandboxState(this.#clock, options.activationDelayMs ?? 60_000);
      if (seed.demoZones) account.seedDemo();
      if (seed.bulkZones) account.seedBulk(seed.bulkZones);
      for (const name of seed.zones ?? []) account.activate(account.create(name, 'pro').id);
      this.#accounts.set(key, account);
      this.#keys.add(key);
    }
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

  /** Every account's state: the default one first, then those of `accounts` (the edge serves all). */
  get states(): SandboxState[] {
    return [this.state, ...this.#accounts.values()];
  }

  /** Every account's zones, shapes and id sequence, as plain data. */
  snapshot(): SandboxSnapshot {
    return {
      default: this.state.snapshot(),
      accounts: Object.fromEntries(
        [...this.#accounts].map(([key, state]) => [key, state.snapshot()]),
      ),
    };
  }

  /** Puts a snapshot's accounts back; an account it lacks keeps its seed, a key unknown here is skipped. */
  restore(snapshot: SandboxSnapshot): void {
    this.state.restore(snapshot.default);
    for (const [key, saved] of Object.entries(snapshot.accounts))
      this.#accounts.get(key)?.restore(saved);
  }

  /** Calls `listener` after any account's state changes; returns what stops it. */
  onChange(listener: () => void): () => void {
    const stops = this.states.map((state) => state.onChange(listener));
    return () => {
      for (const stop of stops) stop();
    };
  }

  /** The account a key sees: its own (see `accounts`), or the default one. */
  stateFor(apiKey: string): SandboxState {
    return this.#accounts.get(apiKey) ?? this.state;
  }

  inject(fault: Fault): void {
    this.#faults.inject(fault);
  }

  clearFaults(): void {
    this.#faults.clear();
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

    const fault = this.#faults.take(method, path);
    if (fault?.kind === 'latency') await delay(fault.ms);
    if (fault?.kind === 'hold') {
      fault.onHeld?.();
      await fault.until.catch(() => undefined);
    }
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
        : (this.#authorize(req) ??
          route(this.#stateOf(req), this.#clock, this.#rules, {
            method,
            path,
            query: url.searchParams,
            req,
            text,
          }));
    if (fault?.kind === 'status') return finish(faultReply(fault));
    if (fault?.kind === 'hang') return finish();
    // Faults that shape a successful answer: only for a request the sandbox accepted.
    if (reply.status >= 200 && reply.status < 300) {
      if (fault?.kind === 'ignore-paging') {
        const first = new URLSearchParams(url.searchParams);
        first.set('page', '1');
        return finish(
          ignoredPaging(listZones(this.#stateOf(req), first), url.searchParams, fault.total),
        );
      }
      if (fault?.kind === 'endless-paging') {
        return finish(endlessPage(url.searchParams, new Date(this.#clock.now()).toISOString()));
      }
      if (fault?.kind === 'huge-body') {
        record.status = 200;
        record.bodyBytesSent = await streamHugeBody(res, fault.bytes, fault.declareLength ?? false);
        return finish();
      }
    }
    return finish(reply);
  }

  #stateOf(req: IncomingMessage): SandboxState {
    return this.stateFor(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
  }

  #authorize(req: IncomingMessage): Reply | undefined {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer (.+)$/.exec(header);
    if (!match) return fail(401, 'unauthorized', 'Missing bearer token');
    if (!this.#keys.has(match[1] ?? '')) return fail(401, 'unauthorized', 'Invalid API key');
    return undefined;
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return new Sandbox(options).listen(options.port ?? 0, options.host ?? '127.0.0.1');
}
