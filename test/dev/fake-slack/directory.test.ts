// The fake Slack's directory: users.info for guests and deactivated accounts (the fields of
// Slack's recorded answer, slackapi/java-slack-sdk json-logs/samples/api/users.info.json, marked as
// Slack does), and users.lookupByEmail.
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { InstantClock } from '../../helpers/clock.js';

let slack: FakeSlack;
let client: WebClient;

beforeEach(async () => {
  slack = await startFakeSlack({ clock: new InstantClock() });
  client = new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
  });
});

afterEach(async () => {
  await slack.close();
});

describe('users.info', () => {
  it('sends every role flag of the recorded answer, guests included', async () => {
    slack.addUser({ id: 'U1', name: 'alice', isAdmin: true });
    slack.addUser({ id: 'U2', name: 'grace', isRestricted: true });
    slack.addUser({ id: 'U3', name: 'sam', isUltraRestricted: true });
    const flags = async (user: string) => {
      const info = (await client.users.info({ user })).user as Record<string, unknown>;
      return Object.fromEntries(
        ['is_admin', 'is_owner', 'is_primary_owner', 'is_restricted', 'is_ultra_restricted'].map(
          (key) => [key, info[key]],
        ),
      );
    };
    expect(await flags('U1')).toEqual({
      is_admin: true,
      is_owner: false,
      is_primary_owner: false,
      is_restricted: false,
      is_ultra_restricted: false,
    });
    expect(await flags('U2')).toMatchObject({ is_restricted: true, is_ultra_restricted: false });
    // As in the example answer of admin.users.getExpiration: single-channel, not is_restricted.
    expect(await flags('U3')).toMatchObject({ is_restricted: false, is_ultra_restricted: true });
  });
});

describe('users.lookupByEmail', () => {
  it('finds the person with that address, else answers users_not_found as Slack does', async () => {
    // slackapi/slack-api-specs web-api/slack_web_openapi_v2.json, /users.lookupByEmail: the user
    // object of users.info, or `{ "ok": false, "error": "users_not_found" }`.
    slack.addUser({ id: 'U1', name: 'alice', email: 'alice@example.com' });
    slack.addUser({ id: 'U2', name: 'bob' });
    const found = await client.users.lookupByEmail({ email: 'alice@example.com' });
    expect(found.user?.id).toBe('U1');
    await expect(client.users.lookupByEmail({ email: 'nobody@example.com' })).rejects.toMatchObject(
      { data: { ok: false, error: 'users_not_found' } },
    );
  });
});

describe('a deactivated account', () => {
  it('is still found by users.info, with deleted: true, and a DM to it is refused', async () => {
    slack.addUser({ id: 'U1', name: 'alice' });
    slack.addUser({ id: 'U9', name: 'lee', deleted: true });
    const deleted = async (user: string) =>
      ((await client.users.info({ user })).user as Record<string, unknown>).deleted;
    expect(await deleted('U1')).toBe(false);
    expect(await deleted('U9')).toBe(true);
    await expect(client.conversations.open({ users: 'U9' })).rejects.toMatchObject({
      data: { ok: false, error: 'user_disabled' },
    });
    expect((await client.conversations.open({ users: 'U1' })).channel?.id).toBe('DU1');
  });
});
