// A workspace with named CDN accounts and no `default` (no `/cdn login`, issue 29), over the signed
// HTTP receiver: with one account (`prod`) every command and surface works as with `default`, the
// account never typed; with two (`prod`, `staging`: two sandboxes holding the same zone names) a
// command that cannot tell which account refuses, naming them, and the account named is used.
import { describe, expect, it } from 'vitest';
import {
  ANALYTICS_IDS,
  CREATE_IDS,
  HOME_IDS,
  RATELIMIT_IDS,
  VERIFY_IDS,
  ZONE_PICKER_IDS,
} from '../../src/blocks/ids.js';
import { type Sandbox, startSandbox } from '../../src/dev/sandbox/server.js';
import { ask, purges } from './account-flows.js';
import { openHome } from './flows.js';
import {
  ADMIN,
  CDN_KEY,
  CHANNEL,
  type Harness,
  MEMBER,
  startHarness,
  textOf,
  viewIdOf,
} from './harness.js';

type Requests = Sandbox['requests'];
const settings = (requests: Requests) =>
  requests.filter((r) => r.path.endsWith('/settings')).map((r) => r.body);
const creates = (requests: Requests) =>
  requests.filter((r) => r.method === 'POST' && r.path.endsWith('/zones')).map((r) => r.body);
const by = { userId: 'U0', validated: true };

/** A workspace whose only account is `prod` (the harness's sandbox); `staging` too when asked. */
async function namedOnly(
  options: { staging?: boolean; edge?: { purgeDelayMs: number } } = {},
): Promise<{ h: Harness; staging?: Sandbox }> {
  const h = await startHarness({
    env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' },
    ...(options.edge ? { edge: options.edge } : {}),
  });
  await h.store.accounts.create(h.workspaceId, {
    name: 'prod',
    baseUrl: h.sandbox.baseUrl,
    apiKey: CDN_KEY,
    by,
  });
  if (!options.staging) return { h };
  const staging = await startSandbox({ apiKeys: ['staging-key'], clock: h.clock });
  staging.state.create('only-in-staging.example', 'free');
  await h.store.accounts.create(h.workspaceId, {
    name: 'staging',
    baseUrl: staging.baseUrl,
    apiKey: 'staging-key',
    by,
  });
  return { h, staging };
}

/** The App Home of `user`, opened afresh (flows.ts openHome). */
async function home(h: Harness, user = ADMIN) {
  const view = await openHome(h, user);
  return { id: view.id, text: textOf(view.view) };
}

/** Clicks a button of the App Home; resolves with the modal it opens. */
async function homeModal(h: Harness, actionId: string, user = ADMIN) {
  const { id } = await home(h, user);
  const before = h.slack.callsTo('views.open').length;
  await h.clickInView(id, actionId, { user });
  const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', before + 1);
  return { id: viewIdOf(calls[before]), text: textOf(calls[before]?.args.view) };
}

/** The zone picker's options as `query` is typed. */
async function picked(h: Harness, query: string): Promise<Array<{ text: string; value: string }>> {
  const answer = await h.suggest(ZONE_PICKER_IDS.action, query);
  const { options } = JSON.parse(answer.body) as {
    options: Array<{ text: { text: string }; value: string }>;
  };
  return options.map((o) => ({ text: o.text.text, value: o.value }));
}

