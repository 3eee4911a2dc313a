import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    // Forks keep native addons (better-sqlite3, canvas) out of worker threads.
    pool: 'forks',
    // At least two files at a time (vitest's own default is one on two cores): the fault and
    // start-up tests mostly wait on other processes (leases, deadlines, a bot starting), and a
    // second file runs in those waits.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A test that leaves a handle open is a bug; surface it instead of hanging CI.
    teardownTimeout: 5_000,
  },
});
