import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/dev/fake-slack/server.js';
import type { ReplyTo } from '../../src/services/reply.js';
import { DurableMessage, type DurableMessageState } from '../../src/slack/durable-message.js';
import { ManualClock } from '../helpers/clock.js';

let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
  slack = undefined;
});

const message = (text: string) => ({ text, blocks: [] });
/** A response_url nothing listens on: Slack's answer to a spent or expired one. */
const DEAD_URL = 'http://127.0.0.1:9/response/spent';

async function world() {
  const clock = new ManualClock(Date.parse('2026-11-23T10:00:00Z'));
  const fake = await startFakeSlack({ clock });
  slack = fake;
  fake.addUser({ id: 'U1', name: 'alice' });
  fake.addChannel({ id: 'COPS', name: 'ops', botMember: true });
  fake.addChannel({ id: 'CNOPE', name: 'elsewhere', botMember: false });
  const issuedAt = clock.now();
  /** A message for `replyTo`, recording the states it saves (as a job's checkpoint would). */
  const open = (replyTo: Partial<ReplyTo>, state: DurableMessageState = {}) => {
    const saved: DurableMessageState[] = [];
    const target = new DurableMessage({
      client: new WebClient(fake.botToken, {
        slackApiUrl: fake.apiUrl,
        retryConfig: { retries: 0 },
      }),
      token: async () => fake.botToken,
      replyTo: { userId: 'U1', issuedAt, visibility: 'in_channel', ...replyTo },
      state,
      save: async (next) => void saved.push(next),
      clock,
    });
    return { target, saved };
  };
  const shown = () =>
    fake.messages.filter((m) => !m.deleted).map((m) => [m.channel, m.via, m.text]);
  return { fake, clock, open, shown };
}

describe('a durable message', () => {
  it('is posted and edited through the response_url while Slack takes it', async () => {
    const { fake, open, shown } = await world();
    const { target, saved } = open({
      channelId: 'COPS',
      responseUrl: fake.mintResponseUrl('COPS', 'U1'),
    });
    await target.post(message('Purging: 0/3'));
    await target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['COPS', 'response_url', 'Purged 3 items']]);
    expect(saved.at(-1)).toEqual({ uses: 2 });
  });

  it('keeps the response_url’s last use for the final version: interim edits are skipped', async () => {
    const { fake, open, shown } = await world();
    const { target, saved } = open(
      { channelId: 'COPS', responseUrl: fake.mintResponseUrl('COPS', 'U1') },
      { uses: 0 },
    );
    await target.post(message('Purging: 0/3'));
    for (const done of [1, 2, 3])
      await target.replace(message(`Purging: ${done}/3`), { interim: true });
    // Four used; the fifth, interim, would leave the result nowhere to go: it is skipped.
    await target.replace(message('Paused at 3/3'), { interim: true });
    await target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['COPS', 'response_url', 'Purged 3 items']]);
    expect(saved.at(-1)).toEqual({ uses: 5 });
  });

  it('moves to a bot message once the response_url is spent, and edits that one', async () => {
    const { open, shown } = await world();
    const { target, saved } = open({ channelId: 'COPS', responseUrl: DEAD_URL }, { uses: 5 });
    await target.post(message('Purging: 0/3'));
    await target.replace(message('Purging: 2/3'));
    await target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['COPS', 'api', 'Purged 3 items']]);
    expect(saved.at(-1)).toMatchObject({ uses: 5, posted: { channel: 'COPS' } });
  });

  it('when the response_url refuses, says it anew in the channel and never tries it again', async () => {
    const { open, shown } = await world();
    const { target, saved } = open({ channelId: 'COPS', responseUrl: DEAD_URL });
    await target.replace(message('Purged 3 items'));
    expect(saved).toEqual([
      { uses: 1 },
      { uses: 5 },
      { uses: 5, posted: { channel: 'COPS', ts: expect.any(String) } },
    ]);
    expect(shown()).toEqual([['COPS', 'api', 'Purged 3 items']]);
  });

  it('after 30 minutes does not even try the response_url', async () => {
    const { fake, clock, open, shown } = await world();
    const { target, saved } = open({
      channelId: 'COPS',
      responseUrl: fake.mintResponseUrl('COPS', 'U1'),
    });
    clock.advance(30 * 60_000);
    await target.replace(message('Purged 3 items'));
    expect(saved).toEqual([{ posted: { channel: 'COPS', ts: expect.any(String) } }]);
    expect(shown()).toEqual([['COPS', 'api', 'Purged 3 items']]);
  });

  it('goes to the requester’s DM when the bot cannot post in the channel', async () => {
    const { open, shown } = await world();
    const { target } = open({ channelId: 'CNOPE' });
    await target.post(message('Purging: 0/3'));
    await target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['U1', 'api', 'Purged 3 items']]);
  });

  it('resumes from the state a job carried across a restart: the same message is edited', async () => {
    const { open, shown } = await world();
    const first = open({ channelId: 'COPS' }, { uses: 5 });
    await first.target.post(message('Purging: 0/3'));
    const resumed = open({ channelId: 'COPS' }, first.saved.at(-1));
    await resumed.target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['COPS', 'api', 'Purged 3 items']]);
  });

  it('an ephemeral answer whose response_url died: ephemeral in the channel, progress not repeated', async () => {
    const { fake, open } = await world();
    const url = fake.mintResponseUrl('COPS', 'U1');
    fake.killResponseUrl(url);
    const { target, saved } = open({
      channelId: 'COPS',
      responseUrl: url,
      visibility: 'ephemeral',
    });
    await target.post(message('Purging: 0/3'));
    await target.replace(message('Purging: 2/3'), { interim: true });
    await target.replace(message('Purged 3 items'));
    const seen = fake.messages.map((m) => [m.channel, m.ephemeralTo, m.text]);
    expect(seen).toEqual([
      ['COPS', 'U1', 'Purging: 0/3'],
      ['COPS', 'U1', 'Purged 3 items'],
    ]);
    expect(saved.at(-1)).toEqual({ uses: 5, ephemeral: true });
    expect(fake.messages.some((m) => m.channel === 'U1')).toBe(false);
  });

  it('an ephemeral answer goes to the DM when the channel refuses it', async () => {
    const { fake, open } = await world();
    fake.addChannel({ id: 'CGONE', name: 'gone', botMember: true, archived: true });
    const { target } = open({ channelId: 'CGONE', visibility: 'ephemeral' });
    await target.replace(message('Purged 3 items'));
    expect(fake.messages.map((m) => [m.channel, m.via, m.text])).toEqual([
      ['U1', 'api', 'Purged 3 items'],
    ]);
  });

  it('lets a Slack that does not answer fail the call (the job retries it later)', async () => {
    const { fake, open } = await world();
    fake.inject({ method: 'chat.postMessage', kind: 'status', status: 500 });
    const { target } = open({ channelId: 'COPS' });
    await expect(target.post(message('Purging: 0/3'))).rejects.toMatchObject({
      code: 'slack_webapi_http_error',
    });
    await target.post(message('Purging: 0/3'));
    expect(fake.messages.map((m) => m.text)).toEqual(['Purging: 0/3']);
  });
});
