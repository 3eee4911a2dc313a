// `npm start` with no Slack credentials: src/main.ts starts the console, reads piped commands,
// writes logs to ./data/console.log, charts to ./data/out and its data to ./data/console.sqlite,
// and exits when the input ends.
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SANDBOX_DEMO_KEY } from '../../../src/dev/sandbox/server.js';
import { startFromSource } from '../../helpers/build.js';

describe('npm start without Slack credentials', () => {
  it('runs the console on piped input and exits 0 at its end', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'console-main-'));
    // No BOT_MODE and no Slack variables: console mode is inferred.
    const { code, stdout, stderr } = await startFromSource(cwd, [
      '/cdn login',
      SANDBOX_DEMO_KEY,
      '',
      'submit',
      '/cdn analytics example.com 6h',
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('✅ The CDN API key is saved (encrypted) and works: 9 zones visible.');
    expect(stdout).toContain('📊 example.com · last 6 h by 5 minutes');
    const [chart] = await readdir(join(cwd, 'data', 'out'));
    expect(chart).toMatch(/^F\d+-example\.com-traffic-.*\.png$/);
    expect(stdout).toContain(`data/out/${chart} (PNG 1200×640`);
    // Its own database and key, not the deployment defaults (./data/cdn-bot.sqlite and its key).
    expect(stdout).toContain("Data is kept in data/console.sqlite, the console's own database");
    expect((await readdir(join(cwd, 'data'))).sort()).toEqual([
      'console',
      'console.log',
      'console.sqlite',
      // SQLite's lock that keeps the file to one process (see src/store/process-lock.ts).
      'console.sqlite.lock',
      'out',
    ]);
    // Its key, and the embedded sandbox's state, kept beside the database that refers to it.
    expect((await readdir(join(cwd, 'data', 'console'))).sort()).toEqual([
      'encryption-keys',
      'sandbox.json',
    ]);
    // Logs went to the file, not the terminal, and carry no key.
    const log = await readFile(join(cwd, 'data', 'console.log'), 'utf8');
    expect(log).toContain('"msg":"starting cdn-chatops"');
    expect(log).toContain('"signal":"end of input"');
    expect(log).not.toContain(SANDBOX_DEMO_KEY);
    expect(stdout).not.toContain('"level"');
  });
});
