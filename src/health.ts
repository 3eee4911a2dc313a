// Health endpoints for orchestrators and load balancers. /livez: the process and its event loop
// answer, with the event loop's delay over fixed windows of time (a read changes nothing: every
// reader sees the same figures until the window closes). /readyz: it can serve (the database answers within a second, Socket Mode is connected,
// it is not draining for a stop). /healthz: /livez under its older name. Each answers within 2 s
// whatever the database does: its check is raced against a deadline and shared by probes that
// arrive while one is under way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { CustomRoute } from '@slack/bolt';
import {
  databaseLoginRefusal,
  formatSeconds,
  unreachableOf,
  unreachableReason,
} from './network-failures.js';

/** How long /readyz waits for `select 1` before it says the database does not answer. */
export const DATABASE_CHECK_MS = 1_000;
/** The event loop's delay is reported over windows this long: the one under way and the last. */
export const LIVENESS_WINDOW_MS = 60_000;

/** The event loop's delay over a window, in ms: its 99th percentile and its worst. */
export interface DelayFigures {
  p99: number;
  max: number;
}

export interface LivenessReport {
  ok: true;
  /** The window under way (since it began); `last`, the last complete window, once there is one. */
  eventLoopDelayMs: DelayFigures & { windowSeconds: number; last?: DelayFigures };
}

type SocketState = 'connecting' | 'connected' | 'reconnecting' | 'disconnected';

/** What a Socket Mode client reports (the client of @slack/socket-mode is an EventEmitter). */
interface SocketEvents {
  on(
    event: 'connecting' | 'connected' | 'reconnecting' | 'disconnected',
    listener: () => void,
  ): unknown;
}

export interface ReadinessReport {
  ready: boolean;
  /** Which store this replica uses (never where it is: the URL may hold a password). */
  store: 'sqlite' | 'postgres';
  /** `refused`: the database was reached and refused the login (SQLSTATE class 28). */
  database: 'ok' | 'unreachable' | 'refused' | 'slow';
  /**
   * Why not ok, in a few words: "connection refused (ECONNREFUSED)", "login refused (28P01)",
   * "no answer within 1 s". Never where the database is: this endpoint may be public.
   */
  databaseError?: string;
  socket?: SocketState;
  draining: boolean;
}

export class Health {
  readonly #ping: () => Promise<unknown>;
  readonly #checkMs: number;
  readonly #store: ReadinessReport['store'];
  readonly #delay = monitorEventLoopDelay({ resolution: 20 });
  #lastWindow: DelayFigures | undefined;
  #draining = false;
  #socket: SocketState | undefined;
  #check: Promise<DatabaseCheck> | undefined;

  /** `ping` asks the `store` database something trivial (`select 1`). */
  constructor(
    ping: () => Promise<unknown>,
    options: { store: ReadinessReport['store']; databaseCheckMs?: number },
  ) {
    this.#ping = ping;
    this.#store = options.store;
    this.#checkMs = options.databaseCheckMs ?? DATABASE_CHECK_MS;
    this.#delay.enable();
  }

  /** A stop has begun: not ready from now on, so no new work is routed here. */
  markDraining(): void {
    this.#draining = true;
  }

  /** Follows a Socket Mode client's connection: ready only while it is connected. */
  watchSocket(client: SocketEvents): void {
    this.#socket = 'connecting';
    for (const state of ['connecting', 'connected', 'reconnecting', 'disconnected'] as const) {
      client.on(state, () => {
        this.#socket = state;
      });
    }
  }

  async readiness(): Promise<ReadinessReport> {
    const { database, error } = await this.#database();
    const socketReady = this.#socket === undefined || this.#socket === 'connected';
    return {
      ready: database === 'ok' && socketReady && !this.#draining,
      store: this.#store,
      database,
      ...(error ? { databaseError: error } : {}),
      ...(this.#socket ? { socket: this.#socket } : {}),
      draining: this.#draining,
    };
  }

  /**
   * The event loop's delay in the window under way and in the last complete one. Reading it
   * changes nothing: only the end of a window (`closeWindow`, on a timer) starts a new one.
   */
  liveness(): LivenessReport {
    return {
      ok: true,
      eventLoopDelayMs: {
        ...figures(this.#delay),
        windowSeconds: LIVENESS_WINDOW_MS / 1000,
        ...(this.#lastWindow ? { last: this.#lastWindow } : {}),
      },
    };
  }

  /** Ends the window under way: its figures become the last window's, and a new one begins. */
  closeWindow(): void {
    this.#lastWindow = figures(this.#delay);
    this.#delay.reset();
  }

  routes(): CustomRoute[] {
    const live = (_req: IncomingMessage, res: ServerResponse) => json(res, 200, this.liveness());
    return [
      { path: '/livez', method: ['GET'], handler: live },
      { path: '/healthz', method: ['GET'], handler: live },
      {
        path: '/readyz',
        method: ['GET'],
        handler: (_req, res) => {
          this.readiness().then(
            (report) => json(res, report.ready ? 200 : 503, report),
            () => json(res, 503, { ready: false }),
          );
        },
      },
    ];
  }

  /** One `select 1` at a time, however many probes ask; "slow" past the deadline. */
  #database(): Promise<DatabaseCheck> {
    this.#check ??= this.#ping()
      .then(() => ({ database: 'ok' as const }), databaseCheckFailure)
      .finally(() => {
        this.#check = undefined;
      });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<DatabaseCheck>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({ database: 'slow', error: `no answer within ${formatSeconds(this.#checkMs)}` }),
        this.#checkMs,
      );
    });
    return Promise.race([this.#check, late]).finally(() => clearTimeout(timer));
  }
}

function figures(delay: { percentile(p: number): number; max: number }): DelayFigures {
  const toMs = (ns: number) => Math.round(ns / 1e5) / 10;
  return { p99: toMs(delay.percentile(99)), max: toMs(delay.max) };
}

interface DatabaseCheck {
  database: ReadinessReport['database'];
  error?: string;
}

/** A failed `select 1`: the login refused (SQLSTATE class 28), or the database out of reach. */
function databaseCheckFailure(error: unknown): DatabaseCheck {
  const refused = databaseLoginRefusal(error);
  if (refused) return { database: 'refused', error: `login refused (${refused})` };
  const unreachable = unreachableOf(error);
  return unreachable
    ? { database: 'unreachable', error: unreachableReason(unreachable) }
    : { database: 'unreachable' };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    .end(JSON.stringify(body));
}
