// Two CDN accounts end to end (issue 29): two sandboxes hold the same zone name; each purge reaches
// its own account's sandbox, an ambiguous name asks which, an unknown account lists the others.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS } from '../../src/blocks/ids.js';
import { ask, buttonFor, purges, twoAccounts } from './account-flows.js';
import { openApprove, openForm } from './flows.js';
import { ADMIN, CHANNEL, MEMBER, OTHER, textOf } from './harness.js';

describe('two CDN accounts holding the same zone name', () => {
  it('purges the account named, and asks when the name alone is ambiguous', async () => {
    const { h, staging } = await twoAccounts();
    expect(staging.state.byName('shop.example.org')).toBeDefined();

    const ambiguous = await ask(h, 'purge https://shop.example.org/a.css');
    expect(textOf(ambiguous.blocks)).toContain('is in several CDN accounts');
    expect(textOf(ambiguous.blocks)).toContain('shop.example.org in staging');
    expect(textOf(ambiguous.blocks)).toContain('shop.example.org in default');
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

  it('asks which account with a button each, and the pick purges that account only, once', async () => {
    const { h, staging } = await twoAccounts();
    const asked = await ask(h, 'purge shop.example.org /a.css tag:hero');
    const pickStaging = buttonFor(asked, 'shop.example.org in staging');
    const again = structuredClone(asked);
    // Only the requester picks.
    await h.click(asked, pickStaging, { user: OTHER });
    await h.slack.waitForMessages(
      (m) => m.text?.includes('Only the person who asked for this purge') ?? false,
    );
    await h.deps.runner.settled();
    expect(purges(staging.requests)).toHaveLength(0);

    await h.click(asked, pickStaging);
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 1);
    await h.slack.waitForMessages((m) => m.text?.includes('in the CDN account `staging`') ?? false);
    // A second click from a device still showing the question, and a retried delivery: nothing more.
    await h.click(again, pickStaging);
    await h.slack.waitForMessages(
      (m) => m.text?.includes('This purge was already confirmed') ?? false,
    );
    await h.replayLast();
    await h.deps.runner.settled();
    // One purge (its URLs and its tags are two requests), on staging only.
    expect(purges(staging.requests)).toEqual([
      { files: ['https://shop.example.org/a.css'] },
      { tags: ['hero'] },
    ]);
    expect(purges(h.sandbox.requests)).toHaveLength(0);

    // Each account's zone count is read from its own index (the App Home shows them).
    const counts = Object.fromEntries(
      (await h.store.accounts.list(h.workspaceId)).map((a) => [a.name, a.zoneCount]),
    );
    expect(counts.staging).toBeGreaterThan(0);
    expect(counts.default).toBeGreaterThan(0);

    // A pick lapses: a click after PURGE_HOLD_MS purges nothing.
    const late = await ask(h, 'purge https://shop.example.org/late.css');
    h.clock.advance(16 * 60_000);
    await h.click(late, buttonFor(late, 'shop.example.org in default'));
    await h.slack.waitForMessages((m) => m.text?.includes('waited too long') ?? false);
    await h.deps.runner.settled();
    expect(purges(h.sandbox.requests)).toHaveLength(0);
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
        account_id: account?.id ?? '',
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

  it('binds a channel to an account with /cdn use, and nothing there reaches the other account', async () => {
    const { h, staging } = await twoAccounts();
    const bound = await ask(h, 'use staging/');
    expect(textOf(bound.blocks)).toContain('bound this channel to the CDN account `staging`');
    expect(textOf((await ask(h, 'use')).blocks)).toContain(
      'This channel uses the CDN account `staging` only',
    );
    const row = await h.store.channelBindings.view(h.workspaceId, CHANNEL);
    const account = await h.store.accounts.byName(h.workspaceId, 'staging');
    expect(row.binding?.accountId).toBe(account?.id);
    expect(row.keyGeneration).toBe(account?.generation);

    // Purges here: staging's zone, whatever is typed; another account refused.
    await h.command('purge https://shop.example.org/a.css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 1);
    const refused = await ask(h, 'purge default/shop.example.org /b.css');
    expect(textOf(refused.blocks)).toContain('This channel uses the CDN account `staging`');
    // Other commands act on the channel's account too: the zones listed are staging's.
    const before = h.sandbox.requests.length;
    const zones = await ask(h, 'zones');
    expect(textOf(zones.blocks)).toContain('Zones in staging');
    await h.deps.runner.settled();
    expect(h.sandbox.requests.length).toBe(before);
    expect(purges(h.sandbox.requests)).toHaveLength(0);
    expect(purges(staging.requests)).toHaveLength(1);

    // With a default zone of the account: paths and tags go to staging's zone.
    await ask(h, 'use staging/shop.example.org');
    await h.command('purge /c.css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 2);
    expect(purges(staging.requests)).toHaveLength(2);
    expect(purges(h.sandbox.requests)).toHaveLength(0);

    // A new key for staging makes the binding stale (staging's generation, not the workspace's).
    await h.store.accounts.setKey(h.workspaceId, account?.id ?? '', 'staging-key', {
      userId: 'U0',
      validated: true,
    });
    expect(textOf((await ask(h, 'use')).blocks)).toContain("before that account's API key changed");
    expect((await h.store.channelBindings.view(h.workspaceId, CHANNEL)).binding).toBeUndefined();
    await staging.close();
  });

  it('asks a second person per account for purge everything, and purges that account only', async () => {
    const { h, staging } = await twoAccounts();
    // The same zone (name, and here id) in both accounts: each has its own open request.
    expect(staging.state.byName('shop.example.org')?.id).toBe(
      h.sandbox.state.byName('shop.example.org')?.id,
    );
    const request = async (text: string, nth: number) => {
      const viewId = await openForm(h, text, { user: MEMBER });
      const values = {
        [PURGE_IDS.confirmBlock]: {
          [PURGE_IDS.confirmInput]: { type: 'plain_text_input', value: 'shop.example.org' },
        },
        [PURGE_IDS.reasonBlock]: {
          [PURGE_IDS.reasonInput]: { type: 'plain_text_input', value: 'Bad deploy' },
        },
      };
      expect((await h.submit(viewId, values, { user: MEMBER })).body).toBe('');
      const asked = await h.slack.waitForMessages(
        (m) => m.via === 'api' && (m.text?.includes('Approval needed') ?? false),
        nth,
      );
      const message = asked[nth - 1];
      if (!message) throw new Error('no request message');
      return message;
    };
    await request('purge default/shop.example.org everything', 1);
    const inStaging = await request('purge staging/shop.example.org everything', 2);
    const account = await h.store.accounts.byName(h.workspaceId, 'staging');
    const defaultId = (await h.store.accounts.byName(h.workspaceId, 'default'))?.id;
    const pending = await h.store.db
      .selectFrom('approvals')
      .select(['account_id'])
      .where('status', '=', 'pending')
      .orderBy('created_at')
      .execute();
    expect(pending.map((row) => row.account_id).sort()).toEqual([account?.id, defaultId].sort());

    const viewId = await openApprove(h, inStaging, ADMIN);
    await h.submit(viewId, {}, { user: ADMIN });
    await h.slack.waitForMessages(
      (m) => m === inStaging && (m.text?.includes('was purged') ?? false),
    );
    expect(purges(staging.requests)).toEqual([{ purge_everything: true }]);
    expect(purges(h.sandbox.requests)).toHaveLength(0);
    // Its audit entries carry staging's account.
    const audit = await h.store.audit.recent(h.workspaceId);
    const done = audit.find((e) => e.action === 'purge.everything');
    expect(done?.accountId).toBe(account?.id);
    // With several accounts, /cdn audit names each entry's account.
    const page = textOf((await ask(h, 'audit')).blocks);
    expect(page).toContain('`purge.everything` on *shop.example.org* in `staging`');
    expect(page).toContain('`purge.everything.requested` on *shop.example.org* in `default`');
    await staging.close();
  });
});
