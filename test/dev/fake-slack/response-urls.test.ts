// The fake Slack's response_urls against Slack's evidence: a slash command's cannot replace a
// message (bolt-js#2287, bolt-python#1268); a block_actions' replaces or deletes its message.
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { InstantClock } from '../../helpers/clock.js';

let slack: FakeSlack;

beforeEach(async () => {
  slack = await startFakeSlack({ clock: new InstantClock() });
  slack.addUser({ id: 'U1', name: 'alice' });
  slack.addChannel({ id: 'C1', name: 'ops', botMember: true });
});
afterEach(async () => {
  await slack.close();
});

const poster = (url: string) => (body: object) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const shown = () =>
  slack.messages
    .filter((m) => !m.deleted)
    .map((m) => [m.text, m.ephemeralTo ?? 'everyone', m.history.length]);

describe('a slash command’s response_url', () => {
  it('posts a new message for replace_original: true, ephemeral or in_channel alike', async () => {
    const post = poster(slack.mintResponseUrl('C1', 'U1', { kind: 'command' }));
    await post({ text: 'Purging… 0/600' });
    expect((await post({ text: 'Purging… 200/600', replace_original: true })).status).toBe(200);
    await post({ text: 'Announced', response_type: 'in_channel' });
    await post({ text: 'Purged 600', response_type: 'in_channel', replace_original: true });
    expect(shown()).toEqual([
      ['Purging… 0/600', 'U1', 0],
      ['Purging… 200/600', 'U1', 0],
      ['Announced', 'everyone', 0],
      ['Purged 600', 'everyone', 0],
    ]);
  });

  it('takes five posts in all, then answers used_url', async () => {
    const post = poster(slack.mintResponseUrl('C1', 'U1'));
    expect((await post({ text: '' })).status).toBe(400);
    for (const n of [1, 2, 3, 4, 5]) expect((await post({ text: `${n}` })).status).toBe(200);
    const sixth = await post({ text: '6' });
    expect([sixth.status, await sixth.text()]).toEqual([404, 'used_url']);
  });
  it('records every post and Slack’s answer, a refusal too, as it records API calls', async () => {
    const url = slack.mintResponseUrl('C1', 'U1');
    const seen: string[] = [];
    slack.on('responseUrlPost', (p) => seen.push(`${p.status} ${p.answer}`));
    const post = poster(url);
    await post({ text: 'hi' });
    await post({ text: 'x', blocks: [{ type: 'nope' }] });
    slack.killResponseUrl(url, 'expired_url');
    await post({ text: 'late' });
    expect(seen).toEqual(['200 ok', '400 invalid_blocks', '404 expired_url']);
    expect(slack.responseUrlPosts.map((p) => [p.url, p.body?.text])).toEqual([
      [url, 'hi'],
      [url, 'x'],
      [url, 'late'],
    ]);
  });
});

describe('a block_actions’ response_url', () => {
  it('replaces the message the button was on, even after posting a new one, and deletes it', async () => {
    const client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl });
    const posted = await client.chat.postMessage({ channel: 'C1', text: 'Purged 3 (1 failed)' });
    const message = slack.messages.find((m) => m.ts === posted.ts);
    if (!message) throw new Error('not posted');
    const post = poster(slack.mintResponseUrl('C1', 'U1', { kind: 'action', message }));
    await post({ text: 'Retrying 1…', response_type: 'in_channel' });
    await post({ text: 'Purged 3 (retried)', replace_original: true });
    expect(shown()).toEqual([
      ['Purged 3 (retried)', 'everyone', 1],
      ['Retrying 1…', 'everyone', 0],
    ]);
    await post({ delete_original: true });
    expect(shown()).toEqual([['Retrying 1…', 'everyone', 0]]);
  });
});
