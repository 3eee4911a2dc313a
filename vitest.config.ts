import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The fault tests start bot processes (two or three at once, each with its chart workers) and
 * measure them against deadlines: two of them side by side on two cores starve each other's bots
 * past those deadlines. They run last, one file at a time, with nothing else beside them.
 */
const FAULT = 'test/fault/**/*.test.ts';

export default defineConfig({
  test: {
    reporters: ['default', './test/summary-reporter.ts'],
    // Forks keep native addons (better-sqlite3, canvas) out of worker threads.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A test that leaves a handle open is a bug; surface it instead of hanging CI.
    teardownTimeout: 5_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'tests',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, FAULT],
          // At least two files at a time (vitest's own default is one on two cores): the start-up
          // tests mostly wait on other processes (a bot starting), and a second file runs in those
          // waits.
          maxWorkers: Math.max(2, availableParallelism() - 1),
        },
      },
      {
        extends: true,
        // One worker, no group order of its own: vitest runs these files after the others, one
        // at a time.
        test: { name: 'fault', include: [FAULT], maxWorkers: 1 },
      },
    ],
  },
});
