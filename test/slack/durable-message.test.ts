// A job's message: one bot message edited in place where the bot may post; where it may not, the
// response_url (or an ephemeral message) says the opening and the final version only. Paced (an
// API purge's), it keeps Slack's pace without waiting for it.
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/dev/fake-slack/server.js';
import type { ReplyTo } from '../../src/services/reply.js';
import { ViewNotNow } from '../../src/services/view-not-now.js';
import { DurableMessage, type DurableMessageState } from '../../src/slack/durable-message.js';
import { paceKeys, SLACK_GAPS } from '../../src/slack/web-api-paces.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import { testStore } from '../helpers/store.js';

let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
  slack = undefined;
});

const message = (text: string) => ({ text, blocks: [] });

async function world() {
  const clock = new ManualClock(Date.parse('2026-11-23T10:00:00Z'));
  const fake = await startFakeSlack({ clock });
  slack = fake;
  fake.addUser({ id: 'U1', name: 'alice' });
  fake.addChannel({ id: 'COPS', name: 'ops', botMember: true });
  fake.addChannel({ id: 'CNOPE', name: 'elsewhere', botMember: false });
  const issuedAt = clock.now();
  const logs = captureLogs('debug');
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
      log: logs.logger,
    });
    return { target, saved };
  };
  const shown = () =>
    fake.messages.filter((m) => !m.deleted).map((m) => [m.channel, m.via, m.text]);
  return { fake, clock, open, shown, logs };
}

