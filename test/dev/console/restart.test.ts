// `npm start` twice over the same ./data: the embedded sandbox keeps its state beside the
// console's database (data/console/sandbox.json), so a zone created in one session is still the
// CDN's in the next, as the database (its audit entry, its zone index) says; with one of the two
// gone, both start afresh and the console says so (consoleData).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { consoleData } from '../../../src/dev/console/data.js';
import { SANDBOX_DEMO_KEY, Sandbox } from '../../../src/dev/sandbox/server.js';
import { writeSandboxFile } from '../../../src/dev/sandbox/state-file.js';
import { holdSqliteFile } from '../../../src/store/process-lock.js';
import { startFromSource } from '../../helpers/build.js';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

/** Runs the console in `cwd` on these lines; resolves with what it printed once it exited 0. */
async function npmStart(cwd: string, lines: string[]): Promise<string> {
  const { code, stdout, stderr } = await startFromSource(cwd, lines);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return stdout;
}

describe('the console over the same data folder, run after run', () => {
  it('still has the zone it created, in the sandbox as in its database', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'console-restart-'));
    folders.push(cwd);
    const sandboxFile = join(cwd, 'data', 'console', 'sandbox.json');

    const first = await npmStart(cwd, [
      '/cdn login',
      SANDBOX_DEMO_KEY,
      '',
      'submit',
      '/cdn create shop.example.dev pro',
    ]);
    expect(first).toContain('✅ @alice onboarded shop.example.dev on the pro plan.');
    expect(await readFile(sandboxFile, 'utf8')).toContain('"name":"shop.example.dev"');

    // The next session: the key and the audit entry from the database, the zone from the sandbox.
    const second = await npmStart(cwd, [
      '/cdn zones',
      '/cdn audit',
      '/cdn create shop.example.dev pro',
      '/cdn create blog.example.dev',
    ]);
    expect(second).toContain('A CDN API key is already set (from an earlier run).');
    expect(second).toContain('10 zones · page 1 of 1');
    expect(second).toMatch(/shop\.example\.dev\s+🟡 pending/);
    expect(second).toContain('`zone.create` on shop.example.dev · ok');
    expect(second).toContain('shop.example.dev already exists');
    // A new zone's id is not the first one's again: the ids go on where they were.
    const ids = [...(await readFile(sandboxFile, 'utf8')).matchAll(/"id":"(zone_[0-9a-f]+)"/g)];
    expect(new Set(ids.map(([, id]) => id)).size).toBe(11);

    // Two starts of a process that compiles the bot as it loads (tsx): seconds each when busy.
  }, 90_000);
});

describe('consoleData: the database and the sandbox state, together or not at all', () => {
  /** A data folder with the database and/or the sandbox's state (a sandbox that created a zone). */
  async function folder(has: { database: boolean; sandbox: boolean | 'garbled' }) {
    const dir = await mkdtemp(join(tmpdir(), 'console-data-'));
    folders.push(dir);
    const paths = { database: join(dir, 'console.sqlite'), sandboxFile: join(dir, 'sandbox.json') };
    await mkdir(dir, { recursive: true });
    if (has.database) await writeFile(paths.database, 'the database');
    if (has.sandbox === 'garbled') await writeFile(paths.sandboxFile, '{"version":1,"zo');
    else if (has.sandbox) {
      const sandbox = new Sandbox();
      sandbox.state.create('shop.example.dev', 'pro');
      writeSandboxFile(paths.sandboxFile, sandbox.snapshot());
    }
    return paths;
  }

  it('reads the state kept beside the database, and a sandbox put back has the zone again', async () => {
    const paths = await folder({ database: true, sandbox: true });
    const { snapshot, notice } = consoleData(paths);
    expect(notice).toBeUndefined();
    const sandbox = new Sandbox();
    expect(sandbox.state.byName('shop.example.dev')).toBeUndefined();
    sandbox.restore(snapshot ?? { default: { zones: [], shapes: {}, sequence: 0 }, accounts: {} });
    expect(sandbox.state.byName('shop.example.dev')).toMatchObject({ plan: 'pro' });
    expect(sandbox.state.list()).toHaveLength(10);
  });

  it('starts afresh with neither, saying nothing', async () => {
    expect(consoleData(await folder({ database: false, sandbox: false }))).toEqual({});
  });

  it('moves the database aside when the state is missing or garbled, and says so', async () => {
    for (const sandbox of [false, 'garbled'] as const) {
      const paths = await folder({ database: true, sandbox });
      const { snapshot, notice } = consoleData(paths);
      expect(snapshot).toBeUndefined();
      expect(notice).toContain(
        `while ${paths.database} is there: both start afresh (the old database is now ${paths.database}.old).`,
      );
      expect(notice).toContain(sandbox ? 'is unreadable (not JSON)' : 'is missing');
      expect(existsSync(paths.database)).toBe(false);
      expect(await readFile(`${paths.database}.old`, 'utf8')).toBe('the database');
    }
  });

  it('does not restore a state whose database is gone, and says so', async () => {
    const paths = await folder({ database: false, sandbox: true });
    const { snapshot, notice } = consoleData(paths);
    expect(snapshot).toBeUndefined();
    expect(notice).toBe(
      `${paths.database} is missing while the sandbox's state (${paths.sandboxFile}) was kept: the sandbox starts afresh too.`,
    );
  });

  it('leaves a database another process holds where it is', async () => {
    const paths = await folder({ database: true, sandbox: false });
    const lock = holdSqliteFile(paths.database);
    try {
      expect(consoleData(paths)).toEqual({});
      expect(existsSync(paths.database)).toBe(true);
    } finally {
      lock.release();
    }
  });
});
