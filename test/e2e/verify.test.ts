// Purge verification end to end: signed Slack requests into the real app, the fake Slack, the CDN
// sandbox and its edge over real HTTP. The Verify button, --verify, the summary and its thread, and
// "Purge again" through the purge service.

import { describe, expect, it } from 'vitest';
import { PURGE_IDS, VERIFY_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { NON_PUBLIC_ANSWERS } from '../helpers/net.js';
import { openForm, purgeFormValues } from './flows.js';
import { CHANNEL, startHarness, textOf } from './harness.js';

const A = 'https://example.com/a.css';
const B = 'https://example.com/b.js';
const isSummary = (m: Message) => m.text?.startsWith('Edge check of example.com:') ?? false;

describe('verifying a purge at the edge', () => {
  it('the Verify button checks each purged URL: a short summary, details in its thread, Purge again for the still cached', async () => {
    // The edge keeps serving the old copy for a minute after a purge.
    const h = await startHarness({ login: true, edge: { purgeDelayMs: 60_000 } });
    await h.command(`purge example.com ${A} ${B}`);
    const [result] = await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    if (!result) throw new Error('no purge result');
    await h.click(result, `${VERIFY_IDS.verify}_0`);
    await h.deps.runner.settled();
    const [summary] = await h.slack.waitForMessages(
      (m) => isSummary(m) && !m.text?.includes('Checking'),
    );
    expect(summary?.text).toBe('Edge check of example.com: 2 still cached');
    expect(summary?.channel).toBe(CHANNEL);
    expect(textOf(summary?.blocks)).toContain(
      '`https://example.com/a.css`, `https://example.com/b.js`',
    );
    const [details] = await h.slack.waitForMessages((m) => m.threadTs !== undefined);
    expect(details?.threadTs).toBe(summary?.ts);
    expect(textOf(details?.blocks)).toContain('still cached (HEAD 200');
    expect(textOf(details?.blocks)).toContain('SandboxEdge; hit');
    // HEAD, to the purged URLs' own host, once each.
    expect(h.edge.requests.map((r) => `${r.method} ${r.host}${r.path}`).sort()).toEqual([
      'HEAD example.com/a.css',
      'HEAD example.com/b.js',
    ]);

    // Purge again: a new purge of just those, through the purge service.
    const purges = () => h.sandbox.requests.filter((r) => r.path.endsWith('/purge'));
    if (!summary) throw new Error('no summary');
    await h.click(summary, VERIFY_IDS.purgeAgain);
    await h.deps.runner.settled();
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 2);
    expect(purges().map((r) => r.body)).toEqual([{ files: [A, B] }, { files: [A, B] }]);
  });

  it('/cdn purge --verify checks by itself once purged: fresh', async () => {
    const h = await startHarness({ login: true });
    await h.command(`purge example.com ${A} --verify`);
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    await h.deps.runner.settled();
    const [summary] = await h.slack.waitForMessages(isSummary);
    expect(summary?.text).toBe('Edge check of example.com: 1 fresh');
    expect(textOf(summary?.blocks)).not.toContain('Purge again');
    // The flag is not a URL: only the one URL was purged.
    expect(h.sandbox.requests.filter((r) => r.path.endsWith('/purge')).map((r) => r.body)).toEqual([
      { files: [A] },
    ]);
  });

  it('the purge form’s Verify box checks the URLs once purged', async () => {
    const h = await startHarness({ login: true });
    h.edge.setMode('example.com', 'x-cache');
    const viewId = await openForm(h, 'purge');
    const closed = await h.submit(viewId, {
      ...purgeFormValues(h, `${A}\n${B}`),
      [PURGE_IDS.verifyBlock]: {
        [PURGE_IDS.verifyInput]: {
          type: 'checkboxes',
          selected_options: [{ value: 'verify', text: { type: 'plain_text', text: 'Check' } }],
        },
      },
    });
    expect(closed.body).toBe('');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    await h.deps.runner.settled();
    const [summary] = await h.slack.waitForMessages(isSummary);
    expect(summary?.text).toBe('Edge check of example.com: 2 fresh');
    const [details] = await h.slack.waitForMessages((m) => m.threadTs !== undefined);
    expect(textOf(details?.blocks)).toContain('x-cache: MISS');
  });
});

describe('verifying at the edge as production does (each host resolved, public addresses only)', () => {
  /** What the bot's DNS answers for www.example.com, a name under the purged zone. */
  const answers = NON_PUBLIC_ANSWERS;

  it('says the same of a loopback, a private, a link-local and an unresolved name: not public, nothing more', async () => {
    const said = new Map<string, string>();
    for (const [name, resolve] of Object.entries(answers)) {
      const h = await startHarness({ login: true, resolve, productionEdge: true });
      await h.command('purge example.com https://www.example.com/x --verify');
      await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
      await h.deps.runner.settled();
      const [summary] = await h.slack.waitForMessages(isSummary);
      expect(summary?.text, name).toBe('Edge check of example.com: 1 not checked');
      const [details] = await h.slack.waitForMessages((m) => m.threadTs !== undefined);
      // Everything the bot posted about the check, summary and thread.
      const posted = textOf(h.slack.messages.filter((m) => m.text?.startsWith('Edge check')));
      expect(posted, name).not.toMatch(
        /127\.0\.0\.1|10\.0\.0\.7|169\.254|loopback|private|link-local|does not resolve|ENOTFOUND/i,
      );
      // Nothing reached the sandbox edge either.
      expect(h.edge.requests, name).toEqual([]);
      said.set(name, textOf(details?.blocks));
    }
    expect(new Set(said.values()).size).toBe(1);
    expect(said.get('loopback')).toContain(
      '`https://www.example.com/x`: not checked, www.example.com is not a public address; only public addresses are allowed',
    );
  });
});
