// Flood control end to end: a pasted loop of /cdn purge stops at the limit, with a clear answer,
// and nothing more reaches the CDN.
import { describe, expect, it } from 'vitest';
import { OTHER, startHarness } from './harness.js';

const purgeRequests = (h: Awaited<ReturnType<typeof startHarness>>) =>
  h.sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/purge'));

describe('per-user flood control', () => {
  it('refuses the 11th purge within a minute, and lets others and later purges through', async () => {
    const h = await startHarness({ login: true });
    for (let i = 1; i <= 11; i++) {
      await h.command(`purge https://example.com/asset-${i}.css`);
      await h.slack.waitForMessages(
        (m) =>
          (m.text?.startsWith('Purged 1 item') ?? false) ||
          (m.text?.startsWith('Slow down') ?? false),
        i,
      );
    }
    const refused = h.slack.messages.filter((m) => m.text?.startsWith('Slow down'));
    expect(refused).toHaveLength(1);
    expect(refused[0]?.ephemeralTo).toBeDefined();
    expect(refused[0]?.text).toContain('more than 10 changes');
    expect(refused[0]?.text).toContain('Nothing was sent to the CDN.');
    expect(purgeRequests(h)).toHaveLength(10);

    // Another user is not held back.
    await h.command('ratelimit example.com on', { user: OTHER });
    await h.slack.waitForMessages((m) => m.text?.startsWith('Rate limiting on') ?? false);

    // A minute and a bit later (the previous minute still weighs), the first user may purge again.
    h.clock.advance(66_000);
    await h.command('purge https://example.com/later.css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged 1 item') ?? false, 11);
    expect(purgeRequests(h)).toHaveLength(11);
  });

  it('counts a malformed command as nothing', async () => {
    const h = await startHarness({ login: true, env: { CHANGE_RATE_LIMIT: '1' } });
    await h.command('create not_a_domain');
    await h.slack.waitForMessages((m) => m.text?.includes('not a domain I can onboard') ?? false);
    await h.command('create shop.example.dev');
    await h.slack.waitForMessages((m) => m.text?.includes('onboarded') ?? false);
    await h.command('create shop2.example.dev');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Slow down') ?? false);
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});
