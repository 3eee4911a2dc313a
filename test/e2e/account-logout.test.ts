// /cdn logout in a workspace of several CDN accounts (issue 29), over the signed HTTP receiver:
// it removes the key of the account `default` only, and says so; only `default`'s watches,
// reports and channel defaults are counted, paused, cleared or deleted, while `prod`'s go on;
// the audit stays. Without an account `default`, it names the accounts and where to remove one.
import { describe, expect, it } from 'vitest';
import { LOGOUT_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { type Sandbox, startSandbox } from '../../src/dev/sandbox/server.js';
import type { NewTokenInput } from '../../src/services/api/api-tokens.js';
import { BACKENDS, type Backend } from '../helpers/store.js';
import { commandReply, interval } from './flows.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, startHarness, textOf } from './harness.js';

const HOUR = 3_600_000;
/** The channel `prod`'s work posts in. */
const PROD_CHANNEL = 'CPROD';
const by = { userId: 'U0', validated: true };

const answer = (h: Harness, text: string, user = MEMBER, channel = CHANNEL) =>
  commandReply(h, text, { user, channel });

/** Clicks a button of the question `message`; resolves with the answer that replaced it. */
async function choose(h: Harness, message: Message, actionId: string): Promise<string> {
  const asked = message.text;
  await h.click(message, actionId, { user: ADMIN });
  await h.slack.waitForMessages((m) => m === message && m.text !== asked);
  return textOf(message.text);
}

const trafficReads = (requests: Sandbox['requests']) =>
  requests.filter((r) => r.path.endsWith('/analytics/traffic')).length;

/**
 * `default` (`/cdn login`, the harness's sandbox) and `prod` (its own sandbox), each with a watch,
 * a daily report and a channel default: `default`'s of example.com in CHANNEL, `prod`'s of
 * shop.example.org in PROD_CHANNEL. Close `prod` after.
 */
async function twoBusyAccounts(options: { login?: boolean; backend?: Backend } = {}) {
  const h = await startHarness({
    ...(options.backend ? { backend: options.backend } : {}),
    env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' },
    slack: { fileReadyMs: 0 },
  });
  h.slack.addChannel({ id: PROD_CHANNEL, name: 'prod-ops', botMember: true });
  const prod = await startSandbox({ apiKeys: ['prod-key'], clock: h.clock });
  if (options.login !== false) await h.login();
  const account = await h.store.accounts.create(h.workspaceId, {
    name: 'prod',
    baseUrl: prod.baseUrl,
    apiKey: 'prod-key',
    by,
  });
  if (options.login !== false) {
    expect((await answer(h, 'watch default/example.com')).text).toContain('Watching');
    await answer(h, 'report default/example.com daily');
    await answer(h, 'use default/example.com');
  }
  expect((await answer(h, 'watch prod/shop.example.org', MEMBER, PROD_CHANNEL)).text).toContain(
    'Watching',
  );
  await answer(h, 'report prod/shop.example.org daily', MEMBER, PROD_CHANNEL);
  await answer(h, 'use prod/shop.example.org', MEMBER, PROD_CHANNEL);
  // The first interval reads each watched zone's baseline.
  await interval(h, 2);
  return { h, prod, prodId: account.id };
}

/** The workspace's watches and live reports, as (account, zone) pairs. */
async function work(h: Harness) {
  const accounts = new Map(
    (await h.store.accounts.list(h.workspaceId)).map((account) => [account.id, account.name]),
  );
  const named = (rows: Array<{ accountId: string; zoneName: string }>) =>
    rows.map((r) => `${accounts.get(r.accountId)}/${r.zoneName}`).sort();
  return {
    watches: named(await h.store.watches.listForWorkspace(h.workspaceId)),
    reports: named(await h.store.schedules.listForWorkspace(h.workspaceId)),
  };
}

for (const { backend, skip } of BACKENDS)
  describe.skipIf(skip)(`/cdn logout with a second CDN account \`prod\`, on ${backend}`, () => {
    it("names the account `default`, counts only its work, and leaves prod's running", async () => {
      const { h, prod, prodId } = await twoBusyAccounts({ backend });
      try {
        const auditBefore = (await h.store.audit.recent(h.workspaceId)).length;
        const question = await answer(h, 'logout', ADMIN);
        const asked = textOf(question.blocks);
        expect(asked).toContain(`1 watch* to pause: *example.com* → <#${CHANNEL}>`);
        expect(asked).toContain(`1 daily report* to pause: *example.com* → <#${CHANNEL}>`);
        expect(asked).toContain(`1 channel default zone* (\`/cdn use\`) is cleared: <#${CHANNEL}>`);
        expect(asked).not.toContain('shop.example.org');
        expect(asked).not.toContain(PROD_CHANNEL);
        expect(asked).toContain('The API key of the CDN account `default` is removed');
        expect(asked).toContain(
          'The CDN account `prod` keeps its key, watches, daily reports and channel default zones.',
        );

        const done = await choose(h, question, LOGOUT_IDS.confirm);
        expect(done).toContain('1 watch and 1 daily report are paused');
        expect(done).toContain('1 channel default zone was cleared.');
        expect(done).toContain('The API key of the CDN account `default` is removed.');
        expect(await h.store.credentials.status(h.workspaceId)).toBeUndefined();
        expect(await h.store.accounts.get(h.workspaceId, prodId)).toMatchObject({ hasKey: true });
        expect(await work(h)).toEqual({
          watches: ['default/example.com', 'prod/shop.example.org'],
          reports: ['default/example.com', 'prod/shop.example.org'],
        });
        // `default`'s channel default is cleared; `prod`'s is still there, and used.
        expect(
          (await h.store.channelBindings.view(h.workspaceId, CHANNEL)).binding,
        ).toBeUndefined();
        expect(
          (await h.store.channelBindings.view(h.workspaceId, PROD_CHANNEL)).binding,
        ).toMatchObject({ zoneName: 'shop.example.org', accountId: prodId });
        expect(textOf((await answer(h, 'use', MEMBER, PROD_CHANNEL)).blocks)).toContain(
          'shop.example.org',
        );

        // `prod`'s watch is still evaluated, `default`'s waits; `prod`'s report alone runs.
        const prodReport = (await h.store.schedules.listForWorkspace(h.workspaceId)).find(
          (r) => r.accountId === prodId,
        );
        const defaultReads = trafficReads(h.sandbox.requests);
        const prodReads = trafficReads(prod.requests);
        h.clock.advance(4 * HOUR + 5 * 60_000);
        await interval(h, 2);
        expect(trafficReads(prod.requests)).toBeGreaterThan(prodReads);
        expect(trafficReads(h.sandbox.requests)).toBe(defaultReads);
        expect(await h.deps.reports.tick()).toEqual({ queued: 1, skipped: 0 });
        await h.deps.runner.settled();
        const jobs = await h.store.db.selectFrom('jobs').select(['kind', 'key']).execute();
        expect(jobs.filter((j) => j.kind === 'daily_report')).toEqual([
          expect.objectContaining({ key: expect.stringContaining(prodReport?.id ?? '?') }),
        ]);

        // The audit keeps every entry, and says whose key went.
        const audit = await h.store.audit.recent(h.workspaceId);
        expect(audit.length).toBeGreaterThan(auditBefore);
        expect(audit.find((e) => e.action === 'credentials.remove')?.detail).toMatchObject({
          account: 'default',
          bindings: 1,
          watches: 1,
          reports: 1,
        });
      } finally {
        await prod.close();
      }
    });

    it("deletes only `default`'s watches and reports when that is chosen", async () => {
      const { h, prod } = await twoBusyAccounts({ backend });
      try {
        const question = await answer(h, 'logout', ADMIN);
        const done = await choose(h, question, LOGOUT_IDS.delete);
        expect(done).toContain('1 watch and 1 daily report are deleted.');
        expect(done).toContain('The API key of the CDN account `default` is removed.');
        expect(await work(h)).toEqual({
          watches: ['prod/shop.example.org'],
          reports: ['prod/shop.example.org'],
        });
        expect(
          (await h.store.channelBindings.view(h.workspaceId, PROD_CHANNEL)).binding,
        ).toBeDefined();
        // Asked again, with no key: only `default`'s work would be deleted, and there is none left.
        const again = await answer(h, 'logout', ADMIN);
        expect(again.text).toContain('The CDN account `default` has no API key to remove');
        expect(again.text).toContain('`prod`');
        expect(textOf(again.blocks)).not.toContain('Delete watches and reports');
        const actions = (await h.store.audit.recent(h.workspaceId)).map((e) => e.action);
        expect(actions).toEqual(
          expect.arrayContaining(['credentials.remove', 'watches_reports.delete']),
        );
      } finally {
        await prod.close();
      }
    });

    it('names the API tokens of `default` that stop purging, and no other', async () => {
      const { h, prod, prodId } = await twoBusyAccounts({ backend });
      try {
        const defaultId = await h.loginAccountId();
        const make = (input: Partial<NewTokenInput> & { name: string }) =>
          h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
            zones: null,
            kinds: ['urls_tags'],
            channelId: CHANNEL,
            ...(input.allAccounts ? {} : { accountId: defaultId }),
            ...input,
          });
        await make({ name: 'deploy-bot' });
        await make({ name: 'assets-ci' });
        const revoked = await make({ name: 'old-ci' });
        await h.store.apiTokens.revoke(h.workspaceId, revoked.token.id, ADMIN);
        await make({ name: 'prod-deploy', accountId: prodId });
        await make({ name: 'everywhere', allAccounts: true });

        const asked = textOf((await answer(h, 'logout', ADMIN)).blocks);
        expect(asked).toContain(
          '*2 API tokens* of `default` stop purging until a key is set again (they are not revoked): *assets-ci*, *deploy-bot*',
        );
        for (const other of ['old-ci', 'prod-deploy', 'everywhere'])
          expect(asked).not.toContain(other);
      } finally {
        await prod.close();
      }
    });
  });

describe('/cdn logout in a workspace with `prod` and no account `default`', () => {
  it('says there is no `default`, names the accounts and where to remove one, and changes nothing', async () => {
    const { h, prod } = await twoBusyAccounts({ login: false });
    try {
      expect((await h.store.accounts.byName(h.workspaceId, 'default'))?.id).toBeUndefined();
      const reply = await answer(h, 'logout', ADMIN);
      const said = textOf(reply.blocks ?? reply.text);
      expect(said).toContain('This workspace has no CDN account `default`');
      expect(said).toContain('`prod`');
      expect(said).toContain('App Home');
      expect(said).not.toContain('wait for one');
      expect(said).not.toContain('shop.example.org');
      expect(JSON.stringify(reply.blocks ?? [])).not.toContain(LOGOUT_IDS.delete);
      expect(await work(h)).toEqual({
        watches: ['prod/shop.example.org'],
        reports: ['prod/shop.example.org'],
      });
    } finally {
      await prod.close();
    }
  });
});
