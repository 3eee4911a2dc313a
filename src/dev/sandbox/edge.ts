// The sandbox CDN's edge: serves any URL of the sandbox's live zones (by Host header) from a
// pretend cache, with cache headers, so purge verification has something real to read.
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { type Clock, systemClock } from '../../clock.js';
import type { SandboxState, SandboxZone } from './state.js';

export type EdgeHeaderMode = 'cache-status' | 'x-cache' | 'none';

export type EdgeBehaviour =
  | { kind: 'redirect'; location: string; status?: number }
  | { kind: 'head-refused' }
  | { kind: 'slow'; ms: number }
  /** HEAD refused, and GET answers with this many body bytes. */
  | { kind: 'huge-body'; bytes: number };

export interface SandboxEdgeOptions {
  clock?: Clock;
  /** How long after a purge the edge still serves the old copy. Default 0. */
  purgeDelayMs?: number;
  /** How long a copy lives (for `ttl=`). Default a day. */
  maxAgeSeconds?: number;
}

export interface EdgeRequest {
  method: string;
  host: string;
  path: string;
  status: number;
  /** Body bytes written before the answer ended or the client went away. */
  bodyBytesSent: number;
}

/** A zone serving a host, and the CDN account holding it. */
interface ServingZone {
  account: SandboxState;
  zone: SandboxZone;
}

const DAY_SECONDS = 86_400;
/** How old every copy is at the start: cached an hour before the edge started. */
const SEEDED_AGE_MS = 3_600_000;

/**
 * One edge serves every CDN account's zones (as a real CDN's edge network does): a purge in any
 * account whose zone serves the host takes effect, so verifying a purge of `staging` works. Every
 * URL starts cached long ago; a purge (of the URL, or everything) takes effect `purgeDelayMs`
 * after the sandbox recorded it; the next request is then a miss that refills the cache, later
 * ones hits. Headers by mode, per host: RFC 9211 Cache-Status (`SandboxEdge; hit; ttl=…`,
 * `SandboxEdge; fwd=miss; stored`) with Age; the older Age + X-Cache; or none at all. Per-path
 * behaviours make a redirect, a refused HEAD, a slow answer or a huge body.
 */
