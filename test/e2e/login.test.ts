import { describe, expect, it } from 'vitest';
import { LOGIN_IDS, LOGOUT_IDS } from '../../src/blocks/ids.js';
import { commandReply } from './flows.js';
import { ADMIN, CDN_KEY, type Harness, MEMBER, startHarness, textOf, viewIdOf } from './harness.js';

const keyValues = (key: string, baseUrl?: string) => ({
  [LOGIN_IDS.keyBlock]: { [LOGIN_IDS.keyInput]: { type: 'plain_text_input', value: key } },
  [LOGIN_IDS.baseUrlBlock]: {
    [LOGIN_IDS.baseUrlInput]: { type: 'url_text_input', value: baseUrl ?? null },
  },
});

async function openLogin(h: Harness): Promise<string> {
  await h.command('login', { user: ADMIN });
  const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
  expect(opened?.response.ok).toBe(true);
  return viewIdOf(opened);
}

describe('/cdn login', () => {
  it('refuses a wrong key inline, then checks, stores and confirms a right one', async () => {
    const h = await startHarness();
    const viewId = await openLogin(h);

    const wrong = await h.submit(viewId, keyValues('sk_wrong_key'), { user: ADMIN });
    expect(JSON.parse(wrong.body)).toEqual({
      response_action: 'errors',
      errors: {
        [LOGIN_IDS.keyBlock]: `The CDN at ${new URL(h.sandbox.baseUrl).host} refused this key (401): Invalid API key`,
      },
    });
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();

    const right = await h.submit(viewId, keyValues(CDN_KEY), { user: ADMIN });
    const answer = JSON.parse(right.body);
    expect(answer.response_action).toBe('update');
    expect(textOf(answer.view.blocks)).toContain('Key saved. It works');
    expect((await h.store.credentials.get(h.workspaceId))?.apiKey).toBe(CDN_KEY);
    // The key checks (per_page=1); the zone index built once the key is saved is not theirs.
    const checks = h.sandbox.requests.filter((r) => r.query.per_page === '1');
    expect(checks.map((r) => [r.query.per_page, r.status])).toEqual([
      ['1', 401],
      ['1', 200],
    ]);

    const [confirmation] = await h.slack.waitForMessages(
      (m) => m.text?.includes('key is saved') ?? false,
    );
    expect(confirmation?.ephemeralTo).toBe(ADMIN);
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({ action: 'credentials.set', actorId: ADMIN, outcome: 'ok' });

    // The key is in no message, no view, no Web API call and no log line.
    const everything = [
      textOf(h.slack.messages),
      JSON.stringify(h.slack.calls),
      h.logs.text(),
      JSON.stringify(answer),
    ].join('\n');
    expect(everything).not.toContain(CDN_KEY);
  });

  it('updates the view when the CDN is too slow to answer inline', async () => {
    const h = await startHarness();
    const viewId = await openLogin(h);
    h.sandbox.inject({ kind: 'latency', ms: 200 });
    const submitted = h.submit(viewId, keyValues(CDN_KEY), { user: ADMIN });
    await h.clock.sleepers(1);
    h.clock.advance(2_500);
    const answer = JSON.parse((await submitted).body);
    expect(textOf(answer.view.blocks)).toContain('Checking the key');
    const [update] = await h.slack.waitForCalls((c) => c.method === 'views.update');
    expect(update?.args.view_id).toBe(viewId);
    expect(textOf(update?.args.view)).toContain('Key saved');
    expect((await h.store.credentials.get(h.workspaceId))?.apiKey).toBe(CDN_KEY);
  });

  it('saves and confirms the key when the admin closed the form while the CDN was slow', async () => {
    const h = await startHarness();
    const viewId = await openLogin(h);
    let answer!: () => void;
    const cdnAnswers = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const held = new Promise<void>((onHeld) =>
      h.sandbox.inject({ kind: 'hold', until: cdnAnswers, onHeld }),
    );
    const submitted = h.submit(viewId, keyValues(CDN_KEY), { user: ADMIN });
    await held;
    await h.clock.sleepers(1);
    h.clock.advance(2_500);
    expect(textOf(JSON.parse((await submitted).body).view.blocks)).toContain('Checking the key');
    // The admin walks away: Slack forgets the modal (views.update answers not_found).
    expect(await h.closeView(viewId, { user: ADMIN })).toBeUndefined();
    answer();

    const [confirmation] = await h.slack.waitForMessages(
      (m) => m.text?.includes('key is saved') ?? false,
    );
    expect(confirmation?.ephemeralTo).toBe(ADMIN);
    expect((await h.store.credentials.get(h.workspaceId))?.apiKey).toBe(CDN_KEY);
    expect(h.slack.callsTo('views.update').map((c) => c.response.error)).toEqual(['not_found']);
    expect(textOf(h.slack.messages)).not.toContain('Something went wrong');
    expect(h.slack.messages.filter((m) => m.ephemeralTo === ADMIN || m.channel === ADMIN)).toEqual([
      confirmation,
    ]);
  });

  it('refuses a malformed base URL inline without calling the CDN', async () => {
    const h = await startHarness();
    const viewId = await openLogin(h);
    const answer = JSON.parse(
      (await h.submit(viewId, keyValues(CDN_KEY, 'https://cdn.example.com/api'), { user: ADMIN }))
        .body,
    );
    expect(answer.errors[LOGIN_IDS.baseUrlBlock]).toContain('/v1');
    expect(h.sandbox.requests).toEqual([]);
  });

  it('does not open the form for a non-admin', async () => {
    const h = await startHarness();
    const reply = await commandReply(h, 'login', { user: MEMBER });
    expect(reply?.text).toBe('Only workspace admins and owners can set the CDN API key.');
    expect(reply?.ephemeralTo).toBe(MEMBER);
    expect(h.slack.callsTo('views.open')).toEqual([]);
  });

  it('lets an admin remove the key once confirmed, and then says how to set one', async () => {
    const h = await startHarness({ login: true });
    const refused = await commandReply(h, 'logout', { user: MEMBER });
    await h.command('logout', { user: ADMIN });
    const [, asked] = await h.slack.waitForMessages((m) => m.via === 'response_url', 2);
    expect(refused?.text).toContain('Only workspace admins');
    expect(asked?.text).toContain('Log out of the CDN?');
    if (!asked) throw new Error('no question');
    await h.click(asked, LOGOUT_IDS.confirm, { user: ADMIN });
    await h.slack.waitForMessages(
      (m) => m.text?.includes('The API key of the CDN account `default` is removed') ?? false,
    );
    expect(textOf(asked.text)).toContain('until an admin runs `/cdn login`');
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
  });
});

