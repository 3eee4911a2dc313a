import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS, PURGE_IDS } from '../../src/blocks/ids.js';
import type { FakeChannel } from '../../src/dev/fake-slack/server.js';
import { everythingRequests, openApprove, pendingApprovals, requestEverything } from './flows.js';
import { ADMIN, MEMBER, OTHER, startHarness, textOf, viewIdOf } from './harness.js';

describe('purge everything with a second person', () => {
  it('asks in the channel, and purges once approved', async () => {
    const h = await startHarness();
    await h.login();
    const message = await requestEverything(h);
    const text = textOf(message.blocks);
    expect(text).toContain(`<@${MEMBER}> asked to purge everything on *example.com*`);
    expect(text).toContain('>Bad deploy cached a broken bundle');
    expect(text).toMatch(/Cache hit rate over the last 24 h: \*\d+\.\d %\*/);
    expect(everythingRequests(h)).toEqual([]);

    const viewId = await openApprove(h, message, ADMIN);
    expect((await h.submit(viewId, {}, { user: ADMIN })).body).toBe('');
    await h.slack.waitForMessages(
      (m) => m === message && (m.text?.includes('was purged') ?? false),
    );
    expect(everythingRequests(h)).toHaveLength(1);
    const purgeId = h.sandbox.state.purges[0]?.id;
    expect(textOf(message.blocks)).toContain(
      `Approved by <@${ADMIN}>; everything on *example.com* was purged (purge id \`${purgeId}\`)`,
    );
    expect(JSON.stringify(message.blocks)).not.toContain(APPROVAL_IDS.approve);
    const actions = (await h.store.audit.recent(h.workspaceId)).map((e) => [
      e.action,
      e.actorId,
      e.outcome,
    ]);
    expect(actions).toEqual([
      ['purge.everything', ADMIN, 'ok'],
      ['purge.everything.requested', MEMBER, 'ok'],
    ]);
  });

  it('refuses self-approval', async () => {
    const h = await startHarness();
    await h.login();
    const message = await requestEverything(h);
    await h.click(message, APPROVAL_IDS.approve, { user: MEMBER });
    const [refusal] = await h.slack.waitForMessages(
      (m) => m.ephemeralTo === MEMBER && (m.text?.includes('someone else') ?? false),
    );
    expect(refusal?.text).toContain('You asked for this purge, so someone else has to approve it.');
    expect(h.slack.callsTo('views.open')).toHaveLength(1);
    // The workspace's one account is not named in the confirmation, nor in the request.
    const [confirm] = h.slack.callsTo('views.open');
    expect(textOf(confirm?.args.view)).not.toContain('CDN account');
    expect(textOf(message.blocks)).not.toContain('CDN account');
    expect(everythingRequests(h)).toEqual([]);
  });

  it('refuses someone outside the approvers group', async () => {
    const h = await startHarness();
    await h.login();
    h.slack.addUsergroup('S0APPROVE', 'purge-approvers', [OTHER]);
    await h.store.workspaces.update(h.workspaceId, { approverGroupId: 'S0APPROVE' });
    const message = await requestEverything(h);
    await h.click(message, APPROVAL_IDS.approve, { user: ADMIN });
    const [refusal] = await h.slack.waitForMessages((m) => m.ephemeralTo === ADMIN);
    expect(refusal?.text).toContain(
      "Only members of this workspace's purge approvers group can approve or deny",
    );
    const viewId = await openApprove(h, message, OTHER);
    await h.submit(viewId, {}, { user: OTHER });
    await h.slack.waitForMessages(
      (m) => m === message && (m.text?.includes('was purged') ?? false),
    );
    expect(everythingRequests(h)).toHaveLength(1);
  });

  it('expires, says so, and can no longer be approved', async () => {
    const h = await startHarness({ sweep: true });
    await h.login();
    const message = await requestEverything(h);
    const viewId = await openApprove(h, message, ADMIN);
    await h.clock.sleepers(1);
    h.clock.advance(30 * 60_000);
    await h.slack.waitForMessages((m) => m === message && (m.text?.includes('expired') ?? false));
    expect(textOf(message.blocks)).toContain(
      'Expired: nobody approved it in time. Nothing was purged.',
    );

    const late = JSON.parse((await h.submit(viewId, {}, { user: ADMIN })).body);
    expect(textOf(late.view)).toContain('This request has expired.');
    expect(everythingRequests(h)).toEqual([]);
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({ action: 'purge.everything.expired', outcome: 'expired' });
  });

  it('can be denied, with a reason', async () => {
    const h = await startHarness();
    await h.login();
    const message = await requestEverything(h);
    await h.click(message, APPROVAL_IDS.deny, { user: ADMIN });
    const [, opened] = await h.slack.waitForCalls((c) => c.method === 'views.open', 2);
    const viewId = viewIdOf(opened);
    const reason = {
      [APPROVAL_IDS.denyReasonBlock]: {
        [APPROVAL_IDS.denyReasonInput]: {
          type: 'plain_text_input',
          value: 'Purge the bundle URL instead',
        },
      },
    };
    expect((await h.submit(viewId, reason, { user: ADMIN })).body).toBe('');
    await h.slack.waitForMessages((m) => m === message && (m.text?.includes('denied') ?? false));
    expect(textOf(message.blocks)).toContain(
      `Denied by <@${ADMIN}>:\n>Purge the bundle URL instead`,
    );
    expect(everythingRequests(h)).toEqual([]);
  });

  it('can be cancelled by the requester only', async () => {
    const h = await startHarness();
    await h.login();
    const message = await requestEverything(h);
    await h.click(message, APPROVAL_IDS.cancel, { user: OTHER });
    const [refusal] = await h.slack.waitForMessages((m) => m.ephemeralTo === OTHER);
    expect(refusal?.text).toContain('Only the person who asked can cancel');
    await h.click(message, APPROVAL_IDS.cancel, { user: MEMBER });
    await h.slack.waitForMessages((m) => m === message && (m.text?.includes('cancelled') ?? false));
    expect(textOf(message.blocks)).toContain('Cancelled by the requester.');
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({ action: 'purge.everything.cancelled', actorId: MEMBER });
  });

  it('runs exactly one purge when 20 approvers submit at once', async () => {
    const h = await startHarness();
    await h.login();
    const approvers = Array.from({ length: 20 }, (_, i) => `UAPPROVER${i}`);
    for (const id of approvers) h.slack.addUser({ id, name: id });
    const message = await requestEverything(h);
    const viewId = await openApprove(h, message, ADMIN);
    const answers = await Promise.all(approvers.map((user) => h.submit(viewId, {}, { user })));
    await h.slack.waitForMessages(
      (m) => m === message && (m.text?.includes('was purged') ?? false),
    );
    expect(everythingRequests(h)).toHaveLength(1);
    const refused = answers.filter((a) => a.body.includes('Not possible'));
    expect(refused).toHaveLength(19);
    expect(answers.filter((a) => a.body === '')).toHaveLength(1);
  });

  it('is approved after the app restarts, from the state in the database', async () => {
    const h = await startHarness();
    await h.login();
    const message = await requestEverything(h);
    await h.restart();
    const viewId = await openApprove(h, message, ADMIN);
    await h.submit(viewId, {}, { user: ADMIN });
    await h.slack.waitForMessages(
      (m) => m === message && (m.text?.includes('was purged') ?? false),
    );
    expect(everythingRequests(h)).toHaveLength(1);
  });

  /** Asks for a purge of everything in `channel` and returns what the requester is told. */
  async function requestIn(channel: FakeChannel): Promise<string> {
    const h = await startHarness();
    await h.login();
    h.slack.addChannel(channel);
    await h.command('purge example.com everything', { user: MEMBER, channel: channel.id });
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    const submitted = await h.submit(
      viewIdOf(opened),
      {
        [PURGE_IDS.confirmBlock]: {
          [PURGE_IDS.confirmInput]: { type: 'plain_text_input', value: 'example.com' },
        },
        [PURGE_IDS.reasonBlock]: {
          [PURGE_IDS.reasonInput]: { type: 'plain_text_input', value: 'why not' },
        },
      },
      { user: MEMBER },
    );
    expect(submitted.status).toBe(200);
    const [notice] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    // Nothing is left pending, nothing is purged, and the post is tried once, not again.
    expect(await pendingApprovals(h)).toEqual([]);
    expect(everythingRequests(h)).toEqual([]);
    await h.deps.runner.settled();
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(1);
    return notice?.text ?? '';
  }

  it('tells the requester when it cannot post in the channel', async () => {
    const notice = await requestIn({ id: 'CQUIET', name: 'quiet', botMember: false });
    expect(notice).toContain('Invite me with `/invite @cdn`');
  });

  it('tells the requester when the channel is private and the bot is not in it', async () => {
    const notice = await requestIn({
      id: 'GSECRET',
      name: 'secret',
      botMember: false,
      isPrivate: true,
    });
    expect(notice).toContain('Invite me with `/invite @cdn`');
  });

  it('tells the requester to ask in a channel when the request is made in a DM', async () => {
    // A DM between two people: the bot is not part of it and cannot be invited to it.
    const notice = await requestIn({
      id: 'DMEMBEROTHER',
      name: 'member-other',
      botMember: false,
      kind: 'im',
      members: [MEMBER, OTHER],
    });
    expect(notice).toContain('in a channel I am in');
    expect(notice).not.toContain('/invite');
  });
});

describe('purge everything when Slack fails to take the outcome', () => {
  it('tries the message again later, without calling the CDN again, until it is final', async () => {
    const h = await startHarness();
    await h.login();
    const message = await requestEverything(h);
    const viewId = await openApprove(h, message, ADMIN);
    // Slack answers 500 to every message update while the purge runs.
    h.slack.inject({ method: 'chat.update', kind: 'status', status: 500, times: 1_000 });
    await h.submit(viewId, {}, { user: ADMIN });
    // The job gave its try up and was put back, due 2 s later on the test's clock.
    await h.logs.waitFor('job will be tried again');
    expect(everythingRequests(h)).toHaveLength(1);
    expect(message.text ?? '').not.toContain('was purged');

    // Slack is back; the job's retry comes due.
    h.slack.clearFaults();
    h.clock.advance(2_000);
    await h.slack.waitForMessages(
      (m) => m === message && (m.text?.includes('was purged') ?? false),
    );
    expect(everythingRequests(h)).toHaveLength(1);
    const entries = (await h.store.audit.recent(h.workspaceId)).filter(
      (e) => e.action === 'purge.everything',
    );
    expect(entries).toHaveLength(1);
  });
});
