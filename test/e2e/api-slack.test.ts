// The Slack side of the HTTP API (issue 30), over the signed receiver and the fake Slack: tokens made
// in a modal (the secret shown once) and revoked from the App Home, one message per API purge in
// the zone's bound channel, purges of everything asked by a token and approved in Slack, the audit.
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS, TOKENS_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { SLACK_GAPS } from '../../src/slack/web-api-paces.js';
import { expectNoSecrets } from '../helpers/logs.js';
import { ask } from './account-flows.js';
import { finalPurge, holdPurges, postPurge, startPurge } from './api-flows.js';
import { accountSelectOf, everythingRequests, openApprove, tokenFormValues } from './flows.js';
import {
  ADMIN,
  CHANNEL,
  type Harness,
  MEMBER,
  OTHER,
  startHarness,
  textOf,
  viewIdOf,
} from './harness.js';

const SECRET = /cdnb_[A-Za-z0-9_-]{43}/;
const RUN_URL = 'https://github.com/acme/shop/actions/runs/42';

type NewToken = Parameters<Harness['deps']['apiTokens']['createUnchecked']>[2];

/** A logged-in harness, and a token for CI that ADMIN made: `token`'s settings. */
async function withToken(token: NewToken) {
  const h = await startHarness();
  await h.login();
  return { h, ...(await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, token)) };
}

/** deploy-bot, for URLs and tags on example.com; its purges are told in CHANNEL. */
const DEPLOY_URLS: NewToken = {
  name: 'deploy-bot',
  zones: ['example.com'],
  kinds: ['urls_tags'],
  channelId: CHANNEL,
};
/** deploy-bot, for purges of everything on any zone; its requests are posted in CHANNEL. */
const DEPLOY_EVERYTHING: NewToken = {
  name: 'deploy-bot',
  zones: null,
  kinds: ['everything'],
  channelId: CHANNEL,
};

/** The first request for approval the bot posted (with the Web API). */
async function approvalRequested(h: Harness): Promise<Message | undefined> {
  const [request] = await h.slack.waitForMessages(
    (m) => m.via === 'api' && (m.text?.includes('Approval needed') ?? false),
  );
  return request;
}