export class SandboxEdge extends EventEmitter<{
  /** A request came in (its answer is still to come). */
  arrived: [{ method: string; host: string; path: string }];
  /** A request was answered (or its client went away). */
  request: [EdgeRequest];
}> {
  readonly requests: EdgeRequest[] = [];
  /** The CDN accounts whose zones this edge serves (the sandbox's default account first). */
  readonly #accounts: SandboxState[];
  readonly #clock: Clock;
  readonly #server: Server;
  #purgeDelayMs: number;
  readonly #maxAge: number;
  readonly #startedAt: number;
  /** When each URL (host + path) was last stored, once refilled after a purge. */
  readonly #stored = new Map<string, number>();
  readonly #modes = new Map<string, EdgeHeaderMode>();
  readonly #behaviours = new Map<string, EdgeBehaviour>();
  #address = { host: '127.0.0.1', port: 0 };

  constructor(accounts: SandboxState | readonly SandboxState[], options: SandboxEdgeOptions = {}) {
    super();
    this.#accounts = Array.isArray(accounts) ? [...accounts] : [accounts as SandboxState];
    this.#clock = options.clock ?? systemClock;
    this.#purgeDelayMs = options.purgeDelayMs ?? 0;
    this.#maxAge = options.maxAgeSeconds ?? DAY_SECONDS;
    this.#startedAt = this.#clock.now();
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    });
  }

  /** Where the bot's prober connects in development and tests (EdgeProbeOptions.edgeAddress). */
  get address(): { host: string; port: number } {
    return this.#address;
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => resolve());
    });
    this.#address = { host, port: (this.#server.address() as AddressInfo).port };
    return this;
  }

  /** Serves this CDN account's zones too (a second sandbox standing in for another account). */
  serve(account: SandboxState): void {
    if (!this.#accounts.includes(account)) this.#accounts.push(account);
  }

  /** How long after a purge the old copy is still served, from now on. */
  setPurgeDelay(ms: number): void {
    this.#purgeDelayMs = ms;
  }

  /** Which headers a host's answers carry (default `cache-status`). */
  setMode(host: string, mode: EdgeHeaderMode): void {
    this.#modes.set(host.toLowerCase(), mode);
  }

  /** How one URL (`host/path`, no scheme) behaves from now on. */
  behave(hostAndPath: string, behaviour: EdgeBehaviour): void {
    this.#behaviours.set(hostAndPath.toLowerCase(), behaviour);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const path = req.url ?? '/';
    const key = `${host}${path}`;
    const record: EdgeRequest = { method, host, path, status: 0, bodyBytesSent: 0 };
    this.emit('arrived', { method, host, path });
    const finish = (status: number, headers: Record<string, string>, body = '') => {
      record.status = status;
      res.writeHead(status, headers);
      res.end(method === 'HEAD' ? undefined : body);
      this.#log(record);
    };
    const zones = this.#zonesOf(host);
    if (zones.length === 0)
      return finish(404, { 'content-type': 'text/plain' }, 'no zone serves this host\n');
    const behaviour = this.#behaviours.get(key.toLowerCase());
    if (behaviour?.kind === 'slow') await delay(behaviour.ms);
    if (behaviour?.kind === 'redirect') {
      return finish(behaviour.status ?? 301, { location: behaviour.location });
    }
    if (
      (behaviour?.kind === 'head-refused' || behaviour?.kind === 'huge-body') &&
      method === 'HEAD'
    )
      return finish(405, { allow: 'GET' });
    if (method !== 'GET' && method !== 'HEAD') return finish(405, { allow: 'GET, HEAD' });
    const headers = { 'content-type': 'text/plain', ...this.#cacheHeaders(zones, host, path) };
    if (behaviour?.kind === 'huge-body') {
      record.status = 200;
      res.writeHead(200, { ...headers, 'content-length': String(behaviour.bytes) });
      record.bodyBytesSent = await streamBytes(res, behaviour.bytes);
      return this.#log(record);
    }
    finish(200, headers, `sandbox edge: ${host}${path}\n`);
  }

  /** The cache's answer for one URL, as headers; a copy purged long enough ago is refilled now. */
  #cacheHeaders(
    zones: ReadonlyArray<ServingZone>,
    host: string,
    path: string,
  ): Record<string, string> {
    const now = this.#clock.now();
    const key = `${host}${path}`;
    const storedAt = this.#stored.get(key) ?? this.#startedAt - SEEDED_AGE_MS;
    const purgedAt = this.#lastPurge(zones, host, path);
    const gone =
      purgedAt !== undefined && purgedAt + this.#purgeDelayMs <= now && storedAt < purgedAt;
    if (gone) this.#stored.set(key, now);
    const age = gone ? 0 : Math.max(0, Math.floor((now - storedAt) / 1000));
    const ttl = Math.max(0, this.#maxAge - age);
    switch (this.#modes.get(host) ?? 'cache-status') {
      case 'none':
        return {};
      case 'x-cache':
        return { age: String(age), 'x-cache': gone ? 'MISS' : 'HIT' };
      case 'cache-status':
        return {
          age: String(age),
          'cache-status': gone ? 'SandboxEdge; fwd=miss; stored' : `SandboxEdge; hit; ttl=${ttl}`,
        };
    }
  }

  /** When any account last purged this URL (any scheme) or everything of its zone serving it. */
  #lastPurge(zones: ReadonlyArray<ServingZone>, host: string, path: string): number | undefined {
    let last: number | undefined;
    const purges = zones.flatMap(({ account, zone }) =>
      account.purges.filter((purge) => purge.zoneId === zone.id),
    );
    for (const purge of purges) {
      const covers =
        purge.kind === 'everything' ||
        (purge.kind === 'files' &&
          purge.items.some((item) => {
            const url = URL.parse(item);
            return url !== null && url.hostname === host && `${url.pathname}${url.search}` === path;
          }));
      if (covers) last = Math.max(last ?? 0, purge.at);
    }
    return last;
  }

  /**
   * In each account, the live, active zone that serves `host`: the longest zone name it ends
   * with. Several accounts may hold a zone of that name (the console's `staging` holds
   * static.example.com too): a purge in any of them takes the copy out.
   */
  #zonesOf(host: string): ServingZone[] {
    return this.#accounts.flatMap((account) => {
      const [zone] = account
        .list('active')
        .filter((zone) => host === zone.name || host.endsWith(`.${zone.name}`))
        .sort((a, b) => b.name.length - a.name.length);
      return zone ? [{ account, zone }] : [];
    });
  }

  #log(record: EdgeRequest): void {
    this.requests.push(record);
    this.emit('request', record);
  }
}

/** Writes `bytes` of filler in 64 KiB chunks, stopping when the client goes away. */
async function streamBytes(res: ServerResponse, bytes: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  while (sent < bytes && !res.destroyed) {
    const part = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
    const more = res.write(part);
    sent += part.length;
    if (!more) {
      const drained = await new Promise<boolean>((resolve) => {
        const settle = (value: boolean) => () => {
          res.off('drain', onDrain).off('close', onClose);
          resolve(value);
        };
        const onDrain = settle(true);
        const onClose = settle(false);
        res.once('drain', onDrain).once('close', onClose);
      });
      if (!drained) break;
    }
  }
  if (!res.destroyed) res.end();
  return sent;
}

export async function startSandboxEdge(
  accounts: SandboxState | readonly SandboxState[],
  options: SandboxEdgeOptions & { port?: number; host?: string } = {},
): Promise<SandboxEdge> {
  return new SandboxEdge(accounts, options).listen(options.port ?? 0, options.host ?? '127.0.0.1');
}
