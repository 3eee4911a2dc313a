// Two CDN accounts end to end (issue 29): two sandboxes hold the same zone name; each purge reaches
// its own account's sandbox, an ambiguous name asks which, an unknown account lists the others.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { startSandbox } from '../../src/dev/sandbox/server.js';
import { CHANNEL, type Harness, startHarness, textOf } from './harness.js';

const purges = (requests: Array<{ path: string }>) =>
  requests.filter((r) => r.path.endsWith('/purge'));

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
  return { h, staging };
}

describe('two CDN accounts holding the same zone name', () => {
  it('purges the account named, and asks when the name alone is ambiguous', async () => {
    const { h, staging } = await twoAccounts();
    expect(staging.state.byName('shop.example.org')).toBeDefined();

    const ambiguous = await ask(h, 'purge https://shop.example.org/a.css');
    expect(textOf(ambiguous.blocks)).toContain('is in several CDN accounts');
    expect(textOf(ambiguous.blocks)).toContain('staging/shop.example.org');
    expect(purges(h.sandbox.requests)).toHaveLength(0);
    expect(purges(staging.requests)).toHaveLength(0);

    await h.command('purge staging/shop.example.org /b.css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 1);
    expect(purges(staging.requests)).toHaveLength(1);
    expect(purges(h.sandbox.requests)).toHaveLength(0);

    await h.command('purge account:default https://shop.example.org/c.css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 2);
    expect(purges(h.sandbox.requests)).toHaveLength(1);
    expect(purges(staging.requests)).toHaveLength(1);

    const unknown = await ask(h, 'purge account:qa https://shop.example.org/d.css');
    expect(textOf(unknown.blocks)).toContain('No CDN account `qa`');
    expect(textOf(unknown.blocks)).toContain('`staging`');
    await staging.close();
  });

  it('never leaves the account a channel is bound to', async () => {
    const { h, staging } = await twoAccounts();
    const account = await h.store.accounts.byName(h.workspaceId, 'staging');
    // A binding to the account (what `/cdn use staging/` is to write).
    await h.store.db
      .insertInto('channel_bindings')
      .values({
        workspace_id: h.workspaceId,
        channel_id: CHANNEL,
        zone_id: '',
        zone_name: '',
        generation: account?.generation ?? '',
        set_by: 'U0',
        set_at: h.clock.now(),
        account_id: account?.id ?? null,
      })
      .execute();
    const refused = await ask(h, 'purge account:default https://shop.example.org/a.css');
    expect(textOf(refused.blocks)).toContain('This channel uses the CDN account `staging`');
    await h.command('purge https://shop.example.org/b.css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 1);
    expect(purges(staging.requests)).toHaveLength(1);
    expect(purges(h.sandbox.requests)).toHaveLength(0);
    await staging.close();
  });
});