describe('tokens of the HTTP API, in Slack', () => {
  it('an admin makes one in the modal, sees its secret once, and CI purges with it', async () => {
    const h = await startHarness();
    await h.login();
    const list = await ask(h, 'tokens', ADMIN);
    expect(textOf(list.blocks)).toContain('No tokens yet');

    await h.click(list, TOKENS_IDS.create, { user: ADMIN });
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    const viewId = viewIdOf(opened);
    // The workspace's one account, `default`, is chosen at first; every account is offered.
    const defaultId = (await h.store.accounts.byName(h.workspaceId, 'default'))?.id ?? '';
    const accountSelect = accountSelectOf(opened);
    expect(accountSelect.initial_option?.value).toBe(defaultId);
    expect(accountSelect.options.map((o) => o.text.text)).toEqual([
      'default',
      'Every CDN account, including those added later',
    ]);
    // Slack marks both zone fields optional: each says that one of the two is required.
    const form = opened?.args.view as {
      blocks: Array<{ block_id?: string; hint?: { text: string } }>;
    };
    const hints = Object.fromEntries(form.blocks.map((b) => [b.block_id, b.hint?.text]));
    expect(hints[TOKENS_IDS.zonesBlock]).toContain('Required unless "Every zone" below is ticked');
    expect(hints[TOKENS_IDS.allZonesBlock]).toContain('Required unless zones are picked above');
    // No zone and not "all zones": said on the field, nothing made.
    const empty = JSON.parse(
      (
        await h.submit(
          viewId,
          tokenFormValues(h, {
            name: 'deploy-bot',
            account: defaultId,
            zones: [],
            kinds: ['urls_tags'],
          }),
          {
            user: ADMIN,
          },
        )
      ).body,
    );
    expect(empty.errors).toEqual({
      [TOKENS_IDS.zonesBlock]:
        'Zones are required: pick at least one zone, or tick "All zones" under "Every zone".',
    });
    expect(await h.store.apiTokens.list(h.workspaceId)).toEqual([]);

    const done = await h.submit(
      viewId,
      tokenFormValues(h, {
        name: 'deploy-bot',
        account: defaultId,
        zones: ['example.com'],
        kinds: ['urls_tags'],
      }),
      { user: ADMIN },
    );
    const answer = JSON.parse(done.body) as { response_action: string; view: unknown };
    expect(answer.response_action).toBe('update');
    const secret = SECRET.exec(textOf(answer.view))?.[0] ?? '';
    expect(secret).toMatch(SECRET);
    expect(textOf(answer.view)).toContain('shown *only this once*');
    expect(textOf(answer.view)).toContain('It purges in: CDN account `default`, 1 zone.');

    // The token lists without its secret, with its account; the zone was stored by name.
    const again = await ask(h, 'tokens', ADMIN);
    expect(textOf(again.blocks)).toContain('deploy-bot');
    expect(textOf(again.blocks)).toContain('CDN account `default` · example.com');
    expect((await h.store.apiTokens.list(h.workspaceId))[0]).toMatchObject({
      accountId: defaultId,
      allAccounts: false,
      zones: ['example.com'],
    });
    expect(JSON.stringify(again.blocks)).not.toContain(secret);

    const response = await postPurge(h, secret, {
      zone: 'example.com',
      urls: ['https://example.com/app.css'],
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    expect((await finalPurge(h, secret, id)).status).toBe('succeeded');

    // Never in a conversation, never in a log line.
    for (const m of h.slack.messages) expect(JSON.stringify(m)).not.toContain(secret);
    expectNoSecrets(h.logs, { 'the API token': secret });
  });

  it('refuses a non-admin: the list, the form and its submission', async () => {
    const h = await startHarness();
    await h.login();
    const refused = await ask(h, 'tokens', MEMBER);
    expect(refused.text).toContain('manage API tokens');

    const list = await ask(h, 'tokens', ADMIN);
    await h.click(list, TOKENS_IDS.create, { user: MEMBER });
    const [notice] = await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER, 2);
    expect(notice?.text).toContain('manage API tokens');
    expect(h.slack.callsTo('views.open')).toEqual([]);

    // A forged submission of the form is refused on the field too.
    await h.click(list, TOKENS_IDS.create, { user: ADMIN });
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    const viewId = viewIdOf(opened);
    const forged = JSON.parse(
      (
        await h.submit(
          viewId,
          tokenFormValues(h, {
            name: 'sneaky',
            account: TOKENS_IDS.allAccountsValue,
            zones: [],
            allZones: true,
            kinds: ['everything'],
          }),
          { user: MEMBER },
        )
      ).body,
    );
    expect(forged.errors[TOKENS_IDS.nameBlock]).toContain('manage API tokens');
    expect(await h.store.apiTokens.list(h.workspaceId)).toEqual([]);
  });

  it('revoked from the App Home (asked first), it is refused at its next request', async () => {
    const { h, secret, token } = await withToken({
      name: 'nightly',
      zones: null,
      kinds: ['urls_tags'],
    });
    await h.event({ type: 'app_home_opened', user: ADMIN, channel: 'D1', tab: 'home' });
    await h.slack.waitForCalls((c) => c.method === 'views.publish');
    const home = h.slack.homes.get(ADMIN);
    expect(textOf(home?.view)).toContain('Tokens for CI');
    expect(textOf(home?.view)).toContain('nightly');
    // Slack asks before the click is sent: the button carries a confirm dialog.
    expect(JSON.stringify(home?.view)).toContain('Revoke this token?');

    await h.clickInView(home?.id ?? '', `${TOKENS_IDS.homeRevoke}_0`, {
      user: ADMIN,
      value: token.id,
    });
    await h.slack.waitForCalls((c) => c.method === 'views.publish', 2);
    expect(textOf(h.slack.homes.get(ADMIN)?.view)).toContain('revoked');
    const after = await postPurge(h, secret, {
      zone: 'example.com',
      urls: ['https://example.com/a'],
    });
    expect(after.status).toBe(401);

    // A member's Home has no Tokens section.
    await h.event({ type: 'app_home_opened', user: MEMBER, channel: 'D2', tab: 'home' });
    await h.slack.waitForCalls((c) => c.method === 'views.publish', 3);
    expect(textOf(h.slack.homes.get(MEMBER)?.view)).not.toContain('Tokens for CI');
  });
});

describe('tokens of the HTTP API, revoked from /cdn tokens', () => {
  it('replaces the list in place, and the token is refused at once', async () => {
    const { h, secret } = await withToken({
      name: 'nightly',
      zones: null,
      kinds: ['urls_tags'],
    });
    const list = await ask(h, 'tokens', ADMIN);
    expect(JSON.stringify(list.blocks)).toContain('Revoke this token?');
    // A member cannot revoke it, even with the button in hand.
    await h.click(list, `${TOKENS_IDS.revoke}_0`, { user: MEMBER });
    await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER);
    expect((await h.store.apiTokens.list(h.workspaceId))[0]?.revokedAt).toBeNull();

    await h.click(list, `${TOKENS_IDS.revoke}_0`, { user: ADMIN });
    await h.slack.waitForMessages((m) => m === list && m.history.length > 0);
    expect(textOf(list.blocks)).toContain('revoked');
    const after = await postPurge(h, secret, {
      zone: 'example.com',
      urls: ['https://example.com/a'],
    });
    expect(after.status).toBe(401);
  });
});

