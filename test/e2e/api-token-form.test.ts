// The token form and list with several CDN accounts (issue 30 met issue 29): the form asks which
// account a token is for (`default` chosen at first, every account only when picked), refuses a
// zone of another account and zones named for every account, and the list, the App Home, the new
// token's view and the audit say what each token reaches.
import { describe, expect, it } from 'vitest';
import { TOKENS_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { startSandbox } from '../../src/dev/sandbox/server.js';
import { API_TOKEN_PREFIX, hashApiToken } from '../../src/services/api/api-tokens.js';
import { addAccount } from './account-flows.js';
import { accountSelectOf, commandReply, tokenFormValues } from './flows.js';
import { ADMIN, type Harness, startHarness, textOf, viewIdOf } from './harness.js';

/** The answer of `/cdn <text>` through its response_url (ADMIN's unless told). */
function ask(h: Harness, text: string, user = ADMIN): Promise<Message> {
  return commandReply(h, text, { user });
}

/** Opens the form from `/cdn tokens`: the views.open call. */
async function openForm(h: Harness) {
  const list = await ask(h, 'tokens');
  const before = h.slack.callsTo('views.open').length;
  await h.click(list, TOKENS_IDS.create, { user: ADMIN });
  const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', before + 1);
  return calls[before];
}

async function submit(h: Harness, viewId: string, values: ReturnType<typeof tokenFormValues>) {
  return JSON.parse((await h.submit(viewId, values, { user: ADMIN })).body) as {
    response_action?: string;
    errors?: Record<string, string>;
    view?: unknown;
  };
}

describe('the token form with several CDN accounts', () => {
  it('asks which account, refuses zones of another, and says what each token reaches', async () => {
    const h = await startHarness({ env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' } });
    const staging = await startSandbox({ apiKeys: ['staging-key'], clock: h.clock });
    const stagingZone = staging.state.create('ci.staging.test', 'pro');
    staging.state.activate(stagingZone.id);
    await h.login();
    const stagingAccount = await addAccount(h, 'staging', staging.baseUrl, 'staging-key');
    const defaultId = (await h.store.accounts.byName(h.workspaceId, 'default'))?.id ?? '';

    const opened = await openForm(h);
    const viewId = viewIdOf(opened);
    const select = accountSelectOf(opened);
    // Several accounts: none chosen for the admin; every account is there.
    expect(select.initial_option).toBeUndefined();
    expect(select.options.map((o) => [o.text.text, o.value])).toEqual([
      ['default', defaultId],
      ['staging', stagingAccount.id],
      ['Every CDN account, including those added later', TOKENS_IDS.allAccountsValue],
    ]);

    // A zone of staging for a token of `default`: refused on the zones, nothing made.
    const elsewhere = await submit(
      h,
      viewId,
      tokenFormValues(h, {
        name: 'deploy',
        account: defaultId,
        zones: [`staging/${stagingZone.id}`],
        kinds: ['urls_tags'],
      }),
    );
    expect(elsewhere.errors?.[TOKENS_IDS.zonesBlock]).toContain(
      'is a zone of the CDN account `staging`, and this token is for `default`',
    );
    // Every account with zones named: refused too (a zone is one account's).
    const named = await submit(
      h,
      viewId,
      tokenFormValues(h, {
        name: 'deploy',
        account: TOKENS_IDS.allAccountsValue,
        zones: ['example.com'],
        kinds: ['urls_tags'],
      }),
    );
    expect(named.errors?.[TOKENS_IDS.zonesBlock]).toContain('tick "All zones"');
    expect(await h.store.apiTokens.list(h.workspaceId)).toEqual([]);

    const made = await submit(
      h,
      viewId,
      tokenFormValues(h, {
        name: 'staging-deploy',
        account: stagingAccount.id,
        zones: [`staging/${stagingZone.id}`],
        kinds: ['urls_tags'],
      }),
    );
    expect(made.response_action).toBe('update');
    expect(textOf(made.view)).toContain('It purges in: CDN account `staging`, 1 zone.');

    const all = await submit(
      h,
      viewIdOf(await openForm(h)),
      tokenFormValues(h, {
        name: 'everywhere',
        account: TOKENS_IDS.allAccountsValue,
        zones: [],
        allZones: true,
        kinds: ['urls_tags'],
      }),
    );
    expect(textOf(all.view)).toContain(
      'It purges in: *every CDN account* (those added later too), all zones.',
    );
    const stored = await h.store.apiTokens.list(h.workspaceId);
    expect(stored.map((t) => [t.name, t.accountId, t.allAccounts, t.zones])).toEqual([
      ['everywhere', null, true, null],
      ['staging-deploy', stagingAccount.id, false, ['ci.staging.test']],
    ]);

    // A token of `default` says so; one whose account was removed reaches nothing: said so.
    await h.store.apiTokens.create({
      workspaceId: h.workspaceId,
      name: 'old-deploy',
      hash: hashApiToken(`${API_TOKEN_PREFIX}${'a'.repeat(43)}`),
      hint: 'cdnb_aaaa',
      accountId: defaultId,
      allAccounts: false,
      zones: null,
      kinds: ['urls_tags'],
      channelId: null,
      createdBy: ADMIN,
    });
    const qa = await h.store.accounts.create(h.workspaceId, {
      name: 'qa',
      by: { userId: 'U0', validated: true },
    });
    await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
      name: 'qa-deploy',
      accountId: qa.id,
      zones: null,
      kinds: ['urls_tags'],
    });
    await h.store.accounts.remove(h.workspaceId, qa.id);

    const list = textOf((await ask(h, 'tokens')).blocks);
    expect(list).toContain('CDN account `staging` · ci.staging.test');
    expect(list).toContain('*every CDN account* (those added later too) · all zones');
    expect(list).toContain('CDN account `default` · all zones');
    expect(list).toContain(':warning: its CDN account was removed: it purges nothing · all zones');
    await h.event({ type: 'app_home_opened', user: ADMIN, channel: 'D1', tab: 'home' });
    await h.slack.waitForCalls((c) => c.method === 'views.publish');
    const home = textOf(h.slack.homes.get(ADMIN)?.view);
    expect(home).toContain('CDN account `staging` · ci.staging.test');
    expect(home).toContain('*every CDN account* (those added later too) · all zones');

    // The choice is audited with what the token reaches.
    const created = (await h.store.audit.recent(h.workspaceId)).filter(
      (e) => e.action === 'api.token.created',
    );
    expect(created.map((e) => [e.accountId ?? null, e.detail?.account, e.detail?.note])).toEqual([
      [null, null, 'every CDN account'],
      [stagingAccount.id, 'staging', 'CDN account staging'],
    ]);
    await staging.close();
  });

  it('is not opened in a workspace without a CDN account: a token would reach nothing', async () => {
    const h = await startHarness();
    const list = await ask(h, 'tokens');
    const before = h.slack.messages.filter((m) => m.ephemeralTo === ADMIN).length;
    await h.click(list, TOKENS_IDS.create, { user: ADMIN });
    const notices = await h.slack.waitForMessages((m) => m.ephemeralTo === ADMIN, before + 1);
    expect(notices[before]?.text).toContain('no CDN API key yet');
    expect(h.slack.callsTo('views.open')).toEqual([]);
  });
});
