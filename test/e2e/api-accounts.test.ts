// The purge API with two CDN accounts (issue 29 met issue 30), over real HTTP: two sandboxes hold
// the same zone names (and ids); a zone named alone is looked for in the accounts the token may
// use, `account` narrows it to one, and each purge reaches its own account's sandbox only. A token
// with no channel announces in the zone's channel, found in any account and among many channels.
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS } from '../../src/blocks/ids.js';
import { startSandbox } from '../../src/dev/sandbox/server.js';
import { addAccount } from './account-flows.js';
import { expectProblem, finalPurge, postPurge } from './api-flows.js';
import { openApprove } from './flows.js';
import { ADMIN, CDN_KEY, CHANNEL, type Harness, startHarness, textOf } from './harness.js';

const purges = <R extends { path: string }>(requests: R[]) =>
  requests.filter((r) => r.path.endsWith('/purge'));

/** `default` (the harness's sandbox) and `staging` (its own), both with the demo zones. */
async function twoAccounts() {
  const h = await startHarness({ env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' } });
  const staging = await startSandbox({ apiKeys: ['staging-key'], clock: h.clock });
  // A zone of staging only.
  staging.state.activate(staging.state.create('ci.staging.test', 'pro').id);
  await h.login();
  await addAccount(h, 'staging', staging.baseUrl, 'staging-key');
  const account = await h.store.accounts.byName(h.workspaceId, 'staging');
  if (!account) throw new Error('no staging account');
  return { h, staging, stagingId: account.id };
}

/** A token for one account (its id), or for every account (`all`: an admin's explicit choice). */
async function token(h: Harness, name: string, account: string) {
  const made = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
    name,
    zones: null,
    ...(account === 'all' ? { allAccounts: true } : { accountId: account }),
    kinds: ['urls_tags', 'everything'],
    channelId: CHANNEL,
  });
  return made.secret;
}

async function accepted(response: Response): Promise<string> {
  const body = (await response.json()) as { id?: string };
  expect(response.status, JSON.stringify(body)).toBe(202);
  return body.id ?? '';
}

