// Who owns what, read from the source: background work is started in one place per mode, the
// jobs tables are written by the jobs repository alone, and the job runner's lease is the only one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every .ts file under `dir`, with its text. */
function sources(dir: string): Array<{ path: string; text: string }> {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name))
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

/** The files (and how often) where `pattern` occurs. */
function occurrences(files: Array<{ path: string; text: string }>, pattern: RegExp) {
  return Object.fromEntries(
    files
      .map(({ path, text }) => [path, text.match(new RegExp(pattern, 'g'))?.length ?? 0] as const)
      .filter(([, count]) => count > 0),
  );
}

describe('background work has one owner', () => {
  const src = sources('src');

  it('is started once per mode: by src/main.ts, and in console mode by the console entry', () => {
    expect(occurrences(src, /\bbackground\.start\(\)/)).toEqual({
      'src/main.ts': 1,
      'src/dev/console/main.ts': 1,
    });
  });

  it('nothing else starts the runner or a tick of its own', () => {
    // The runner is started by BackgroundWork, and recurring work is declared in src/jobs.
    expect(occurrences(src, /\brunner\.start\(\)|this\.#runner\.start\(\)/)).toEqual({
      'src/jobs/background.ts': 1,
    });
    expect(occurrences(src, /\brecurringWork\(/)).toEqual({
      'src/jobs/recurring.ts': 1,
      'src/app.ts': 1,
    });
  });

  it('has its loops and timers in src/jobs alone (and the clock they sleep on)', () => {
    // Services expose one round of their work; src/jobs/recurring.ts says how often it runs.
    const outside = src.filter(
      ({ path }) =>
        !path.startsWith('src/jobs/') && path !== 'src/clock.ts' && !path.startsWith('src/dev/'),
    );
    expect(occurrences(outside, /(?<![.\w])repeat\(|\bsetInterval\(/)).toEqual({});
  });
});

describe('the jobs tables', () => {
  it('are read and written by src/store/jobs.ts alone (migrations aside)', () => {
    const store = sources('src/store').filter(
      ({ path }) => !path.startsWith('src/store/migrations'),
    );
    const tables = /\b(selectFrom|insertInto|updateTable|deleteFrom)\(\s*'(jobs|job_steps)'/;
    expect(Object.keys(occurrences(store, tables))).toEqual(['src/store/jobs.ts']);
  });
});

describe('leases', () => {
  // Outside the runner and its repository (and the migrations, which keep old tables' history).
  const outside = sources('src').filter(
    ({ path }) =>
      !path.startsWith('src/jobs/') &&
      path !== 'src/store/jobs.ts' &&
      !path.startsWith('src/store/migrations/') &&
      !path.startsWith('src/dev/'),
  );

  it('are the job runner’s alone: no other table’s lease columns are read or written', () => {
    // The schema declares the jobs table's (the only table with a lease): nothing else names them.
    expect(occurrences(outside, /\blease_?(owner|until)\b/i)).toEqual({
      'src/store/schema.ts': 2,
    });
  });

  it('are never taken by a store or a service: work held by one replica is a job of the runner', () => {
    const storesAndServices = outside.filter(
      ({ path }) => path.startsWith('src/store/') || path.startsWith('src/services/'),
    );
    expect(occurrences(storesAndServices, /\blease(Ms|_ms)\b|\bclaim\(/)).toEqual({});
  });
});