describe('a workspace whose one CDN account is `prod` (no `default`)', () => {
  it('binds a channel with /cdn use, and its default zone is purged and switched in prod', async () => {
    const { h } = await namedOnly();
    const bound = await ask(h, 'use example.com', ADMIN);
    expect(textOf(bound.blocks)).toContain("made *example.com* this channel's default zone");
    // Its one account: not named (nor is any account in a workspace of one).
    expect(textOf((await ask(h, 'use')).blocks)).toContain(
      "This channel's default zone is *example.com*",
    );

    await h.command('purge /a.css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(purges(h.sandbox.requests)).toEqual([{ files: ['https://example.com/a.css'] }]);
    await h.command('ratelimit on', { user: ADMIN });
    await h.slack.waitForMessages((m) => m.text?.startsWith('Rate limiting on') ?? false);
    expect(settings(h.sandbox.requests)).toEqual([
      { limits: { enabled: true, mode: 'automatic' } },
    ]);

    // The App Home lists the channel's default zone.
    expect((await home(h)).text).toContain(`<#${CHANNEL}> → *example.com*`);
  });

  it('shows watches, reports and the key as working, in lists and the App Home', async () => {
    const { h } = await namedOnly();
    await ask(h, 'watch example.com', ADMIN);
    await ask(h, 'report example.com daily', ADMIN);
    for (const list of ['watch list', 'report list']) {
      const text = textOf((await ask(h, list, ADMIN)).blocks);
      expect(text).toContain('example.com');
      expect(text).not.toContain('no CDN key');
    }
    const { text } = await home(h);
    expect(text).toContain('Commands use the CDN account `prod` and its API key.');
    expect(text).not.toContain('No CDN API key yet');
    expect(text).not.toContain('paused');
  });

  it('lists zones, onboards a domain and charts a picked zone from the App Home', async () => {
    const { h } = await namedOnly();
    await h.clickInView((await home(h, MEMBER)).id, HOME_IDS.listZones);
    const [dm] = await h.slack.waitForMessages((m) => m.channel === MEMBER);
    expect(textOf(dm?.blocks)).toContain('9 zones · page 1 of 1');

    const form = await homeModal(h, HOME_IDS.createZone);
    const values = {
      [CREATE_IDS.domainBlock]: {
        [CREATE_IDS.domainInput]: { type: 'plain_text_input', value: 'new-one.example' },
      },
      [CREATE_IDS.planBlock]: {
        [CREATE_IDS.planInput]: { type: 'static_select', selected_option: { value: 'free' } },
      },
    };
    expect((await h.submit(form.id, values, { user: ADMIN })).body).toBe('');
    await h.slack.waitForMessages((m) => m.text?.includes('new-one.example onboarded') ?? false);
    expect(creates(h.sandbox.requests)).toEqual([{ name: 'new-one.example', plan: 'free' }]);

    // The zone picker offers prod's zones: its only account, so not named.
    const options = await picked(h, 'blog');
    const blog = h.sandbox.state.byName('blog.example.net');
    expect(options).toEqual([{ text: 'blog.example.net (active)', value: blog?.id }]);
    const chart = await homeModal(h, HOME_IDS.analytics, MEMBER);
    const answer = await h.submit(chart.id, {
      [ANALYTICS_IDS.zoneBlock]: {
        [ZONE_PICKER_IDS.action]: { type: 'external_select', selected_option: options[0] },
      },
      [ANALYTICS_IDS.channelBlock]: {
        [ANALYTICS_IDS.channelInput]: {
          type: 'conversations_select',
          selected_conversation: CHANNEL,
        },
      },
    });
    expect(answer.body).toBe('');
    const [complete] = await h.slack.waitForCalls(
      (c) => c.method === 'files.completeUploadExternal',
    );
    expect(String(complete?.args.initial_comment)).toContain('*blog.example.net*');
  });

  it('purges again in prod what an edge check found still cached', async () => {
    const { h } = await namedOnly({ edge: { purgeDelayMs: 60_000 } });
    await h.command('purge example.com https://example.com/a.css');
    const [result] = await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    if (!result) throw new Error('no purge result');
    await h.click(result, `${VERIFY_IDS.verify}_0`);
    await h.deps.runner.settled();
    const [summary] = await h.slack.waitForMessages(
      (m) => m.text === 'Edge check of example.com: 1 still cached',
    );
    if (!summary) throw new Error('no edge check');
    await h.click(summary, VERIFY_IDS.purgeAgain);
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 2);
    expect(purges(h.sandbox.requests)).toEqual([
      { files: ['https://example.com/a.css'] },
      { files: ['https://example.com/a.css'] },
    ]);
  });
});

