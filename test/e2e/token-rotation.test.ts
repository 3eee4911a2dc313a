// Token rotation across replicas, through the signed HTTP receiver: two app instances on one
// PostgreSQL database, both holding a bot token near its expiry, are asked at once; exactly one
// refresh reaches Slack (a refresh token is spent by its use: the fake refuses a second use), and
// both go on with the new token. The refresh token is stored sealed, never in a log.
import type { Installation } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import { sign } from '../helpers/child-bot.js';
import { BACKENDS } from '../helpers/store.js';
import { OAUTH, OAUTH_ENV } from './flows.js';
import { ADMIN, CHANNEL, type Harness, SIGNING_SECRET, startHarness } from './harness.js';

const SEED_TOKEN = 'xoxe.xoxb-T0FAKE-seed';
const SEED_REFRESH = 'xoxe-1-seed-refresh';

/** A workspace installed with rotation on, its token expiring in `minutes` (on the test's clock). */
async function rotatingInstall(h: Harness, minutes: number): Promise<void> {
  const expiresAt = h.clock.now() + minutes * 60_000;
  h.slack.addRotatingToken(SEED_TOKEN, SEED_REFRESH, expiresAt);
  await h.store.installations.storeInstallation({
    team: { id: h.workspaceId, name: 'Fake' },
    enterprise: undefined,
    user: { id: ADMIN, token: undefined, scopes: undefined },
    bot: {
      id: 'B0FAKE',
      userId: h.slack.botUserId,
      token: SEED_TOKEN,
      refreshToken: SEED_REFRESH,
      expiresAt: Math.floor(expiresAt / 1000),
      scopes: ['chat:write'],
    },
    appId: 'A0FAKE',
    tokenType: 'bot',
    isEnterpriseInstall: false,
    authVersion: 'v2',
  } as Installation);
}

/** `/cdn <text>` signed and POSTed to one app instance, as Slack delivers it. */
async function commandAt(h: Harness, url: string, text: string): Promise<number> {
  const body = new URLSearchParams(
    new SlackPayloads(h.slack, h.workspaceId).slashCommand(text, { user: ADMIN, channel: CHANNEL }),
  ).toString();
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(`${url}/slack/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': sign(SIGNING_SECRET, timestamp, body),
    },
    body,
  });
  await response.text();
  return response.status;
}

const postgres = BACKENDS.find((b) => b.backend === 'postgres');

describe('token rotation', () => {
  it.skipIf(postgres?.skip)(
    'two replicas near expiry: one refresh reaches Slack, and both use the new token',
    async () => {
      const h = await startHarness({
        backend: 'postgres',
        slack: { oauth: { ...OAUTH, tokenRotation: true } },
        env: OAUTH_ENV,
        login: true,
      });
      const replica = await h.replica();
      await rotatingInstall(h, 30);
      // A slow refresh: the second replica asks while the first is still waiting for Slack.
      h.slack.inject({ method: 'oauth.v2.access', kind: 'latency', ms: 300 });

      const statuses = await Promise.all([
        commandAt(h, h.url, 'zones'),
        commandAt(h, replica.url, 'zones'),
      ]);
      expect(statuses).toEqual([200, 200]);
      const refreshes = h.slack.callsTo('oauth.v2.access');
      expect(refreshes.map((c) => [c.args.grant_type, c.response.ok])).toEqual([
        ['refresh_token', true],
      ]);
      const fresh = String(refreshes[0]?.response.access_token);

      // Both replicas now hand out the new token, read from what the first one stored.
      const tokens = await Promise.all([
        h.deps.clients.tokenFor(h.workspaceId),
        replica.deps.clients.tokenFor(h.workspaceId),
      ]);
      expect(tokens).toEqual([fresh, fresh]);
      // Every call either replica made with a token was accepted.
      const refused = h.slack.calls.filter((c) =>
        ['token_expired', 'invalid_auth', 'invalid_refresh_token'].includes(
          String(c.response.error),
        ),
      );
      expect(refused).toEqual([]);
      const row = await h.store.db
        .selectFrom('slack_installations')
        .select('installation')
        .executeTakeFirstOrThrow();
      expect(row.installation).not.toContain('xoxe');
    },
  );

  it('a token past its expiry is refreshed before use, and the old one is refused by Slack', async () => {
    const h = await startHarness({
      slack: { oauth: { ...OAUTH, tokenRotation: true } },
      env: OAUTH_ENV,
      login: true,
    });
    await rotatingInstall(h, 60);
    // Thirteen hours later: the seed token has expired at Slack.
    h.clock.advance(13 * 60 * 60_000);
    const token = await h.deps.clients.tokenFor(h.workspaceId);
    expect(token).not.toBe(SEED_TOKEN);
    const refused = await fetch(`${h.slack.apiUrl}auth.test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SEED_TOKEN}` },
    }).then((r) => r.json() as Promise<{ error?: string }>);
    expect(refused.error).toBe('token_expired');
    // The spent refresh token gives nothing a second time.
    const again = await fetch(`${h.slack.apiUrl}oauth.v2.access`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: OAUTH.clientId,
        client_secret: OAUTH.clientSecret,
        grant_type: 'refresh_token',
        refresh_token: SEED_REFRESH,
      }),
    }).then((r) => r.json() as Promise<{ error?: string }>);
    expect(again.error).toBe('invalid_refresh_token');
  });

  it('a token far from expiry is used as it is: no refresh', async () => {
    const h = await startHarness({
      slack: { oauth: { ...OAUTH, tokenRotation: true } },
      env: OAUTH_ENV,
    });
    await rotatingInstall(h, 5 * 60);
    expect(await h.deps.clients.tokenFor(h.workspaceId)).toBe(SEED_TOKEN);
    expect(h.slack.callsTo('oauth.v2.access')).toEqual([]);
  });
});
