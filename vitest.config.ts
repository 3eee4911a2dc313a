import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/longest-first-sequencer.js';

/**
 * The fault tests start bot processes (two or three at once, each with its chart workers) and
 * measure some of them against the bounds they promise (a stop within SHUTDOWN_TIMEOUT_MS, an
 * answer within the Slack budget). They run after the other tests, three files at a time: their
 * bots mostly wait (on a lease, a held call, a deadline), so other files run in those waits. The
 * watch test (2 and 3 bots drawing 200 charts) starts first, as the longest, and the others run
 * beside it (106 s for the group where running it alone after them took 168 s, idle).
 */
const FAULT = 'test/fault/**/*.test.ts';
export default defineConfig({
  test: {
    reporters: ['default', './test/summary-reporter.ts'],
    // The longest files first (test/longest-first-sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // Forks keep native addons (better-sqlite3, canvas) out of worker threads.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A test that leaves a handle open is a bug; surface it instead of hanging CI.
    teardownTimeout: 5_000,
    // Before every test file: the helpers' after-each hooks (test/helpers/after-each-test.ts).
    setupFiles: ['./test/setup/after-each-test.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'tests',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, FAULT],
          // Files share their worker's process and modules: Bolt, Kysely, canvas, chart.js… are
          // imported once per worker, not once per file (that was a third of the run). A file
          // leaves nothing behind (no env, no mocks, no listeners; the helpers close what they
          // open after each test), so the next one starts as from a fresh process.
          isolate: false,
          // One file more than the cores (vitest's own default is one on two cores): many files
          // wait on other processes (a bot starting, a database, a socket reconnecting), and the
          // extra file runs in those waits. On 2 cores, 3 workers took 358 s and 422 s where 2 took
          // 526 s and 520 s, back to back at load 8-11.
          maxWorkers: availableParallelism() + 1,
        },
      },
      {
        extends: true,
        // Groups run one after another, in this order.
        test: {
          name: 'fault',
          include: [FAULT],
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