describe('purges from CI, in Slack', () => {
  it('posts one message in the zone’s bound channel: who, what, progress, the result, the run', async () => {
    const { h, secret } = await withToken({
      name: 'deploy-bot',
      zones: ['example.com'],
      kinds: ['urls_tags'],
    });
    await ask(h, 'use example.com', ADMIN);
    const urls = Array.from({ length: 5 }, (_, i) => `https://example.com/assets/${i}.js`);
    const id = await startPurge(h, secret, {
      zone: 'example.com',
      urls,
      reason: 'release <!channel> 4.2',
      context: {
        repository: 'acme/shop',
        commit: '9f2c1ab0d4e5f60718293a4b',
        run_url: RUN_URL,
        actor: '<@UEVIL> alice',
      },
    });
    expect((await finalPurge(h, secret, id)).status).toBe('succeeded');
    await h.deps.runner.settled();

    const posted = h.slack.messages.filter((m) => m.via === 'api' && m.channel === CHANNEL);
    expect(posted).toHaveLength(1);
    const message = posted[0] as Message;
    const shown = textOf(message.blocks);
    expect(shown).toContain('CI token *deploy-bot* (actor: <@UEVIL> alice)');
    expect(shown).toContain('purged 5 URLs on *example.com*');
    expect(shown).toContain('https://example.com/assets/0.js');
    expect(shown).toContain('acme/shop');
    expect(shown).toContain('9f2c1ab0d4e5');
    // The run's link is a link; what the CI sent is escaped, never a mention or a broadcast.
    const raw = JSON.stringify(message.blocks);
    expect(raw).toContain(`<${RUN_URL}|the CI run>`);
    expect(raw).not.toContain('<@UEVIL>');
    expect(raw).not.toContain('<!channel>');
    expect(raw).not.toContain('<@token:');
    // Done before its first progress milestone: the result alone, one call, never edited.
    expect(message.history).toEqual([]);
    expect(h.slack.callsTo('chat.update')).toEqual([]);
  });

  it('says "Purging…" once a third is done, then edits that message into the result', async () => {
    const { h, secret } = await withToken(DEPLOY_URLS);
    // 240 URLs: 8 requests of 30, 4 at a time; the first two held, so the other six end meanwhile.
    const release = holdPurges(h, 2);
    const urls = Array.from({ length: 240 }, (_, i) => `https://example.com/assets/${i}.js`);
    const id = await startPurge(h, secret, { zone: 'example.com', urls });
    const [opening] = await h.slack.waitForMessages(
      (m) => m.via === 'api' && m.channel === CHANNEL,
    );
    expect(textOf(opening?.blocks)).toContain('is purging 240 URLs');
    release();
    expect((await finalPurge(h, secret, id)).status).toBe('succeeded');
    await h.deps.runner.settled();
    // A progress edit took the workspace's chat.update slot: the result's edit has the next one.
    h.clock.advance(SLACK_GAPS.tier3Ms);
    h.deps.runner.lookNow();
    await h.deps.runner.settled();
    const posted = h.slack.messages.filter((m) => m.via === 'api' && m.channel === CHANNEL);
    expect(posted).toHaveLength(1);
    expect(textOf(posted[0]?.blocks)).toContain('purged 240 URLs on *example.com*');
    // The same message, edited: first "Purging…" at its first third (or later, once it ran).
    expect(posted[0]?.history[0]?.text).toMatch(/^Purging: (9|1[2-8])0\/240$/);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(1);
  });

  it('posts nothing before the result of a purge sent in one round (4 requests at once)', async () => {
    const { h, secret } = await withToken(DEPLOY_URLS);
    // 120 URLs: all 4 requests out at once; two end (their results stored) while two are held.
    const release = holdPurges(h, 2);
    const completeSteps = h.store.jobs.completeSteps.bind(h.store.jobs);
    let stored = 0;
    let twoStored = () => {};
    const halfDone = new Promise<void>((resolve) => {
      twoStored = resolve;
    });
    h.store.jobs.completeSteps = async (...args) => {
      const closed = await completeSteps(...args);
      stored += closed.size;
      if (stored >= 2) twoStored();
      return closed;
    };
    const urls = Array.from({ length: 120 }, (_, i) => `https://example.com/assets/${i}.js`);
    const id = await startPurge(h, secret, { zone: 'example.com', urls });
    await halfDone;
    release();
    expect((await finalPurge(h, secret, id)).status).toBe('succeeded');
    await h.deps.runner.settled();
    const posted = h.slack.messages.filter((m) => m.via === 'api' && m.channel === CHANNEL);
    expect(posted.map((m) => m.text)).toEqual(['Purged 120 items on example.com']);
    expect(posted[0]?.history).toEqual([]);
    expect(h.slack.callsTo('chat.update')).toEqual([]);
  });

  it('says nothing in Slack when neither the token nor the zone has a channel', async () => {
    const { h, secret } = await withToken({
      name: 'quiet',
      zones: null,
      kinds: ['urls_tags'],
    });
    const id = await startPurge(h, secret, {
      zone: 'example.com',
      urls: ['https://example.com/x'],
    });
    expect((await finalPurge(h, secret, id)).status).toBe('succeeded');
    await h.deps.runner.settled();
    expect(h.slack.callsTo('chat.postMessage')).toEqual([]);
  });

  it('asks for everything as the token; the actor found by e-mail cannot approve, another can', async () => {
    const { h, secret } = await withToken({
      name: 'deploy-bot',
      zones: ['example.com'],
      kinds: ['everything'],
      channelId: CHANNEL,
    });
    h.slack.addUser({ id: MEMBER, name: 'bob', email: 'bob@example.com' });
    const response = await postPurge(h, secret, {
      zone: 'example.com',
      everything: true,
      context: { actor: 'bob@example.com', run_url: RUN_URL },
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    const [request] = await h.slack.waitForMessages(
      (m) =>
        m.via === 'api' && m.channel === CHANNEL && (m.text?.includes('Approval needed') ?? false),
    );
    if (!request) throw new Error('no approval request');
    const shown = textOf(request.blocks);
    expect(shown).toContain(
      'CI token *deploy-bot* (actor: bob@example.com) asked to purge everything',
    );
    expect(shown).toContain(`bob@example.com is <@${MEMBER}> (by e-mail), who cannot approve`);
    expect(JSON.stringify(request.blocks)).not.toContain('<@token:');
    expect(JSON.stringify(request.blocks)).not.toContain(APPROVAL_IDS.cancel);

    await h.click(request, APPROVAL_IDS.approve, { user: MEMBER });
    const [refusal] = await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER);
    expect(refusal?.text).toContain('someone else has to approve it');
    expect(h.slack.callsTo('views.open')).toEqual([]);

    const viewId = await openApprove(h, request, OTHER);
    await h.submit(viewId, {}, { user: OTHER });
    expect(await finalPurge(h, secret, id)).toMatchObject({
      status: 'succeeded',
      approved_by: OTHER,
    });
    expect(everythingRequests(h)).toHaveLength(1);
  });

  it('says so when the actor is not an e-mail: nobody is matched', async () => {
    const { h, secret } = await withToken(DEPLOY_EVERYTHING);
    await postPurge(h, secret, {
      zone: 'example.com',
      everything: true,
      context: { actor: 'bob' },
    });
    const request = await approvalRequested(h);
    expect(textOf(request?.blocks)).toContain('The actor is not an e-mail address');
  });

  it('goes on unmatched when the install lacks users:read.email, and is refused when Slack is down', async () => {
    const { h, secret } = await withToken(DEPLOY_EVERYTHING);
    h.slack.addUser({ id: MEMBER, name: 'bob', email: 'bob@example.com' });
    const everything = {
      zone: 'example.com',
      everything: true,
      context: { actor: 'bob@example.com' },
    };
    // Slack's answer to a token without the scope (HTTP 200, ok false: every method's `missing_scope`).
    h.slack.inject({
      method: 'users.lookupByEmail',
      kind: 'status',
      status: 200,
      body: JSON.stringify({
        ok: false,
        error: 'missing_scope',
        needed: 'users:read.email',
        provided: 'commands,chat:write',
      }),
    });
    expect((await postPurge(h, secret, everything)).status).toBe(202);
    const request = await approvalRequested(h);
    expect(textOf(request?.blocks)).toContain('Slack could not be asked who the actor is');

    // Slack failing: nothing is posted unchecked; the client is told to try again.
    const other = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
      name: 'second',
      zones: null,
      kinds: ['everything'],
      channelId: CHANNEL,
    });
    h.slack.inject({ method: 'users.lookupByEmail', kind: 'status', status: 500, times: 20 });
    const down = await postPurge(h, other.secret, { ...everything, zone: 'shop.example.org' });
    expect(down.status).toBe(503);
    expect(h.slack.messages.filter((m) => m.text?.includes('Approval needed'))).toHaveLength(1);
  });

  it('is found by /cdn audit token:<name>', async () => {
    const { h, secret } = await withToken({
      name: 'deploy-bot',
      zones: null,
      kinds: ['urls_tags'],
    });
    const id = await startPurge(h, secret, {
      zone: 'example.com',
      urls: ['https://example.com/a.css'],
      context: { actor: 'alice' },
    });
    await finalPurge(h, secret, id);
    await h.deps.runner.settled();

    // A refused request is audited under the token too.
    const refused = await postPurge(h, secret, {
      zone: 'example.com',
      urls: ['https://example.org/x'],
    });
    expect(refused.status).toBe(400);

    const audit = textOf((await ask(h, 'audit token:deploy-bot', ADMIN)).blocks);
    expect(audit).toContain('purge.urls');
    expect(audit).toContain('api.purge.requested');
    expect(audit).toContain('api.purge.refused');
    expect(audit).toContain('CI token *deploy-bot* (actor: alice)');
    expect(audit).not.toContain('<@token:');
    const other = textOf((await ask(h, 'audit token:someone-else', ADMIN)).blocks);
    expect(other).not.toContain('purge.urls');
  });
});
