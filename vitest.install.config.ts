// The production-install smoke test (test/*.smoke.ts), run by `npm test` after the main suite:
// `npm ci --omit=dev` compiles native modules, so it gets minutes, and runs alone.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.smoke.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 15 * 60_000,
    teardownTimeout: 30_000,
  },
});
