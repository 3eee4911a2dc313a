import { describe, expect, it, vi } from 'vitest';
import { RATELIMIT_IDS } from '../../src/blocks/ids.js';
import { RATELIMIT_FOLLOW_UP_JOB } from '../../src/services/zones/ratelimit.js';
import { commandReply } from './flows.js';
import { type Harness, MEMBER, startHarness, textOf } from './harness.js';

/** The correction is stored as a job just after the message is posted: waits for it. */
const followUpQueued = (h: Harness) =>
  vi.waitFor(async () =>
    expect(
      await h.store.db
        .selectFrom('jobs')
        .select('state')
        .where('kind', '=', RATELIMIT_FOLLOW_UP_JOB)
        .execute(),
    ).toEqual([{ state: 'queued' }]),
  );

describe('/cdn ratelimit', () => {
  it('turns the rate limit on, says it is propagating, and says so again after 30 s', async () => {
    const h = await startHarness({ login: true });
    await h.command('ratelimit example.com on');
    // A bot message in the channel, so that it can be edited (a command's response_url cannot).
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'api');
    if (!reply) throw new Error('no reply');
    expect(reply.ephemeralTo).toBeUndefined();
    expect(reply.text).toContain('propagating, up to 30 s');
    expect(textOf(reply.blocks)).toContain('Propagating to every edge location (up to 30 s)');
    const zone = h.sandbox.state.byName('example.com');
    expect(
      h.sandbox.requests.filter((r) => r.method === 'POST').map((r) => [r.path, r.body]),
    ).toEqual([[`/zones/${zone?.id}/settings`, { limits: { enabled: true, mode: 'automatic' } }]]);
    expect(zone?.limits.enabled).toBe(true);
    await followUpQueued(h);

    // The correction is a job due 30 s later (on the test's clock): not a moment sooner.
    h.clock.advance(29_999);
    await h.deps.runner.settled();
    expect(reply.history).toHaveLength(0);
    h.clock.advance(1);
    await h.deps.runner.settled();
    await h.slack.waitForMessages((m) => m === reply && m.history.length === 1);
    expect(textOf(reply.blocks)).toContain('In effect at every edge location');
    expect(h.slack.messages).toHaveLength(1);
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({
      action: 'ratelimit.on',
      zoneName: 'example.com',
      actorId: MEMBER,
      outcome: 'ok',
    });
  });

  it('corrects the message after a restart within the 30 s', async () => {
    const h = await startHarness({ login: true });
    await h.command('ratelimit example.com on');
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'api');
    await followUpQueued(h);
    await h.restart();
    h.clock.advance(30_000);
    await h.deps.runner.settled();
    await h.slack.waitForMessages((m) => m === reply && m.history.length === 1);
    expect(textOf(reply?.blocks)).toContain('In effect at every edge location');
  });

  it('turns it off for a zone named by its id', async () => {
    const h = await startHarness({ login: true });
    const zone = h.sandbox.state.byName('shop.example.org');
    if (zone) zone.limits.enabled = true;
    await h.command(`ratelimit ${zone?.id} off`);
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'api');
    expect(textOf(reply?.blocks)).toContain('turned rate limiting *off* for *shop.example.org*');
    expect(zone?.limits.enabled).toBe(false);
  });

  it('in a channel the bot is not in: the change, then the correction, through the response_url', async () => {
    const h = await startHarness();
    h.slack.addChannel({ id: 'COUTSIDE', name: 'outside', botMember: false });
    await h.login();
    await h.command('ratelimit example.com on', { channel: 'COUTSIDE' });
    await h.slack.waitForMessages((m) => m.via === 'response_url');
    await followUpQueued(h);
    h.clock.advance(30_000);
    await h.deps.runner.settled();
    await h.slack.waitForMessages((m) => m.text?.includes('in effect everywhere') ?? false);
    expect(h.slack.messages.map((m) => [m.channel, m.via, m.text])).toEqual([
      ['COUTSIDE', 'response_url', 'Rate limiting on for example.com (propagating, up to 30 s)'],
      ['COUTSIDE', 'response_url', 'Rate limiting on for example.com (in effect everywhere)'],
    ]);
  });

  it('made but not said (Slack answers 500): the change stands, the person is not told it failed, the correction says it', async () => {
    const h = await startHarness({ login: true });
    h.slack.inject({ method: 'chat.postMessage', kind: 'status', status: 500, times: 1_000 });
    await h.command('ratelimit example.com on');
    // Either the notice's failure is logged, or (wrongly) the person is told the command failed.
    await Promise.race([
      h.logs.waitFor('rate limit notice not said'),
      h.slack.waitForMessages((m) => m.via === 'response_url'),
    ]);
    expect(h.slack.messages.filter((m) => !m.deleted)).toEqual([]);
    expect(h.sandbox.state.byName('example.com')?.limits.enabled).toBe(true);
    await followUpQueued(h);
    // Slack back: the follow-up says the final state, in the channel.
    h.slack.clearFaults();
    h.clock.advance(30_000);
    await h.deps.runner.settled();
    const [final] = await h.slack.waitForMessages(
      (m) => m.text?.includes('in effect everywhere') ?? false,
    );
    expect(final?.via).toBe('api');
    expect(h.slack.messages.filter((m) => !m.deleted)).toHaveLength(1);
  });

  it('suggests the zone meant by a typo, and changes nothing', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'ratelimit exmaple.com on');
    expect(reply?.text).toBe(
      'No zone `exmaple.com` in this workspace. Did you mean `example.com`?',
    );
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('explains its usage', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'ratelimit example.com maybe');
    // Escaped for mrkdwn: Slack shows `<zone>`.
    expect(reply?.text).toContain('Usage: `/cdn ratelimit &lt;zone&gt; on|off`');
    expect(h.sandbox.requests).toEqual([]);
  });

  it('a zone alone shows its state with On and Off buttons, which change it as the command does', async () => {
    const h = await startHarness({ login: true });
    const state = await commandReply(h, 'ratelimit example.com');
    expect(textOf(state.blocks)).toContain('has not been changed through this bot');
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toEqual([]);

    // Off, by a guest (who may look but not change): refused, nothing sent to the CDN.
    h.slack.addUser({ id: 'UGUEST', name: 'grace', isRestricted: true });
    await h.click(state, RATELIMIT_IDS.off, { user: 'UGUEST' });
    const [refused] = await h.slack.waitForMessages((m) => m !== state && m.via === 'response_url');
    expect(refused?.text).toContain("Guests can't change rate limits");
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toEqual([]);

    await h.click(state, RATELIMIT_IDS.on);
    const [change] = await h.slack.waitForMessages((m) => m.via === 'api');
    expect(textOf(change?.blocks)).toContain('turned rate limiting *on* for *example.com*');
    expect(h.sandbox.state.byName('example.com')?.limits.enabled).toBe(true);
    await followUpQueued(h);

    await h.command('ratelimit example.com');
    const [again] = await h.slack.waitForMessages(
      (m) => m.via === 'response_url' && textOf(m.blocks).includes('Rate limiting is *on*'),
    );
    expect(textOf(again?.blocks)).toContain(`<@${MEMBER}> turned it on`);
  });
});
