import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    // Forks keep native addons (better-sqlite3, canvas) out of worker threads.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A test that leaves a handle open is a bug; surface it instead of hanging CI.
    teardownTimeout: 5_000,
  },
});
