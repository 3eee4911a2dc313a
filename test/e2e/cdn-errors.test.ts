import { describe, expect, it } from 'vitest';
import { commandReply } from './flows.js';
import { type Harness, startHarness } from './harness.js';

describe('CDN failures reach the user as one clear message', () => {
  it('a key the CDN no longer accepts (401)', async () => {
    const h = await startHarness();
    await h.login('sk_revoked_key');
    const reply = await commandReply(h, 'zones');
    expect(reply?.text).toBe(
      "The CDN rejected this workspace's API key: Invalid API key. A workspace admin can set a new one with `/cdn login`.",
    );
    expect(h.logs.text()).not.toContain('sk_revoked_key');
  });

  it('a 5xx on a change, which is not retried', async () => {
    const h = await startHarness({ login: true });
    await h.command('zones'); // warms the zone list the rate-limit command resolves names from
    await h.slack.waitForMessages((m) => m.via === 'response_url');
    h.sandbox.inject({
      kind: 'status',
      status: 503,
      method: 'POST',
      headers: { 'x-request-id': 'req-77' },
    });
    await h.command('ratelimit example.com on');
    const [, reply] = await h.slack.waitForMessages((m) => m.via === 'response_url', 2);
    expect(reply?.text).toBe(
      'The CDN API is having trouble (Injected 503). Try again in a minute. (CDN request id `req-77`)',
    );
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({
      action: 'ratelimit.on',
      outcome: 'failed',
      detail: { error: 'unavailable' },
    });
  });

  it('a 5xx on a read, retried with backoff on the clock before giving up', async () => {
    const h = await startHarness({ login: true });
    h.sandbox.inject({ kind: 'status', status: 502, times: 4 });
    await h.command('zones');
    for (let retry = 0; retry < 3; retry++) {
      await h.clock.sleepers(1);
      h.clock.advance(10_000);
    }
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(reply?.text).toBe(
      'The CDN API is having trouble (Injected 502). Try again in a minute.',
    );
    expect(h.sandbox.requests).toHaveLength(4);
  });

  it('a CDN out of reach: its host and why, not a refusal of the key', async () => {
    // The workspace's own base URL, on a host name that cannot resolve (RFC 6761's .invalid), one
    // the operator allowed: an untrusted one would be refused as not public, with no lookup said.
    const h = await startHarness({
      login: true,
      env: { CDN_BASE_URL_ALLOWLIST: 'api.cdn-chatops.invalid' },
    });
    await setLoginBaseUrl(h, 'https://api.cdn-chatops.invalid/v1');
    await h.command('zones');
    for (let retry = 0; retry < 3; retry++) {
      await h.clock.sleepers(1);
      h.clock.advance(10_000);
    }
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(reply?.text).toMatch(
      /^Cannot reach the CDN at api\.cdn-chatops\.invalid: DNS lookup failed \((ENOTFOUND|EAI_AGAIN)\)\. Try again in a minute\.$/,
    );
  });

  it('a workspace base URL whose name does not resolve: refused as not public, at once', async () => {
    const h = await startHarness({ login: true });
    await setLoginBaseUrl(h, 'https://api.cdn-chatops.invalid/v1');
    await h.command('zones');
    // No retry (a private address is not retried either): the answer comes without the clock moving.
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(reply?.text).toBe(
      "I won't call that CDN API address: api.cdn-chatops.invalid is not a public address; only public addresses are allowed. A workspace admin can set another base URL with `/cdn login`.",
    );
  });
});

/** The base URL of the account `/cdn login` set the key of. */
async function setLoginBaseUrl(h: Harness, url: string): Promise<void> {
  const key = await h.store.credentials.get(h.workspaceId);
  if (!key) throw new Error('no key');
  await h.store.accounts.setBaseUrl(h.workspaceId, key.accountId, url);
}
