// Slack's published rate limits in the fake Slack: each method's tier per workspace, one post a
// second per channel, answered 429 with Retry-After and Slack's body.
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { InstantClock } from '../../helpers/clock.js';

let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
});

async function limited(clock: InstantClock) {
  slack = await startFakeSlack({ clock, channelRateLimit: true });
  slack.addChannel({ id: 'C1', name: 'ops', botMember: true });
  slack.addChannel({ id: 'C2', name: 'other', botMember: true });
  slack.addUsergroup('S1', 'sre', []);
  const web = new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  return { slack, web };
}

describe("the fake Slack's rate limits (tiers by default, the channel's when asked)", () => {
  it('holds usergroups.users.list to Tier 2: 20 a minute per workspace, then 429 with the seconds left', async () => {
    const clock = new InstantClock();
    const { web } = await limited(clock);
    const list = () => web.usergroups.users.list({ usergroup: 'S1' });
    for (let i = 0; i < 20; i += 1) await list();
    clock.advance(15_000);
    await expect(list()).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 45,
    });
    // A Tier 4 method is not held up, nor auth.test ("hundreds a minute").
    for (let i = 0; i < 25; i += 1) await web.auth.test();
    clock.advance(45_000);
    await list();
  });

  it('refuses a second chat.postMessage in one channel within a second, not in another channel', async () => {
    const clock = new InstantClock();
    const { web, slack } = await limited(clock);
    await web.chat.postMessage({ channel: 'C1', text: 'one' });
    await expect(web.chat.postMessage({ channel: 'C1', text: 'two' })).rejects.toMatchObject({
      retryAfter: 1,
    });
    await web.chat.postMessage({ channel: 'C2', text: 'elsewhere' });
    clock.advance(1_000);
    await web.chat.postMessage({ channel: 'C1', text: 'three' });
    expect(slack.rateLimitedBy).toEqual({ 'chat.postMessage': 1 });
  });

  it("answers a 429 as Slack does: Retry-After in seconds and {ok:false,error:'ratelimited'}", async () => {
    const clock = new InstantClock();
    const { slack } = await limited(clock);
    const post = () =>
      fetch(`${slack.apiUrl}chat.postMessage`, {
        method: 'POST',
        headers: { authorization: `Bearer ${slack.botToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ channel: 'C1', text: 'hi' }),
      });
    expect((await post()).status).toBe(200);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({ ok: false, error: 'ratelimited' });
  });
});
