// Stopping the bot: SIGTERM when idle, SIGTERM with a purge-everything stuck in the CDN call, and
// a second signal during the stop. The bot runs as a child process (see bot-process.ts); a second
// process on the same database shows what a stop left behind.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/store.js';
import { SQLITE } from './backends.js';
import { type Backend, startWorld } from './bot-process.js';
import {
  approvedThen,
  everythingCalls,
  HANG_AFTER_PURGE,
  isEverything,
  jobsOf,
  outcome,
  resumed,
  STOP_MARGIN_MS,
  shared,
  TEST_TIMEOUT_MS,
  updated,
  updatesOf,
} from './flows.js';

/**
 * The CDN does the purge and never answers; the first bot gets SIGTERM (SHUTDOWN_TIMEOUT_MS 1 s)
 * while it waits, and a second takes the job over. Resolves with how that stop went, the job as
 * the stop left it, and what the world saw once the second bot finished the job and stopped.
 */
async function stoppedInTheCall(backend: Backend) {
  const world = await startWorld({ backend });
  world.sandbox.inject(HANG_AFTER_PURGE);
  const shutdownMs = 1_000;
  const { first, message } = await approvedThen(world, () => world.sandbox.waitFor(isEverything), {
    SHUTDOWN_TIMEOUT_MS: String(shutdownMs),
  });
  const started = performance.now();
  const exit = await first.kill('SIGTERM');
  const took = performance.now() - started;
  const jobs = await jobsOf(world);

  const before = updatesOf(world, message).length;
  const second = await world.spawnBot();
  await resumed(second);
  await updated(world, message, before + 1);
  expect(await second.kill('SIGTERM')).toEqual({ code: 0, signal: null });
  return { message, first, exit, took, shutdownMs, jobs, ...(await outcome(world)) };
}

describe.each(BACKENDS)('stopping the bot ($backend)', ({ backend, skip }) => {
  const stoppedMidCall = shared(() => stoppedInTheCall(backend));

  it.skipIf(skip)(
    'SIGTERM while idle: exits 0 within SHUTDOWN_TIMEOUT_MS and frees its port',
    async () => {
      const world = await startWorld({ backend });
      const shutdownMs = 3_000;
      const bot = await world.spawnBot({ SHUTDOWN_TIMEOUT_MS: String(shutdownMs) });
      expect((await fetch(`${bot.url}/healthz`)).status).toBe(200);
      const started = performance.now();
      const exit = await bot.kill('SIGTERM');
      const took = performance.now() - started;
      expect(exit).toEqual({ code: 0, signal: null });
      expect(took).toBeLessThan(shutdownMs + STOP_MARGIN_MS);
      expect(bot.output()).toContain('"signal":"SIGTERM"');
      expect(bot.output()).toContain('shutting down');
      expect(bot.output()).not.toContain('timed out');
      expect(await portIsFree(bot.port)).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  it.skipIf(skip)(
    'SIGTERM in the CDN call: the job is released at the deadline, and the next process calls no more',
    async () => {
      const { first, jobs, calls, approval, entries } = await stoppedMidCall();
      expect(first.output()).toContain('jobs did not pause in time; their leases are released');
      expect(jobs).toEqual([
        expect.objectContaining({ state: 'queued', lease_owner: null, attempts: 1 }),
      ]);
      expect(JSON.parse(jobs[0]?.checkpoint ?? '{}')).toEqual({ calling: true });
      expect(calls).toHaveLength(1);
      expect(approval).toMatchObject({ status: 'approved', outcome: 'unknown' });
      expect(entries).toEqual([
        expect.objectContaining({
          outcome: 'unknown',
          detail: expect.objectContaining({
            error: 'the bot stopped while the CDN call was in flight',
          }),
        }),
      ]);
    },
    TEST_TIMEOUT_MS,
  );

  // BUG (src/lifecycle.ts stopOnSignals, CdnTransport.close): once the runner has released the
  // job at SHUTDOWN_TIMEOUT_MS, the stop closes the CDN transport, and undici's Agent.close()
  // waits for the request still in flight (the abandoned purge call, until the client's own
  // 10 s deadline). The stop hangs past the margin: "graceful shutdown timed out", exit 1,
  // SHUTDOWN_TIMEOUT_MS + 5 s after the signal, although nothing was left to wait for.
  it.skipIf(skip)(
    'SIGTERM in the CDN call: exits 0 once the job is released, within SHUTDOWN_TIMEOUT_MS',
    async () => {
      const { first, exit, took, shutdownMs } = await stoppedMidCall();
      expect(first.output()).not.toContain('graceful shutdown timed out');
      expect(exit).toEqual({ code: 0, signal: null });
      expect(took).toBeLessThan(shutdownMs + STOP_MARGIN_MS);
    },
    TEST_TIMEOUT_MS,
  );
});

// The process's own exit, whatever the store: on one database (backends.ts).
describe('stopping the bot, twice (sqlite)', () => {
  it(
    'a second SIGTERM while stopping (a job stuck in the CDN call) exits at once',
    async () => {
      const world = await startWorld({ backend: SQLITE.backend });
      world.sandbox.inject(HANG_AFTER_PURGE);
      // The stop waits for the job until the CDN client's own deadline (10 s) ends the call.
      const shutdownMs = 60_000;
      const { first: bot } = await approvedThen(world, () => world.sandbox.waitFor(isEverything), {
        SHUTDOWN_TIMEOUT_MS: String(shutdownMs),
      });
      void bot.kill('SIGTERM');
      await bot.waitForLog('shutting down');
      const started = performance.now();
      const exit = await bot.kill('SIGTERM');
      expect(performance.now() - started).toBeLessThan(STOP_MARGIN_MS);
      expect(exit).toEqual({ code: 1, signal: null });
      expect(bot.output()).toContain('stopping at once');
      expect(everythingCalls(world)).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );
});

/** Whether nothing listens on `port` any more (a new server can bind it). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
