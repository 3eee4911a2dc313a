// The fake Slack's faults and the people and tokens it stands in for: methods that fail, answer
// late or never; response_urls that die; users of other teams and strangers; rotating tokens.
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { InstantClock } from '../../helpers/clock.js';

let slack: FakeSlack;
let client: WebClient;

beforeEach(async () => {
  slack = await startFakeSlack({
    clock: new InstantClock(),
    oauth: { clientId: 'c', clientSecret: 's' },
  });
  slack.addChannel({ id: 'C1', name: 'ops', botMember: true });
  client = new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
  });
});

afterEach(async () => {
  await slack.close();
});

const api = (method: string, body: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${slack.botToken}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(body).toString(),
    ...(signal ? { signal } : {}),
  });

describe('faults', () => {
  it('answers a status on the next calls to a method, then goes back to normal', async () => {
    slack.inject({ method: 'chat.postMessage', kind: 'status', status: 500, times: 2 });
    expect((await api('chat.postMessage', { channel: 'C1', text: 'a' })).status).toBe(500);
    expect((await api('auth.test')).status).toBe(200);
    expect((await api('chat.postMessage', { channel: 'C1', text: 'b' })).status).toBe(500);
    const third = await api('chat.postMessage', { channel: 'C1', text: 'c' });
    expect(await third.json()).toMatchObject({ ok: true });
    expect(slack.faultHits.map((hit) => [hit.method, hit.kind])).toEqual([
      ['chat.postMessage', 'status'],
      ['chat.postMessage', 'status'],
    ]);
    // A call Slack never processed is not recorded as one.
    expect(slack.callsTo('chat.postMessage')).toHaveLength(1);
  });

  it('matches methods by pattern, and every method without one', async () => {
    slack.inject({ method: /^views\./, kind: 'status', status: 503 });
    slack.inject({ kind: 'status', status: 502 });
    expect((await api('views.open')).status).toBe(503);
    expect((await api('users.info')).status).toBe(502);
    expect((await api('users.info')).status).toBe(200);
  });

  it('hangs until the caller gives up, and says when it did', async () => {
    slack.inject({ method: 'chat.postMessage', kind: 'hang' });
    const controller = new AbortController();
    const call = api('chat.postMessage', { channel: 'C1', text: 'a' }, controller.signal);
    const [hit] = await slack.waitForFaults((h) => h.method === 'chat.postMessage');
    const abandoned = new Promise((resolve) => slack.once('abandoned', resolve));
    controller.abort();
    await expect(call).rejects.toThrow();
    expect(await abandoned).toBe(hit);
    expect(hit?.abandonedAt).toBeGreaterThanOrEqual(hit?.at ?? Number.POSITIVE_INFINITY);
  });

  it('answers late, then as usual', async () => {
    slack.inject({ method: 'auth.test', kind: 'latency', ms: 50 });
    const started = performance.now();
    expect(await client.auth.test()).toMatchObject({ ok: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('drops the connection', async () => {
    slack.inject({ method: 'auth.test', kind: 'reset' });
    await expect(api('auth.test')).rejects.toThrow();
    slack.clearFaults();
    expect((await api('auth.test')).status).toBe(200);
  });

  it('fails posts to response_urls', async () => {
    slack.inject({ method: 'response_url', kind: 'status', status: 500 });
    const url = slack.mintResponseUrl('C1', 'U1');
    const post = () => fetch(url, { method: 'POST', body: JSON.stringify({ text: 'hi' }) });
    expect((await post()).status).toBe(500);
    expect((await post()).status).toBe(200);
  });
});

describe('response_urls', () => {
  it('lists those minted, and answers a killed one as Slack answers a spent one', async () => {
    const url = slack.mintResponseUrl('C1', 'U1');
    expect(slack.responseUrls).toEqual([url]);
    slack.killResponseUrl(url, 'used_url');
    const answer = await fetch(url, { method: 'POST', body: JSON.stringify({ text: 'hi' }) });
    expect([answer.status, await answer.text()]).toEqual([404, 'used_url']);
    expect(slack.messages).toEqual([]);
    expect(() => slack.killResponseUrl(`${slack.url}/response/nope`)).toThrow('no response_url');
  });
});

describe('users.info', () => {
  it('says which team a person belongs to, as the asking workspace sees them', async () => {
    slack.addUser({ id: 'U1', name: 'alice' });
    slack.addUser({ id: 'U2', name: 'erin', teamId: 'T0PARTNER', enterpriseId: 'E0P' });
    slack.addUser({ id: 'U3', name: 'sam', isStranger: true });
    expect((await client.users.info({ user: 'U1' })).user).toMatchObject({ team_id: 'T0FAKE' });
    expect((await client.users.info({ user: 'U1' })).user).not.toHaveProperty('is_stranger');
    expect((await client.users.info({ user: 'U2' })).user).toMatchObject({
      team_id: 'T0PARTNER',
      enterprise_user: { enterprise_id: 'E0P' },
    });
    expect((await client.users.info({ user: 'U3' })).user).toMatchObject({ is_stranger: true });
  });
});

describe('rotating tokens', () => {
  it('refreshes a bot token once per refresh token, with the app’s credentials', async () => {
    slack.addRefreshToken('xoxe-1-first', 'T0ROT');
    const noToken = new WebClient(undefined, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    const refresh = (refresh_token: string) =>
      noToken.oauth.v2.access({
        client_id: 'c',
        client_secret: 's',
        grant_type: 'refresh_token',
        refresh_token,
      });
    const first = await refresh('xoxe-1-first');
    expect(first).toMatchObject({ ok: true, token_type: 'bot', expires_in: 43_200 });
    const rotated = new WebClient(first.access_token, { slackApiUrl: slack.apiUrl });
    expect(await rotated.auth.test()).toMatchObject({ team_id: 'T0ROT' });
    await expect(refresh('xoxe-1-first')).rejects.toMatchObject({
      data: { error: 'invalid_refresh_token' },
    });
    expect(await refresh(first.refresh_token ?? '')).toMatchObject({ ok: true });
    expect(slack.issuedTokens).toContain(first.access_token);
  });
});
