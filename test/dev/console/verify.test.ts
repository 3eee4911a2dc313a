// Purge verification in the console: a purge with --verify, its summary and the thread of details
// as the console shows them, Purge again, and the Verify button of a purge's result; against the
// embedded sandbox and its edge.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { CdnTransport } from '../../../src/cdn/transport.js';
import { loadConfig } from '../../../src/config.js';
import { type RunningConsole, startConsole } from '../../../src/dev/console/start.js';
import { ManualClock } from '../../helpers/clock.js';
import { captureLogs } from '../../helpers/logs.js';
import { testStore } from '../../helpers/store.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Pipes `script` through a fresh console (as console.test.ts does) and returns what it printed. */
async function pipe(script: string, before: (running: RunningConsole) => void): Promise<string> {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const { store } = await testStore('sqlite', { clock });
  const transport = new CdnTransport();
  const logs = captureLogs('info');
  let transcript = '';
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      transcript += chunk.toString();
      done();
    },
  });
  const running = await startConsole({
    config: loadConfig({ BOT_MODE: 'console' }),
    store,
    transport,
    logger: logs.logger,
    clock,
    input: Readable.from([script]),
    output,
    outDir: join(await mkdtemp(join(tmpdir(), 'console-')), 'out'),
    timeZone: 'Europe/Paris',
    interactive: false,
  });
  running.deps.background.start();
  closers.push(
    () => transport.close(),
    () => running.deps.background.stop(1_000),
    () => running.close(),
  );
  before(running);
  await running.run();
  return transcript;
}

function expectInOrder(text: string, fragments: string[]): void {
  let from = 0;
  for (const fragment of fragments) {
    const at = text.indexOf(fragment, from);
    if (at < 0)
      throw new Error(`missing or out of order: ${JSON.stringify(fragment)}\n${text.slice(-4000)}`);
    from = at + fragment.length;
  }
}

describe('purge verification in the console', () => {
  it('shows the summary, the details in its thread, and purges again what is still cached', async () => {
    const transcript = await pipe(
      [
        '/cdn login',
        'sandbox-demo-key',
        '',
        'submit',
        '/cdn purge example.com https://example.com/app.css https://example.com/go --verify',
        '2',
      ].join('\n'),
      (running) => {
        // The edge keeps the old copy a minute after a purge, and /go redirects off the zone.
        running.edge?.setPurgeDelay(60_000);
        running.edge?.behave('example.com/go', {
          kind: 'redirect',
          location: 'https://evil.test/',
        });
      },
    );
    expectInOrder(transcript, [
      '✅ @alice purged 2 URLs on example.com.',
      '[1] Verify at the edge',
      '🔍 Checking 2 URLs on example.com at the edge for @alice…',
      '── #ops · cdn · updated',
      '⌛ Edge check of example.com: 1 still cached, 1 not checked: `https://example.com/app.css`',
      '[2] Purge again the 1 still cached',
      'Asked with the purge · each URL in the thread',
      '── #ops · in a thread · cdn',
      '⌛ `https://example.com/app.css`: still cached (HEAD 200, `cache-status: SandboxEdge; hit; ttl=',
      '🚫 `https://example.com/go`: not checked, redirected off the zone, to evil.test; not followed',
      'alice in #ops › 2',
      '✅ @alice purged 1 URL on example.com.',
    ]);
    expect(transcript).not.toContain('Something went wrong');
  });
});