describe('a workspace with the CDN accounts `prod` and `staging` (no `default`)', () => {
  it('refuses a zone list or a new zone naming both accounts, and uses the one named', async () => {
    const { h, staging } = await namedOnly({ staging: true });
    try {
      const refusal = (command: string) =>
        `This workspace has several CDN accounts: name one, as in \`/cdn ${command} account:prod\` or \`/cdn ${command} account:staging\`.`;
      expect(textOf((await ask(h, 'zones')).blocks)).toContain(refusal('zones'));
      const listed = textOf((await ask(h, 'zones account:staging')).blocks);
      expect(listed).toContain('Zones in staging');
      expect(listed).toContain('only-in-staging.example');

      expect(textOf((await ask(h, 'create new-one.example', ADMIN)).blocks)).toContain(
        refusal('create'),
      );
      await ask(h, 'create account:staging new-one.example', ADMIN);
      expect(creates(staging?.requests ?? [])).toEqual([{ name: 'new-one.example', plan: 'free' }]);
      expect(creates(h.sandbox.requests)).toEqual([]);
      // The App Home's buttons say the same.
      expect((await homeModal(h, HOME_IDS.listZones)).text).toContain(refusal('zones'));
    } finally {
      await staging?.close();
    }
  });

  it('binds /cdn use to the one account holding the zone, and asks which when both do', async () => {
    const { h, staging } = await namedOnly({ staging: true });
    try {
      expect(textOf((await ask(h, 'use example.com', ADMIN)).blocks)).toContain(
        '`example.com` is in several CDN accounts: `prod/example.com` or `staging/example.com`.',
      );
      const bound = await ask(h, 'use only-in-staging.example', ADMIN);
      expect(textOf(bound.blocks)).toContain(
        "made *only-in-staging.example* this channel's default",
      );
      await h.command('purge /a.css');
      await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
      expect(purges(staging?.requests ?? [])).toEqual([
        { files: ['https://only-in-staging.example/a.css'] },
      ]);
      expect(purges(h.sandbox.requests)).toEqual([]);
    } finally {
      await staging?.close();
    }
  });

  it('switches the rate limit of the account’s zone from its buttons, and the audit filters by account', async () => {
    const { h, staging } = await namedOnly({ staging: true });
    try {
      const state = await ask(h, 'ratelimit staging/example.com', ADMIN);
      await h.click(state, RATELIMIT_IDS.on, { user: ADMIN });
      await h.slack.waitForMessages((m) => m.text?.startsWith('Rate limiting on') ?? false);
      await h.command('ratelimit prod/example.com off', { user: ADMIN });
      await h.slack.waitForMessages((m) => m.text?.startsWith('Rate limiting off') ?? false);
      expect(settings(staging?.requests ?? [])).toEqual([
        { limits: { enabled: true, mode: 'automatic' } },
      ]);
      expect(settings(h.sandbox.requests)).toEqual([
        { limits: { enabled: false, mode: 'automatic' } },
      ]);

      const inStaging = textOf((await ask(h, 'audit staging/example.com')).blocks);
      expect(inStaging).toContain('`ratelimit.on` on *example.com* in `staging`');
      expect(inStaging).not.toContain('ratelimit.off');
      const inProd = textOf((await ask(h, 'audit example.com account:prod')).blocks);
      expect(inProd).toContain('`ratelimit.off` on *example.com* in `prod`');
      expect(inProd).not.toContain('ratelimit.on');

      // The zone picker offers both accounts' zones, each named with its account.
      const values = (await picked(h, 'example.com')).map((o) => o.text);
      expect(values).toContain('prod/example.com (active)');
      expect(values).toContain('staging/example.com (active)');
    } finally {
      await staging?.close();
    }
  });
});
