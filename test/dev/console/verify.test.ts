// Purge verification in the console: a purge with --verify, its summary and the thread of details
// as the console shows them, Purge again, and the Verify button of a purge's result; against the
// embedded sandbox and its edge.
import { describe, expect, it } from 'vitest';
import type { RunningConsole } from '../../../src/dev/console/start.js';
import { expectInOrder, pipeConsole } from '../../helpers/console.js';

/** Pipes `script` through a fresh console, `before` setting up its edge, and returns what it printed. */
const pipe = async (script: string, before: (running: RunningConsole) => void): Promise<string> =>
  (await pipeConsole(script, { before })).transcript;

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

describe('purge verification in a second CDN account in the console', () => {
  it('asks the edge of that account’s zone: fresh once staging purged it (issue 29)', async () => {
    const transcript = await pipe(
      [
        '/cdn login',
        'sandbox-demo-key',
        '',
        'submit',
        '/cdn accounts',
        // 1 to 3 are default's Rename, Re-key and Remove; 4 is Add an account.
        '4',
        'staging',
        'sandbox-staging-key',
        '',
        'submit',
        '/cdn purge staging/static.example.com https://static.example.com/app.css --verify',
      ].join('\n'),
      () => undefined,
    );
    expectInOrder(transcript, [
      '✅ Account staging added.',
      '✅ @alice purged 1 URL on static.example.com.',
      '✅ Edge check of static.example.com: 1 fresh',
    ]);
    expect(transcript).not.toContain('still cached');
  });
});