describe('the purge API with two CDN accounts holding the same zone name', () => {
  it('finds a zone named alone across every account of a token made for every account, and refuses an ambiguous one', async () => {
    const { h, staging } = await twoAccounts();
    const secret = await token(h, 'deploy', 'all');

    const ambiguous = await expectProblem(
      await postPurge(h, secret, {
        zone: 'shop.example.org',
        urls: ['https://shop.example.org/a.css'],
      }),
      409,
      'ambiguous-zone',
    );
    expect(ambiguous.accounts).toEqual(['default', 'staging']);
    expect(await h.store.db.selectFrom('api_purges').selectAll().execute()).toEqual([]);

    // In one account only: that one.
    const id = await accepted(
      await postPurge(h, secret, { zone: 'ci.staging.test', tags: ['hero'] }),
    );
    const done = await finalPurge(h, secret, id);
    expect(purges(staging.requests).map((r) => r.body)).toEqual([{ tags: ['hero'] }]);
    expect(done).toMatchObject({
      status: 'succeeded',
      zone: 'ci.staging.test',
      account: 'staging',
    });

    // In none: not found, as before.
    await expectProblem(
      await postPurge(h, secret, { zone: 'nowhere.example', tags: ['a'] }),
      404,
      'zone-not-found',
    );
    await h.deps.runner.settled();
    expect(purges(h.sandbox.requests)).toHaveLength(0);
    expect(purges(staging.requests)).toHaveLength(1);
    await staging.close();
  });

  it('purges the account named only, says so in the status, in Slack and in the audit, and refuses an unknown one', async () => {
    const { h, staging, stagingId } = await twoAccounts();
    const secret = await token(h, 'deploy', 'all');

    const inStaging = await accepted(
      await postPurge(h, secret, {
        zone: 'shop.example.org',
        account: 'staging',
        urls: ['https://shop.example.org/a.css'],
      }),
    );
    const done = await finalPurge(h, secret, inStaging);
    expect(purges(staging.requests).map((r) => r.body)).toEqual([
      { files: ['https://shop.example.org/a.css'] },
    ]);
    expect(purges(h.sandbox.requests)).toHaveLength(0);
    expect(done).toEqual({
      id: inStaging,
      status: 'succeeded',
      zone: 'shop.example.org',
      account: 'staging',
      kind: 'urls',
      progress: { done: 1, total: 1 },
    });
    await h.slack.waitForMessages(
      (m) =>
        m.channel === CHANNEL &&
        textOf(m.blocks).includes('CDN account `staging`') &&
        (m.text?.startsWith('Purged') ?? false),
    );
    const audit = await h.store.audit.recent(h.workspaceId);
    const requested = audit.find((e) => e.action === 'api.purge.requested');
    expect(requested?.accountId).toBe(stagingId);
    expect(requested?.detail?.account).toBe('staging');

    const inDefault = await accepted(
      await postPurge(h, secret, { zone: 'shop.example.org', account: 'default', tags: ['x'] }),
    );
    const inDefaultDone = await finalPurge(h, secret, inDefault);
    expect(purges(h.sandbox.requests).map((r) => r.body)).toEqual([{ tags: ['x'] }]);
    expect(purges(staging.requests)).toHaveLength(1);
    expect(inDefaultDone).toMatchObject({ status: 'succeeded', account: 'default' });

    const unknown = await expectProblem(
      await postPurge(h, secret, { zone: 'shop.example.org', account: 'qa', tags: ['y'] }),
      404,
      'account-not-found',
    );
    expect(unknown.accounts).toEqual(['default', 'staging']);
    await h.deps.runner.settled();
    expect(purges(h.sandbox.requests)).toHaveLength(1);
    expect(purges(staging.requests)).toHaveLength(1);
    await staging.close();
  });

  it('keeps a token bound to an account to that account: its zones only, another account refused', async () => {
    const { h, staging, stagingId } = await twoAccounts();
    const secret = await token(h, 'staging-deploy', stagingId);

    // The name is in both accounts: the token's is the only one it may use, so no ambiguity.
    const id = await accepted(
      await postPurge(h, secret, { zone: 'shop.example.org', tags: ['a'] }),
    );
    const done = await finalPurge(h, secret, id);
    expect(purges(staging.requests).map((r) => r.body)).toEqual([{ tags: ['a'] }]);
    expect(purges(h.sandbox.requests)).toHaveLength(0);
    expect(done).toMatchObject({ status: 'succeeded', account: 'staging' });
    // Naming its own account (by name, in any case) is fine.
    const named = await accepted(
      await postPurge(h, secret, { zone: 'shop.example.org', account: 'Staging', tags: ['b'] }),
    );
    expect(await finalPurge(h, secret, named)).toMatchObject({ account: 'staging' });
    expect(purges(staging.requests).map((r) => r.body)).toEqual([{ tags: ['a'] }, { tags: ['b'] }]);

    await expectProblem(
      await postPurge(h, secret, { zone: 'shop.example.org', account: 'default', tags: ['c'] }),
      403,
      'forbidden-account',
    );
    // Another account's name is refused the same way, whether the workspace has it or not.
    await expectProblem(
      await postPurge(h, secret, { zone: 'shop.example.org', account: 'qa', tags: ['c'] }),
      403,
      'forbidden-account',
    );
    // A zone of `default` only is not one of its account's.
    h.sandbox.state.activate(h.sandbox.state.create('docs.default.test', 'pro').id);
    await expectProblem(
      await postPurge(h, secret, { zone: 'docs.default.test', tags: ['c'] }),
      404,
      'zone-not-found',
    );
    await h.deps.runner.settled();
    expect(purges(h.sandbox.requests)).toHaveLength(0);
    expect(purges(staging.requests)).toHaveLength(2);
    await staging.close();
  });

  it('asks approval to purge everything in the account named, and purges that account only', async () => {
    const { h, staging, stagingId } = await twoAccounts();
    const secret = await token(h, 'deploy', 'all');
    const id = await accepted(
      await postPurge(h, secret, {
        zone: 'shop.example.org',
        account: 'staging',
        everything: true,
        reason: 'bad deploy',
      }),
    );
    const [message] = await h.slack.waitForMessages(
      (m) => m.channel === CHANNEL && JSON.stringify(m.blocks ?? []).includes(APPROVAL_IDS.approve),
    );
    if (!message) throw new Error('no approval message');
    const approval = await h.store.db.selectFrom('approvals').selectAll().executeTakeFirst();
    expect(approval?.account_id).toBe(stagingId);
    expect(textOf(message.blocks)).toContain('in the CDN account `staging`');

    const viewId = await openApprove(h, message, ADMIN);
    await h.submit(viewId, {}, { user: ADMIN });
    expect(await finalPurge(h, secret, id)).toMatchObject({
      status: 'succeeded',
      kind: 'everything',
      zone: 'shop.example.org',
      account: 'staging',
      approved_by: ADMIN,
    });
    expect(purges(staging.requests).map((r) => r.body)).toEqual([{ purge_everything: true }]);
    expect(purges(h.sandbox.requests)).toHaveLength(0);
    await staging.close();
  });

  it('replays an Idempotency-Key with its account: the same purge, another account a conflict', async () => {
    const { h, staging } = await twoAccounts();
    const secret = await token(h, 'deploy', 'all');
    const key = { 'idempotency-key': 'release-9' };
    const body = { zone: 'shop.example.org', account: 'staging', tags: ['release'] };
    const first = await accepted(await postPurge(h, secret, body, key));
    const done = await finalPurge(h, secret, first);
    expect(purges(staging.requests)).toHaveLength(1);
    expect(done).toMatchObject({ status: 'succeeded', account: 'staging' });
    expect(await accepted(await postPurge(h, secret, body, key))).toBe(first);
    expect((await finalPurge(h, secret, first)).account).toBe('staging');
    await expectProblem(
      await postPurge(h, secret, { ...body, account: 'default' }, key),
      409,
      'idempotency-conflict',
    );
    const { account: _named, ...unnamed } = body;
    await expectProblem(await postPurge(h, secret, unnamed, key), 409, 'idempotency-conflict');
    await h.deps.runner.settled();
    expect(purges(staging.requests)).toHaveLength(1);
    expect(purges(h.sandbox.requests)).toHaveLength(0);
    expect(await h.store.db.selectFrom('api_purges').selectAll().execute()).toHaveLength(1);
    await staging.close();
  });
});