describe('/cdn login with a base-URL override (SSRF)', () => {
  it.each([
    ['http://127.0.0.1/v1', 'must use https://'],
    ['https://169.254.169.254/v1', 'is not allowed: 169.254.169.254 is not a public address'],
    ['https://10.0.0.1/v1', 'is not allowed: 10.0.0.1 is not a public address'],
    ['https://localhost/v1', 'is not allowed: localhost is not a public address'],
  ])('refuses %s inline, saying why, and calls nothing', async (baseUrl, why) => {
    const h = await startHarness();
    const viewId = await openLogin(h);
    const answer = JSON.parse(
      (await h.submit(viewId, keyValues(CDN_KEY, baseUrl), { user: ADMIN })).body,
    );
    expect(answer.errors[LOGIN_IDS.baseUrlBlock]).toContain(why);
    expect(answer.errors[LOGIN_IDS.baseUrlBlock]).toMatch(/^The base URL /);
    expect(h.sandbox.requests).toEqual([]);
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
  });

  it('catches a name that resolves to a public address when saved and a private one at connect', async () => {
    let asked = 0;
    // The first answer (the check) is public; every later one (the connection) is loopback.
    const h = await startHarness({
      resolve: async () => [{ address: asked++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }],
    });
    const viewId = await openLogin(h);
    const answer = JSON.parse(
      (await h.submit(viewId, keyValues(CDN_KEY, 'https://rebind.example/v1'), { user: ADMIN }))
        .body,
    );
    expect(answer.errors[LOGIN_IDS.keyBlock]).toBe(
      "Couldn't check the key: I won't call that CDN API address: rebind.example is not a public address; only public addresses are allowed. A workspace admin can set another base URL with `/cdn login`.",
    );
    expect(asked).toBeGreaterThanOrEqual(2);
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
  });

  it('lets the operator allow a host (here the sandbox on loopback) with CDN_BASE_URL_ALLOWLIST', async () => {
    const h = await startHarness({ env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' } });
    const viewId = await openLogin(h);
    const submitted = await h.submit(viewId, keyValues(CDN_KEY, h.sandbox.baseUrl), {
      user: ADMIN,
    });
    expect(textOf(JSON.parse(submitted.body).view.blocks)).toContain('Key saved');
    expect((await h.store.credentials.get(h.workspaceId))?.baseUrl).toBe(h.sandbox.baseUrl);
  });

  it('refuses to use a stored plain-http override that is no longer allowed', async () => {
    const h = await startHarness({ login: true });
    // The sandbox itself, named differently from CDN_API_BASE_URL (which stays trusted).
    const override = h.sandbox.baseUrl.replace('127.0.0.1', 'localhost');
    await h.store.accounts.setBaseUrl(h.workspaceId, await h.loginAccountId(), override);
    const reply = await commandReply(h, 'zones', { user: MEMBER });
    expect(reply?.text).toContain("does not use https, so I won't call it");
    expect(h.sandbox.requests).toEqual([]);
  });
});
