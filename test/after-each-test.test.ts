// What a test opens through the helpers is closed after that test, in every test file, also in a
// worker where other files ran first and imported the helpers (isolate: false, vitest.config.ts):
// a helper's own module-level afterEach ran in the first such file only.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect, it } from 'vitest';
import { cdnFixture } from './helpers/cdn.js';
import { testDatabase } from './helpers/store.js';

let folder = '';
let sandboxUrl = '';

it('opens a database and a CDN sandbox', async () => {
  const database = await testDatabase('sqlite');
  if (database.kind !== 'sqlite') throw new Error('a SQLite database was asked for');
  folder = dirname(database.path);
  expect(existsSync(folder)).toBe(true);
  sandboxUrl = (await cdnFixture()).sandbox.url;
  expect((await fetch(`${sandboxUrl}/`)).status).toBeGreaterThan(0);
});

it('finds them closed after that test', async () => {
  expect(existsSync(folder)).toBe(false);
  await expect(fetch(`${sandboxUrl}/`)).rejects.toThrow('fetch failed');
});
