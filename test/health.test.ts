import { EventEmitter } from 'node:events';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Health, LIVENESS_WINDOW_MS } from '../src/health.js';
import { BackgroundWork } from '../src/jobs/background.js';
import { livenessWindows } from '../src/jobs/recurring.js';
import type { JobRunner } from '../src/jobs/runner.js';
import { ManualClock } from './helpers/clock.js';
import { captureLogs } from './helpers/logs.js';
import { freePort } from './helpers/net.js';
import { BACKENDS, POSTGRES_URL } from './helpers/store.js';

const never = () => new Promise<never>(() => undefined);

describe('Health', () => {
  it('is ready while the database answers, and says why not when it does not', async () => {
    let answer: () => Promise<unknown> = async () => undefined;
    const health = new Health(() => answer(), { store: 'sqlite', databaseCheckMs: 50 });
    expect(await health.readiness()).toEqual({
      ready: true,
      store: 'sqlite',
      database: 'ok',
      draining: false,
    });
    answer = async () => {
      throw new Error('ECONNREFUSED');
    };
    expect(await health.readiness()).toMatchObject({ ready: false, database: 'unreachable' });
  });

  it('answers within its deadline when the database hangs, and asks once however many probes wait', async () => {
    let pings = 0;
    const health = new Health(
      () => {
        pings++;
        return never();
      },
      { store: 'sqlite', databaseCheckMs: 50 },
    );
    const reports = await Promise.all([health.readiness(), health.readiness(), health.readiness()]);
    for (const report of reports) expect(report).toMatchObject({ ready: false, database: 'slow' });
    expect(pings).toBe(1);
  });

  it('follows the Socket Mode connection', async () => {
    const health = new Health(async () => undefined, { store: 'sqlite' });
    const socket = new EventEmitter();
    health.watchSocket(socket);
    expect(await health.readiness()).toMatchObject({ ready: false, socket: 'connecting' });
    socket.emit('connected');
    expect(await health.readiness()).toMatchObject({ ready: true, socket: 'connected' });
    socket.emit('reconnecting');
    expect(await health.readiness()).toMatchObject({ ready: false, socket: 'reconnecting' });
    socket.emit('connected');
    expect((await health.readiness()).ready).toBe(true);
  });

  it('is not ready once draining, whatever else holds', async () => {
    const health = new Health(async () => undefined, { store: 'sqlite' });
    health.markDraining();
    expect(await health.readiness()).toEqual({
      ready: false,
      store: 'sqlite',
      database: 'ok',
      draining: true,
    });
  });

  it('reports the event loop delay on /livez, in milliseconds', () => {
    const live = new Health(async () => undefined, { store: 'sqlite' }).liveness();
    expect(live.ok).toBe(true);
    const { p99, max } = live.eventLoopDelayMs;
    expect(Number.isFinite(p99) && Number.isFinite(max)).toBe(true);
    expect(max).toBeGreaterThanOrEqual(p99);
  });

  it('keeps a stall on /livez for every reader until its window of time closes (issue 32, item 7)', async () => {
    const health = new Health(async () => undefined, { store: 'sqlite' });
    const clock = new ManualClock();
    // The app's recurring entry, each process's own: no job, the runner is not used.
    const runner = { start: () => undefined, stop: async () => undefined } as unknown as JobRunner;
    const background = new BackgroundWork(runner, captureLogs().logger, clock);
    background.every(livenessWindows(LIVENESS_WINDOW_MS, () => health.closeWindow()));
    try {
      // The sampler's first tick (every 20 ms) has to have run for it to measure a late one.
      await new Promise((resolve) => setTimeout(resolve, 60));
      // A stall of 200 ms; the histogram records it at its next sample, once the loop is free.
      const until = performance.now() + 200;
      while (performance.now() < until) {
        // busy: the event loop is blocked
      }
      await expect
        .poll(() => health.liveness().eventLoopDelayMs.max, { interval: 5 })
        .toBeGreaterThanOrEqual(150);
      // Anyone reading the probe, however often, sees the stall: reading resets nothing.
      for (let i = 0; i < 5; i++) {
        expect(health.liveness().eventLoopDelayMs.max).toBeGreaterThanOrEqual(150);
      }
      expect(health.liveness().eventLoopDelayMs.last).toBeUndefined();
      background.start();
      // The window closes on the clock: the stall is now the last window's, the new one is calm.
      await clock.sleepers(1);
      clock.advance(LIVENESS_WINDOW_MS);
      await expect.poll(() => health.liveness().eventLoopDelayMs.last).toBeDefined();
      const live = health.liveness().eventLoopDelayMs;
      expect(live.last?.max).toBeGreaterThanOrEqual(150);
      expect(live.max).toBeLessThan(150);
      expect(live.windowSeconds).toBe(LIVENESS_WINDOW_MS / 1000);
    } finally {
      await background.stop(1_000);
    }
  });

  it('names the store kind, sqlite or postgres, and nothing of where it is', async () => {
    const health = new Health(async () => undefined, { store: 'postgres' });
    expect(await health.readiness()).toMatchObject({ ready: true, store: 'postgres' });
  });

  /** `select 1` on a fresh connection to `url`, as the store's ping is. */
  const pingAt = (url: string) => async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('select 1');
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  it('says why the database is unreachable, never where it is', async () => {
    const port = await freePort();
    const health = new Health(pingAt(`postgres://bot:pw@127.0.0.1:${port}/db`), {
      store: 'postgres',
    });
    const report = await health.readiness();
    expect(report).toMatchObject({
      ready: false,
      database: 'unreachable',
      databaseError: 'connection refused (ECONNREFUSED)',
    });
    expect(JSON.stringify(report)).not.toContain(String(port));
  });

  it('says the slow database did not answer in time', async () => {
    const health = new Health(never, { store: 'sqlite', databaseCheckMs: 200 });
    expect(await health.readiness()).toMatchObject({
      database: 'slow',
      databaseError: 'no answer within 0.2 s',
    });
  });

  it.skipIf(BACKENDS[1]?.skip)(
    'tells a refused login apart from a database out of reach',
    async () => {
      const url = new URL(POSTGRES_URL);
      url.username = 'no_such_role_readyz';
      url.password = '';
      const health = new Health(pingAt(url.href), { store: 'postgres' });
      expect(await health.readiness()).toMatchObject({
        ready: false,
        database: 'refused',
        databaseError: expect.stringMatching(/^login refused \(28(000|P01)\)$/),
      });
    },
  );
});
