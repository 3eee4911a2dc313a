// Features beyond purges threaded through CDN accounts (issue 29): two sandboxes hold the same zone
// name; a rate limit, a zone list, a watch and a report on `staging` reach staging's sandbox only.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { startSandbox } from '../../src/dev/sandbox/server.js';
import { type Harness, startHarness, textOf } from './harness.js';

type Requests = Array<{ method: string; path: string }>;
const posts = (requests: Requests) => requests.filter((r) => r.method === 'POST');
const lists = (requests: Requests) =>
  requests.filter((r) => r.method === 'GET' && r.path === '/zones');

async function ask(h: Harness, text: string): Promise<Message> {
  const before = h.slack.messages.filter((m) => m.via === 'response_url').length;
  await h.command(text);
  const replies = await h.slack.waitForMessages((m) => m.via === 'response_url', before + 1);
  const reply = replies[before];
  if (!reply) throw new Error(`no answer to /cdn ${text}`);
  return reply;
}

async function twoAccounts() {
  const h = await startHarness({ env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' } });
  const staging = await startSandbox({ apiKeys: ['staging-key'], clock: h.clock });
  await h.login();
  await h.store.accounts.create(h.workspaceId, {
    name: 'staging',
    baseUrl: staging.baseUrl,
    apiKey: 'staging-key',
    by: { userId: 'U0', validated: true },
  });
  staging.state.create('only-in-staging.example', 'free');
  return { h, staging };
}

describe('features on a zone of the account staging', () => {
  it('/cdn ratelimit staging/<zone> changes staging only', async () => {
    const { h, staging } = await twoAccounts();
    const before = posts(h.sandbox.requests).length;
    await h.command('ratelimit staging/shop.example.org on');
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'api');
    expect(reply?.text).toContain('propagating');
    expect(staging.state.byName('shop.example.org')?.limits.enabled).toBe(true);
    expect(h.sandbox.state.byName('shop.example.org')?.limits.enabled).not.toBe(true);
    expect(posts(h.sandbox.requests)).toHaveLength(before);

    await h.command('ratelimit account:default shop.example.org on');
    await h.slack.waitForMessages((m) => m.via === 'api', 2);
    expect(h.sandbox.state.byName('shop.example.org')?.limits.enabled).toBe(true);
    await staging.close();
  });

  it('/cdn zones account:staging lists staging’s zones, and says whose they are', async () => {
    const { h, staging } = await twoAccounts();
    const before = lists(h.sandbox.requests).length;
    const reply = await ask(h, 'zones account:staging');
    expect(textOf(reply.blocks)).toContain('Zones in staging');
    expect(textOf(reply.blocks)).toContain('only-in-staging.example');
    expect(lists(staging.requests).length).toBeGreaterThan(0);
    expect(lists(h.sandbox.requests)).toHaveLength(before);

    const named = await ask(h, 'zones account:staging only-in');
    expect(textOf(named.blocks)).toContain('only-in-staging.example');
    const plain = await ask(h, 'zones');
    expect(textOf(plain.blocks)).toContain('Zones in default');
    expect(textOf(plain.blocks)).not.toContain('only-in-staging.example');
    await staging.close();
  });
});
