// The fake Slack's authentication, as Slack's method pages and recorded answers have it: where a
// token may come from, the OAuth exchange's errors, and Socket Mode's app-level token and link.
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type FakeSlack, startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { InstantClock } from '../../helpers/clock.js';

const APP_TOKEN = 'xapp-1-A0FAKE-auth-test';
let slack: FakeSlack;
afterEach(async () => {
  await slack.close();
});

const start = async () => {
  slack = await startFakeSlack({
    clock: new InstantClock(),
    oauth: { clientId: 'cid', clientSecret: 'right' },
    socket: { appToken: APP_TOKEN },
  });
  return slack;
};

const call = async (method: string, init: RequestInit) =>
  (await (await fetch(`${slack.apiUrl}${method}`, { method: 'POST', ...init })).json()) as Record<
    string,
    unknown
  >;

describe("the fake Slack's tokens", () => {
  it('reads a token from the Authorization header or a form field, not from a JSON body', async () => {
    await start();
    const json = { 'content-type': 'application/json' };
    expect(
      await call('auth.test', { headers: json, body: JSON.stringify({ token: slack.botToken }) }),
    ).toEqual({
      ok: false,
      error: 'not_authed',
    });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(
      await call('auth.test', { headers: form, body: `token=${slack.botToken}` }),
    ).toMatchObject({
      ok: true,
      app_id: 'A0FAKE',
      bot_id: 'B0FAKE',
    });
  });

  it('tells a wrong client secret (bad_client_secret) from an unknown client (invalid_client_id)', async () => {
    await start();
    const web = new WebClient(undefined, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    const code = slack.mintOAuthCode('T2', 'U2');
    const error = (secret: string, id = 'cid') =>
      web.oauth.v2.access({ client_id: id, client_secret: secret, code }).then(
        () => 'ok',
        (e: { data?: { error?: string } }) => e.data?.error,
      );
    expect(await error('wrong')).toBe('bad_client_secret');
    expect(await error('right', 'other')).toBe('invalid_client_id');
    expect(await error('right')).toBe('ok');
  });

  it('opens Socket Mode only for the app-level token in the Authorization header', async () => {
    await start();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(
      await call('apps.connections.open', { headers: form, body: `token=${APP_TOKEN}` }),
    ).toEqual({
      ok: false,
      error: 'missing_args',
    });
    const bot = await call('apps.connections.open', {
      headers: { authorization: `Bearer ${slack.botToken}` },
    });
    expect(bot).toEqual({ ok: false, error: 'invalid_auth' });
    const opened = await call('apps.connections.open', {
      headers: { authorization: `Bearer ${APP_TOKEN}` },
    });
    expect(opened.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=[\w-]+&app_id=A0FAKE$/);
  });

  it('says hello on its Socket Mode link, delivers envelopes and takes their acks', async () => {
    await start();
    const { url } = await call('apps.connections.open', {
      headers: { authorization: `Bearer ${APP_TOKEN}` },
    });
    const socket = new WebSocket(String(url));
    const [hello] = await new Promise<unknown[]>((resolve) =>
      socket.once('message', (data) => resolve([JSON.parse(String(data))])),
    );
    expect(hello).toMatchObject({ type: 'hello', connection_info: { app_id: 'A0FAKE' } });
    socket.on('message', (data) => {
      const envelope = JSON.parse(String(data)) as Record<string, unknown>;
      socket.send(JSON.stringify({ envelope_id: envelope.envelope_id, payload: { envelope } }));
    });
    const ack = await slack.deliver(
      'events_api',
      { type: 'event_callback' },
      { attempt: 2, reason: 'http_timeout' },
    );
    expect(ack.payload).toMatchObject({
      envelope: {
        type: 'events_api',
        accepts_response_payload: false,
        retry_attempt: 2,
        retry_reason: 'http_timeout',
        payload: { type: 'event_callback' },
      },
    });
    // A ticket is good for one connection.
    const again = new WebSocket(String(url));
    await new Promise((resolve) => again.once('error', resolve));
    socket.close();
  });
});

describe("the fake Slack's authorize page", () => {
  const authorize = (params: Record<string, string>) =>
    fetch(new URL(`/oauth/v2/authorize?${new URLSearchParams(params)}`, slack.apiUrl), {
      redirect: 'manual',
    });
  const asked = { client_id: 'cid', scope: 'commands', state: 's1' };

  it('sends the person back to the app config’s redirect URL with a code, or access_denied', async () => {
    await start();
    slack.setOAuthRedirect('https://bot.example/slack/oauth_redirect');
    slack.signInForInstall({ teamId: 'T2', userId: 'U2' });
    const approved = new URL((await authorize(asked)).headers.get('location') ?? '');
    expect(`${approved.origin}${approved.pathname}`).toBe(
      'https://bot.example/slack/oauth_redirect',
    );
    expect(approved.searchParams.get('state')).toBe('s1');
    expect(approved.searchParams.get('code')).toMatch(/^code-/);
    slack.signInForInstall('deny');
    const denied = new URL((await authorize(asked)).headers.get('location') ?? '');
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('code')).toBeNull();
  });

  it('shows an error page for an unknown client, or a redirect_uri that is not the configured one', async () => {
    await start();
    slack.setOAuthRedirect('https://bot.example/slack/oauth_redirect');
    slack.signInForInstall({ teamId: 'T2', userId: 'U2' });
    const unknown = await authorize({ ...asked, client_id: 'other' });
    expect([unknown.status, await unknown.text()]).toEqual([400, 'invalid_client_id']);
    const elsewhere = await authorize({ ...asked, redirect_uri: 'https://evil.example/cb' });
    expect([elsewhere.status, await elsewhere.text()]).toEqual([400, 'bad_redirect_uri']);
  });

  it('an org-wide grant gives an organization’s token: team null, is_enterprise_install', async () => {
    await start();
    const web = new WebClient(undefined, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    const code = slack.mintGrant({ orgWide: true, enterpriseId: 'E1', userId: 'W1' });
    const answer = await web.oauth.v2.access({ client_id: 'cid', client_secret: 'right', code });
    expect(answer).toMatchObject({
      ok: true,
      team: null,
      enterprise: { id: 'E1' },
      is_enterprise_install: true,
    });
    const test = await web.auth.test({ token: String(answer.access_token) });
    expect(test).toMatchObject({ is_enterprise_install: true, enterprise_id: 'E1' });
  });
});