describe('a durable message', () => {
  it('is one bot message in the channel, edited in place: the response_url is never used', async () => {
    const { fake, open, shown } = await world();
    const url = fake.mintResponseUrl('COPS', 'U1', { kind: 'command' });
    const { target, saved } = open({ channelId: 'COPS', responseUrl: url });
    await target.post(message('Purging: 0/3'), { opening: true });
    for (const done of [1, 2])
      await target.replace(message(`Purging: ${done}/3`), { interim: true });
    await target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['COPS', 'api', 'Purged 3 items']]);
    expect(fake.messages[0]?.history.map((h) => h.text)).toEqual([
      'Purging: 0/3',
      'Purging: 1/3',
      'Purging: 2/3',
    ]);
    // Where it was posted is saved before the first edit relies on it.
    expect(saved).toEqual([{ opened: true, posted: { channel: 'COPS', ts: expect.any(String) } }]);
  });

  it('where the bot is not in the channel: "Purging…" and the result through the response_url, nothing between', async () => {
    const { fake, open, shown } = await world();
    const url = fake.mintResponseUrl('CNOPE', 'U1', { kind: 'command' });
    const { target, saved } = open({ channelId: 'CNOPE', responseUrl: url });
    await target.post(message('Purging: 0/3'), { opening: true });
    await target.replace(message('Purging: 2/3'), { interim: true });
    await target.replace(message('Paused at 2/3'), { interim: true });
    await target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([
      ['CNOPE', 'response_url', 'Purging: 0/3'],
      ['CNOPE', 'response_url', 'Purged 3 items'],
    ]);
    expect(saved.at(-1)).toEqual({ opened: true, uses: 2, unedited: true });
    // The channel was asked once: the result went straight to the response_url.
    expect(fake.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(1);
  });

  it('goes to the requester’s DM (and edits it there) when neither the channel nor a response_url will take it, logging why', async () => {
    const { fake, open, shown, logs } = await world();
    const url = fake.mintResponseUrl('CNOPE', 'U1');
    fake.killResponseUrl(url);
    const { target } = open({ channelId: 'CNOPE', responseUrl: url });
    await target.post(message('Purging: 0/3'), { opening: true });
    await target.replace(message('Purging: 2/3'), { interim: true });
    await target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['U1', 'api', 'Purged 3 items']]);
    // Posted to the user id, edited by the DM's id the post answered (a user id: channel_not_found).
    expect(fake.callsTo('chat.update').map((c) => [c.args.channel, c.response.ok])).toEqual([
      ['DU1', true],
      ['DU1', true],
    ]);
    expect(logs.text()).toContain('not_in_channel');
    expect(logs.text()).toContain('expired_url');
  });

  it('after 30 minutes does not even try the response_url', async () => {
    const { fake, clock, open, shown } = await world();
    const { target } = open({
      channelId: 'CNOPE',
      responseUrl: fake.mintResponseUrl('CNOPE', 'U1'),
    });
    clock.advance(30 * 60_000);
    await target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['U1', 'api', 'Purged 3 items']]);
  });

  it('resumed from the state a job carried across a restart, edits the same message and does not open again', async () => {
    const { open, shown } = await world();
    const first = open({ channelId: 'COPS' });
    await first.target.post(message('Purging: 0/3'), { opening: true });
    await first.target.replace(message('Purging: 1/3'), { interim: true });
    // The process died before the job recorded that "Purging…" went out: the new one says it again.
    const resumed = open({ channelId: 'COPS' }, first.saved.at(-1));
    await resumed.target.post(message('Purging: 1/3'), { opening: true });
    await resumed.target.replace(message('Purging: 2/3'), { interim: true });
    await resumed.target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['COPS', 'api', 'Purged 3 items']]);
  });

  it('resumed where only the response_url could speak: no second "Purging…", then the result', async () => {
    const { fake, open, shown } = await world();
    const url = fake.mintResponseUrl('CNOPE', 'U1');
    const first = open({ channelId: 'CNOPE', responseUrl: url });
    await first.target.post(message('Purging: 0/3'), { opening: true });
    const resumed = open({ channelId: 'CNOPE', responseUrl: url }, first.saved.at(-1));
    await resumed.target.post(message('Purging: 0/3'), { opening: true });
    await resumed.target.replace(message('Purging: 2/3'), { interim: true });
    await resumed.target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([
      ['CNOPE', 'response_url', 'Purging: 0/3'],
      ['CNOPE', 'response_url', 'Purged 3 items'],
    ]);
  });

  it('says the result anew when its message was deleted meanwhile', async () => {
    const { fake, open, shown } = await world();
    const { target } = open({ channelId: 'COPS' });
    await target.post(message('Purging: 0/3'), { opening: true });
    const client = new WebClient(fake.botToken, { slackApiUrl: fake.apiUrl });
    const [posted] = fake.messages;
    await client.chat.delete({ channel: 'COPS', ts: posted?.ts ?? '' });
    await target.replace(message('Purging: 2/3'), { interim: true });
    await target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['COPS', 'api', 'Purged 3 items']]);
  });

  it('an ephemeral answer: ephemeral "Purging…" and result through the response_url, progress not repeated', async () => {
    const { fake, open } = await world();
    const url = fake.mintResponseUrl('COPS', 'U1');
    const { target } = open({ channelId: 'COPS', responseUrl: url, visibility: 'ephemeral' });
    await target.post(message('Purging: 0/3'), { opening: true });
    await target.replace(message('Purging: 2/3'), { interim: true });
    await target.replace(message('Purged 3 items'));
    expect(fake.messages.map((m) => [m.channel, m.via, m.ephemeralTo, m.text])).toEqual([
      ['COPS', 'response_url', 'U1', 'Purging: 0/3'],
      ['COPS', 'response_url', 'U1', 'Purged 3 items'],
    ]);
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
    await target.post(message('Purging: 0/3'), { opening: true });
    await target.replace(message('Purging: 2/3'), { interim: true });
    await target.replace(message('Purged 3 items'));
    expect(fake.messages.map((m) => [m.channel, m.ephemeralTo, m.text])).toEqual([
      ['COPS', 'U1', 'Purging: 0/3'],
      ['COPS', 'U1', 'Purged 3 items'],
    ]);
    expect(saved.at(-1)).toEqual({ opened: true, uses: 5, unedited: true });
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

describe('a paced durable message (an API purge’s)', () => {
  async function paced() {
    const w = await world();
    const { store } = await testStore('sqlite', { clock: w.clock });
    const client = new WebClient(w.fake.botToken, {
      slackApiUrl: w.fake.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    const channelKey = paceKeys.channel(w.fake.teamId, 'COPS');
    /** One attempt of the job: its message, from the state the last one saved. */
    const attempt = (state: DurableMessageState = {}) => {
      const saved: DurableMessageState[] = [];
      const target = new DurableMessage({
        client,
        token: async () => w.fake.botToken,
        replyTo: {
          userId: 'token:deploy',
          channelId: 'COPS',
          issuedAt: w.clock.now(),
          visibility: 'in_channel',
          channelOnly: true,
        },
        state,
        save: async (next) => void saved.push(next),
        clock: w.clock,
        log: w.logs.logger,
        pace: { slots: store.rateSlots, workspaceId: w.fake.teamId },
      });
      return { target, saved, last: () => saved.at(-1) ?? state };
    };
    return { ...w, store, attempt, channelKey };
  }

  it('skips "Purging…" while the channel’s slot is taken; its result waits in the next slot, not in the job', async () => {
    const { fake, clock, store, attempt, channelKey, shown } = await paced();
    const t0 = clock.now();
    // Another message of the channel has this second.
    await store.rateSlots.take(...channelKey);
    const first = attempt();
    await first.target.post(message('Purging: 1/3'), { opening: true });
    const refused = await first.target.replace(message('Purged 3 items')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ViewNotNow);
    expect((refused as ViewNotNow).afterMs).toBe(SLACK_GAPS.channelPostMs);
    expect(first.last()).toMatchObject({ slotAt: t0 + SLACK_GAPS.channelPostMs });
    expect(fake.calls).toEqual([]);
    // The next attempt, at its slot, posts it without taking another.
    clock.advance(SLACK_GAPS.channelPostMs);
    const second = attempt(first.last());
    await second.target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['COPS', 'api', 'Purged 3 items']]);
    expect(second.last()).not.toHaveProperty('slotAt');
  });

  it('never waits out a 429: no slot comes before its Retry-After, and progress is skipped', async () => {
    const { fake, clock, attempt, shown } = await paced();
    const t0 = clock.now();
    fake.inject({
      method: 'chat.postMessage',
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '7' },
      body: '{"ok":false,"error":"ratelimited"}',
      times: 2,
    });
    const first = attempt();
    // Progress refused for Slack's rate: skipped, not thrown; its result's slot comes after 7 s.
    await first.target.post(message('Purging: 1/3'), { opening: true });
    const refused = await first.target.replace(message('Purged 3 items')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ViewNotNow);
    expect((refused as ViewNotNow).afterMs).toBe(7_000);
    // At that slot Slack refuses again: the next one is 7 s on, and the job waits for it elsewhere.
    clock.advance(7_000);
    const second = attempt(first.last());
    const again = await second.target.replace(message('Purged 3 items')).catch((e: unknown) => e);
    expect((again as ViewNotNow).afterMs).toBe(7_000);
    expect(fake.refusedCalls.map((r) => [r.method, r.at - t0])).toEqual([
      ['chat.postMessage', 0],
      ['chat.postMessage', 7_000],
    ]);
    clock.advance(7_000);
    await attempt(second.last()).target.replace(message('Purged 3 items'));
    expect(shown()).toEqual([['COPS', 'api', 'Purged 3 items']]);
    expect(fake.calls.map((c) => [c.method, c.at - t0])).toEqual([['chat.postMessage', 14_000]]);
  });
});
