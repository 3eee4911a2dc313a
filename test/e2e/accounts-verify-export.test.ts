// Issue 31's features for a zone of a second CDN account (issue 29), over the signed HTTP receiver.
// The buttons that act on a recorded purge (Verify at the edge, Purge again, Retry) act on the
// purge's own account; in a channel bound to another account they are refused, as an account typed
// there is, and nothing reaches either CDN or the edge. The audit export names each row's account
// and keeps one account's rows with `account:`.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS, VERIFY_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { ask, purges, twoAccounts } from './account-flows.js';
import { answerTo } from './flows.js';
import { type Harness, MEMBER } from './harness.js';

const A = 'https://example.com/a.css';
const B = 'https://example.com/b.js';

/** The `nth` message whose text is `text` (waited for). */
async function nth(h: Harness, text: string, n = 1): Promise<Message> {
  const found = await h.slack.waitForMessages((m) => m.text === text, n);
  const message = found[n - 1];
  if (!message) throw new Error(`no message ${text}`);
  return message;
}

describe('Verify, Purge again and Retry on a purge of the account staging', () => {
  it('verify at the edge and purge again in staging: default is never asked', async () => {
    const { h, staging } = await twoAccounts();
    try {
      // The edge keeps the old copy a minute after a purge.
      h.edge.setPurgeDelay(60_000);
      await h.command(`purge staging/example.com ${A}`);
      const result = await nth(h, 'Purged 1 item on example.com');
      await h.click(result, `${VERIFY_IDS.verify}_0`);
      await h.deps.runner.settled();
      const summary = await nth(h, 'Edge check of example.com: 1 still cached');
      await h.click(summary, VERIFY_IDS.purgeAgain);
      await nth(h, 'Purged 1 item on example.com', 2);
      expect(purges(staging.requests)).toEqual([{ files: [A] }, { files: [A] }]);
      expect(purges(h.sandbox.requests)).toEqual([]);

      // A minute on, the edge has dropped staging's copy: verified again, it is fresh.
      h.clock.advance(60_000);
      await h.click(result, `${VERIFY_IDS.verify}_0`);
      await h.deps.runner.settled();
      await nth(h, 'Edge check of example.com: 1 fresh');
      expect(h.edge.requests.map((r) => `${r.method} ${r.host}${r.path}`)).toEqual([
        `HEAD example.com/a.css`,
        `HEAD example.com/a.css`,
      ]);
    } finally {
      await staging.close();
    }
  });

  it('refuses them in a channel bound to default, and acts in staging once bound to staging', async () => {
    const { h, staging } = await twoAccounts();
    try {
      h.edge.setPurgeDelay(60_000);
      // One purge staging does not confirm (a 503: a Retry button), one that goes through (Verify).
      staging.inject({ kind: 'status', status: 503, method: 'POST', path: /purge$/ });
      await h.command(`purge staging/example.com ${B}`);
      const failed = await nth(h, 'Purge on example.com: 1 of 1 not confirmed');
      await h.command(`purge staging/example.com ${A}`);
      const result = await nth(h, 'Purged 1 item on example.com');
      await h.click(result, `${VERIFY_IDS.verify}_0`);
      await h.deps.runner.settled();
      const summary = await nth(h, 'Edge check of example.com: 1 still cached');
      const edgeAsked = h.edge.requests.length;

      await ask(h, 'use default/');
      const bound = 'This channel uses the CDN account `default`: `staging` is not used here.';
      for (const [message, button] of [
        [failed, `${PURGE_IDS.retry}_0`],
        [result, `${VERIFY_IDS.verify}_0`],
        [summary, VERIFY_IDS.purgeAgain],
      ] as const) {
        h.clock.advance(31_000);
        const answer = await answerTo(h, MEMBER, () => h.click(message, button));
        expect(answer, button).toContain(bound);
      }
      await h.deps.runner.settled();
      expect(purges(staging.requests)).toEqual([{ files: [B] }, { files: [A] }]);
      expect(purges(h.sandbox.requests)).toEqual([]);
      expect(h.edge.requests).toHaveLength(edgeAsked);

      // Bound to staging, the purge's own account: each button acts there.
      await ask(h, 'use staging/');
      h.clock.advance(31_000);
      await h.click(result, `${VERIFY_IDS.verify}_0`);
      await h.deps.runner.settled();
      await nth(h, 'Edge check of example.com: 1 fresh');
      await h.click(failed, `${PURGE_IDS.retry}_0`);
      await h.click(summary, VERIFY_IDS.purgeAgain);
      await h.deps.runner.settled();
      await nth(h, 'Purged 1 item on example.com', 3);
      expect(purges(staging.requests).slice(2)).toEqual(
        expect.arrayContaining([{ files: [B] }, { files: [A] }]),
      );
      expect(purges(staging.requests)).toHaveLength(4);
      expect(purges(h.sandbox.requests)).toEqual([]);
    } finally {
      await staging.close();
    }
  });
});

describe('the audit export with two CDN accounts holding the same zone name', () => {
  it('names each row’s account, and account:staging keeps staging’s rows only', async () => {
    const { h, staging } = await twoAccounts();
    try {
      await h.command(`purge staging/example.com ${A}`);
      await nth(h, 'Purged 1 item on example.com');
      await h.command(`purge default/example.com ${B}`);
      await nth(h, 'Purged 1 item on example.com', 2);
      const exported = async (words: string, n: number) => {
        // A minute apart: Slack's upload methods are paced on the test's clock.
        h.clock.advance(60_000);
        await h.command(`audit export ${words}`.trim());
        await h.deps.runner.settled();
        await h.slack.waitForCalls((c) => c.method === 'files.completeUploadExternal', n);
        const file = [...h.slack.files.values()].filter((f) => f.completed)[n - 1];
        if (!file) throw new Error('no file');
        const [header, ...rows] = file.bytes
          .toString('utf8')
          .split('\r\n')
          .filter((line) => line !== '');
        // Every cell is quoted; none before zone_name holds a comma.
        const cells = (row: string) => row.split(',').map((cell) => cell.replace(/^"|"$/g, ''));
        expect(cells(header ?? '').slice(-2)).toEqual(['detail', 'account']);
        // zone_name is the 7th cell; account the last.
        return rows
          .filter((row) => row.includes(',"purge.urls",'))
          .map((row) => `${cells(row).at(-1)} ${cells(row)[6]}`);
      };
      expect(await exported('', 1)).toEqual(['default example.com', 'staging example.com']);
      expect(await exported('account:staging', 2)).toEqual(['staging example.com']);
    } finally {
      await staging.close();
    }
  });
});
