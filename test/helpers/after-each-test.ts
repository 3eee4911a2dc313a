// What the helpers close after every test (stores, sandboxes, consoles, harnesses), run by the
// afterEach of test/setup/after-each-test.ts. A helper's own module-level afterEach would not do:
// test files that share a worker (isolate: false, see vitest.config.ts) evaluate a helper once, so
// its hook would be registered in the first of those files only. A setup file runs for every file.
const hooks: Array<() => Promise<void>> = [];

/** Runs `hook` after every test, as a module-level afterEach would (the last registered first). */
export function afterEachTest(hook: () => Promise<void>): void {
  hooks.push(hook);
}

/** Runs every hook, the last registered first; each runs even when one before it threw. */
export async function runAfterEachTest(): Promise<void> {
  const errors: unknown[] = [];
  for (const hook of [...hooks].reverse()) {
    try {
      await hook();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, 'afterEach hooks failed');
}
