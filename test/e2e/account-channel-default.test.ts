// A CDN account typed with no zone named, in a channel whose default zone is another account's,
// over the signed HTTP receiver: the purge is refused, never sent to the default zone's account
// instead of the one the person named.
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/dev/sandbox/server.js';
import { addAccount, ask, purges } from './account-flows.js';
import { type Harness, startHarness } from './harness.js';

/** Runs `/cdn <text>`; resolves with the first message after it, wherever it went. */
async function firstAnswer(h: Harness, text: string) {
  const before = h.slack.messages.length;
  await h.command(text);
  const messages = await h.slack.waitForMessages(() => true, before + 1);
  return messages[before];
}

/** `default` with shop.example.org as the channel's default zone, then a second account `staging`. */
async function boundToDefault() {
  const h = await startHarness({ env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' } });
  const staging = await startSandbox({ apiKeys: ['staging-key'], clock: h.clock });
  await h.login();
  expect((await ask(h, 'use shop.example.org')).text).toContain('default zone');
  await addAccount(h, 'staging', staging.baseUrl, 'staging-key');
  return { h, staging };
}

describe('an account typed in a channel whose default zone is another account’s', () => {
  it('refuses paths and everything for the default zone, and purges nothing', async () => {
    const { h, staging } = await boundToDefault();
    try {
      const paths = await firstAnswer(h, 'purge account:staging /a.css');
      expect(paths?.via).toBe('response_url');
      // The channel's default zone binds it to that zone's account, as any account's does.
      expect(paths?.text).toBe(
        'This channel uses the CDN account `default`: `staging` is not used here. Ask in a channel of that account, or without a channel account.',
      );

      const opens = h.slack.callsTo('views.open').length;
      const everything = await ask(h, 'purge account:staging everything');
      expect(everything.text).toContain('staging');
      expect(h.slack.callsTo('views.open')).toHaveLength(opens);

      await h.deps.runner.settled();
      expect(purges(h.sandbox.requests)).toEqual([]);
      expect(purges(staging.requests)).toEqual([]);

      // Without an account, or naming the default zone's own, the default zone is used as before.
      await h.command('purge account:default /b.css');
      await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
      expect(purges(h.sandbox.requests)).toEqual([{ files: ['https://shop.example.org/b.css'] }]);
    } finally {
      await staging.close();
    }
  });
});