describe('the purge API announcing in the channel that has the zone as its default', () => {
  it('finds it in a workspace whose one CDN account is not `default`, for URLs and everything', async () => {
    const h = await startHarness();
    // No `/cdn login`: no `default`, its key or its key generation; `prod` only.
    const prod = await addAccount(h, 'prod', h.sandbox.baseUrl, CDN_KEY);
    const before = h.slack.messages.length;
    await h.command('use prod/example.com');
    await h.slack.waitForMessages((m) => m.via === 'response_url', 1);
    expect(h.slack.messages[before]?.text).toContain('default zone');
    // A token with no channel of its own: its purges go where the zone is the default.
    const made = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
      name: 'deploy',
      zones: null,
      accountId: prod.id,
      kinds: ['urls_tags', 'everything'],
      channelId: null,
    });
    const urls = await accepted(
      await postPurge(h, made.secret, { zone: 'example.com', urls: ['https://example.com/a.css'] }),
    );
    expect(await finalPurge(h, made.secret, urls)).toMatchObject({
      status: 'succeeded',
      account: 'prod',
    });
    await h.deps.runner.settled();
    const announced = h.slack.messages.filter((m) => m.channel === CHANNEL && m.via === 'api');
    expect(announced.map((m) => m.text)).toEqual(['Purged 1 item on example.com']);

    const response = await postPurge(h, made.secret, { zone: 'example.com', everything: true });
    expect(response.status, await response.clone().text()).toBe(202);
    const [request] = await h.slack.waitForMessages(
      (m) => m.channel === CHANNEL && JSON.stringify(m.blocks ?? []).includes(APPROVAL_IDS.approve),
    );
    expect(textOf(request?.blocks)).toContain('in the CDN account `prod`');
  });

  it('finds the zone’s channel among more than 50 channels with a default zone', async () => {
    const h = await startHarness();
    await h.login();
    const key = await h.store.credentials.get(h.workspaceId);
    const example = h.sandbox.state.byName('example.com');
    if (!key || !example) throw new Error('no key or zone');
    // 60 channels sorted before CHANNEL have another zone as their default.
    for (let i = 0; i < 60; i++)
      await h.store.channelBindings.set(
        h.workspaceId,
        `CA${String(i).padStart(3, '0')}`,
        example,
        key.generation,
        ADMIN,
        key.accountId,
      );
    await h.command('use shop.example.org');
    await h.slack.waitForMessages((m) => m.via === 'response_url', 1);
    const made = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
      name: 'deploy',
      zones: null,
      accountId: null,
      kinds: ['urls_tags'],
      channelId: null,
    });
    const id = await accepted(
      await postPurge(h, made.secret, { zone: 'shop.example.org', tags: ['release'] }),
    );
    expect(await finalPurge(h, made.secret, id)).toMatchObject({ status: 'succeeded' });
    await h.deps.runner.settled();
    const announced = h.slack.messages.filter((m) => m.via === 'api');
    expect(announced.map((m) => [m.channel, m.text])).toEqual([
      [CHANNEL, 'Purged 1 item on shop.example.org'],
    ]);
  });
});
