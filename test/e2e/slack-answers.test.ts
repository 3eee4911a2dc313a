// Every user-facing path ends in something the user sees, through the real Bolt HTTP stack: a
// trigger that expired before the modal could open, a response_url Slack no longer takes, and
// people who are not the workspace's own (unknown to users.info, strangers, another team's).
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS, HOME_IDS } from '../../src/blocks/ids.js';
import { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import {
  everythingRequests,
  openApprove,
  openForm,
  openHome,
  purgeFormValues,
  requestEverything,
} from './flows.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, startHarness, textOf } from './harness.js';

const TOOK_TOO_LONG = 'This took too long — run the command again.';
/** A trigger is good for 3 s; the fake Slack's clock is the harness's. */
const PAST_TRIGGER_MS = 3_001;

const form = (fields: Record<string, string>) =>
  [new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded'] as const;
const interaction = (payload: Record<string, unknown>) =>
  form({ payload: JSON.stringify(payload) });

/** A message shown only to `user`, and with this text. */
const ephemeralTo = (h: Harness, user: string, text: string) =>
  h.slack.waitForMessages((m) => m.ephemeralTo === user && (m.text?.includes(text) ?? false));

const purgeRequests = (h: Harness) => h.sandbox.requests.filter((r) => r.path.endsWith('/purge'));

describe('a trigger that expired before the modal opened', () => {
  it('says "this took too long" ephemerally, and opens nothing', async () => {
    const h = await startHarness({ login: true });
    const fields = new SlackPayloads(h.slack, h.workspaceId).slashCommand('purge example.com', {
      user: MEMBER,
      channel: CHANNEL,
    });
    h.clock.advance(PAST_TRIGGER_MS);
    expect((await h.post(...form(fields))).status).toBe(200);
    const [told] = await ephemeralTo(h, MEMBER, TOOK_TOO_LONG);
    expect(told).toMatchObject({ channel: CHANNEL, via: 'response_url' });
    expect(h.slack.callsTo('views.open').map((c) => c.response.error)).toEqual([
      'expired_trigger_id',
    ]);
    expect(h.slack.views.size).toBe(0);
  });

  it('says the same of a trigger Slack does not know (invalid_trigger_id)', async () => {
    const h = await startHarness({ login: true });
    const fields = new SlackPayloads(h.slack, h.workspaceId).slashCommand('create', {
      user: MEMBER,
      channel: CHANNEL,
    });
    await h.post(...form({ ...fields, trigger_id: '1.2.not-a-trigger' }));
    await ephemeralTo(h, MEMBER, TOOK_TOO_LONG);
    expect(h.slack.callsTo('views.open').map((c) => c.response.error)).toEqual([
      'invalid_trigger_id',
    ]);
  });

  it('says so in a DM from the App Home, where there is no channel', async () => {
    const h = await startHarness();
    const homeId = (await openHome(h, ADMIN)).id;
    const click = new SlackPayloads(h.slack, h.workspaceId).viewAction(homeId, HOME_IDS.login, {
      user: ADMIN,
    });
    h.clock.advance(PAST_TRIGGER_MS);
    await h.post(...interaction(click));
    const [dm] = await h.slack.waitForMessages((m) => m.channel === ADMIN);
    expect(dm?.text).toBe(TOOK_TOO_LONG);
    // The spent trigger is not tried again for a notice modal.
    expect(h.slack.callsTo('views.open')).toHaveLength(1);
  });
});

describe('a response_url Slack no longer takes', () => {
  it('a purge form submitted after its response_url died: the result is posted in the channel', async () => {
    const h = await startHarness({ login: true });
    const viewId = await openForm(h, 'purge example.com');
    const { responseUrl } = JSON.parse(String(h.slack.views.get(viewId)?.view.private_metadata));
    h.slack.killResponseUrl(responseUrl);

    const url = 'https://example.com/late.css';
    expect((await h.submit(viewId, purgeFormValues(h, url))).body).toBe('');
    const [result] = await h.slack.waitForMessages(
      (m) => m.via === 'api' && m.channel === CHANNEL && (m.text?.startsWith('Purged') ?? false),
    );
    expect(textOf(result?.blocks)).toContain(`<@${MEMBER}> purged 1 URL on *example.com*`);
    expect(purgeRequests(h).map((r) => r.body)).toEqual([{ files: [url] }]);
  });

  it('a refusal whose response_url died is said ephemerally in the channel', async () => {
    const h = await startHarness({ login: true });
    const fields = new SlackPayloads(h.slack, h.workspaceId).slashCommand(
      'purge exampel.com https://exampel.com/a',
      { user: MEMBER, channel: CHANNEL },
    );
    h.slack.killResponseUrl(fields.response_url ?? '', 'used_url');
    await h.post(...form(fields));
    const [told] = await ephemeralTo(h, MEMBER, 'No zone `exampel.com` in this workspace.');
    expect(told).toMatchObject({ channel: CHANNEL, via: 'api' });
    expect(h.slack.callsTo('chat.postEphemeral')).toHaveLength(1);
  });

  it('an answer whose response_url died is said ephemerally in the channel', async () => {
    const h = await startHarness({ login: true });
    const fields = new SlackPayloads(h.slack, h.workspaceId).slashCommand('zones', {
      user: MEMBER,
      channel: CHANNEL,
    });
    h.slack.killResponseUrl(fields.response_url ?? '');
    await h.post(...form(fields));
    const [zones] = await ephemeralTo(h, MEMBER, 'zones');
    expect(textOf(zones?.blocks)).toContain('example.com');
  });

  it('goes to the DM when the channel refuses too (archived meanwhile)', async () => {
    const h = await startHarness({ login: true });
    h.slack.addChannel({ id: 'CELSEWHERE', name: 'elsewhere', botMember: true, archived: true });
    const fields = new SlackPayloads(h.slack, h.workspaceId).slashCommand(
      'purge exampel.com https://exampel.com/a',
      { user: MEMBER, channel: 'CELSEWHERE' },
    );
    h.slack.killResponseUrl(fields.response_url ?? '');
    await h.post(...form(fields));
    const [dm] = await h.slack.waitForMessages((m) => m.channel === MEMBER);
    expect(dm?.text).toContain('No zone `exampel.com` in this workspace.');
    expect(h.slack.callsTo('chat.postEphemeral').map((c) => c.response.error)).toEqual([
      'is_archived',
    ]);
  });
});

/** Who is not one of the workspace's own, and what they read when refused a purge. */
const OUTSIDERS = [
  {
    name: 'someone users.info does not know',
    id: 'UGHOST',
    add: () => undefined,
    says: "I can't see your profile from this workspace (a guest from another organization?), so you can't purge cached content here.",
  },
  {
    name: 'a stranger (is_stranger)',
    id: 'USTRANGER',
    add: (h: Harness) => h.slack.addUser({ id: 'USTRANGER', name: 'sam', isStranger: true }),
    says: "I can't see your profile from this workspace (a guest from another organization?), so you can't purge cached content here.",
  },
  {
    name: 'another team’s member in a shared channel',
    id: 'UEXTERNAL',
    add: (h: Harness) =>
      h.slack.addUser({ id: 'UEXTERNAL', name: 'erin', teamId: 'T0PARTNER', isAdmin: true }),
    says: "You are from another workspace (this channel is shared with it), so you can't purge cached content here. Ask someone from this workspace.",
  },
] as const;

describe.each(OUTSIDERS)('$name', ({ id, add, says }) => {
  it('may not purge, and is told why', async () => {
    const h = await startHarness({ login: true });
    add(h);
    await h.command('purge example.com https://example.com/a.css', { user: id });
    const [told] = await ephemeralTo(h, id, says);
    expect(told?.via).toBe('response_url');
    expect(purgeRequests(h)).toEqual([]);
    expect(await h.store.jobs.claim('probe', 1_000, ['purge'])).toBeUndefined();
  });

  it('may not approve a purge-everything (no approvers group set), and is told why', async () => {
    const h = await startHarness({ login: true });
    add(h);
    const request: Message = await requestEverything(h);
    await h.click(request, APPROVAL_IDS.approve, { user: id });
    await ephemeralTo(h, id, 'approve or deny purges');
    // No approve modal opened for them: the one modal is the request's own form.
    expect(h.slack.callsTo('views.open')).toHaveLength(1);
    // A member of the workspace still can.
    const viewId = await openApprove(h, request, ADMIN);
    expect((await h.submit(viewId, {}, { user: ADMIN })).body).toBe('');
    await h.slack.waitForMessages(
      (m) => m === request && (m.text?.includes('was purged') ?? false),
    );
    expect(everythingRequests(h)).toHaveLength(1);
  });

  it('may not approve through an approve modal opened for someone else’s click either', async () => {
    const h = await startHarness({ login: true });
    add(h);
    const request = await requestEverything(h);
    // The modal a member opened, submitted as the outsider (a hand-made or replayed payload).
    const viewId = await openApprove(h, request, ADMIN);
    const answer = JSON.parse((await h.submit(viewId, {}, { user: id })).body) as {
      view?: unknown;
    };
    expect(textOf(answer.view)).toContain('approve or deny purges');
    expect(everythingRequests(h)).toEqual([]);
    const approval = await h.store.db.selectFrom('approvals').select('status').execute();
    expect(approval).toEqual([{ status: 'pending' }]);
  });
});

describe('another team’s admin', () => {
  it('may not open the key form (login), and is told why', async () => {
    const h = await startHarness();
    h.slack.addUser({ id: 'UEXTADMIN', name: 'olga', teamId: 'T0PARTNER', isAdmin: true });
    await h.command('login', { user: 'UEXTADMIN' });
    await ephemeralTo(h, 'UEXTADMIN', "so you can't set the CDN API key here");
    expect(h.slack.callsTo('views.open')).toEqual([]);
  });
});
