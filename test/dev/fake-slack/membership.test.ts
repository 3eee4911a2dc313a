// The fake Slack's conversations as real Slack keeps them: who is in each, and what the app may
// post where it is not (nothing), with the error each method gives.
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { InstantClock } from '../../helpers/clock.js';

let slack: FakeSlack;
let client: WebClient;

beforeEach(async () => {
  slack = await startFakeSlack({ clock: new InstantClock(), fileReadyMs: 0 });
  slack.addUser({ id: 'UANA', name: 'ana' });
  slack.addUser({ id: 'UBEN', name: 'ben' });
  slack.addChannel({ id: 'COPS', name: 'ops', botMember: true, members: ['UANA'] });
  slack.addChannel({ id: 'CPUB', name: 'public', botMember: false });
  slack.addChannel({ id: 'GSEC', name: 'secret', botMember: false, isPrivate: true });
  slack.addChannel({ id: 'DANABEN', name: 'ana-ben', botMember: false, kind: 'im' });
  slack.addChannel({ id: 'GMPIM', name: 'mpdm-ana--ben', botMember: false, kind: 'mpim' });
  client = new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
  });
});

afterEach(async () => {
  await slack.close();
});

async function slackError(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (e: { data?: { error?: string } }) => e.data?.error,
  );
}

async function privateUpload(): Promise<string> {
  const { upload_url: url, file_id: id } = await client.files.getUploadURLExternal({
    filename: 'a.png',
    length: 3,
  });
  await fetch(String(url), { method: 'POST', body: Buffer.from('png') });
  return String(id);
}

describe('fake Slack: channel membership', () => {
  it('refuses chat.postMessage where the bot is not: not_in_channel, or channel_not_found when private', async () => {
    const post = (channel: string) => slackError(client.chat.postMessage({ channel, text: 'hi' }));
    expect(await post('COPS')).toBeUndefined();
    expect(await post('CPUB')).toBe('not_in_channel');
    expect(await post('GSEC')).toBe('channel_not_found');
    expect(await post('DANABEN')).toBe('channel_not_found');
    expect(await post('GMPIM')).toBe('channel_not_found');
    // The bot's own DM with someone (its Messages tab), by user id or DM id, is always open.
    expect(await post('UBEN')).toBeUndefined();
  });

  it('refuses a post where only some may post: every one when read-only, top-level when thread-only', async () => {
    slack.addChannel({ id: 'CRO', name: 'news', botMember: true, postingRestricted: 'read_only' });
    slack.addChannel({ id: 'CTO', name: 'q', botMember: true, postingRestricted: 'thread_only' });
    const post = (channel: string, threadTs?: string) =>
      slackError(
        client.chat.postMessage({
          channel,
          text: 'hi',
          ...(threadTs ? { thread_ts: threadTs } : {}),
        }),
      );
    expect(await post('CRO')).toBe('restricted_action_read_only_channel');
    expect(await post('CRO', '1.000001')).toBe('restricted_action_read_only_channel');
    expect(await post('CTO')).toBe('restricted_action_thread_only_channel');
    expect(await post('CTO', '1.000001')).toBeUndefined();
  });

  it('refuses the bot once it was removed from a channel', async () => {
    const secret = slack.addChannel({
      id: 'GTEAM',
      name: 'team',
      botMember: true,
      isPrivate: true,
    });
    expect(
      await slackError(client.chat.postMessage({ channel: 'GTEAM', text: 'a' })),
    ).toBeUndefined();
    secret.botMember = false;
    expect(await slackError(client.chat.postMessage({ channel: 'GTEAM', text: 'b' }))).toBe(
      'channel_not_found',
    );
    await expect(client.conversations.info({ channel: 'GTEAM' })).rejects.toThrow(
      'channel_not_found',
    );
  });

  it('refuses chat.postEphemeral to someone who is not in the channel', async () => {
    const ephemeral = (channel: string, user: string) =>
      slackError(client.chat.postEphemeral({ channel, user, text: 'psst' }));
    expect(await ephemeral('COPS', 'UANA')).toBeUndefined();
    expect(await ephemeral('COPS', 'UBEN')).toBe('user_not_in_channel');
    expect(await ephemeral('GSEC', 'UANA')).toBe('channel_not_found');
    expect(await ephemeral('DANABEN', 'UANA')).toBe('channel_not_found');
  });

  it('refuses to share a file where the bot is not, as chat.postMessage does', async () => {
    const share = async (channel_id: string) =>
      slackError(
        client.files.completeUploadExternal({ files: [{ id: await privateUpload() }], channel_id }),
      );
    expect(await share('COPS')).toBeUndefined();
    expect(await share('CPUB')).toBe('not_in_channel');
    expect(await share('GSEC')).toBe('channel_not_found');
  });

  it('conversations.info tells private channels and DMs apart', async () => {
    slack.addChannel({ id: 'GIN', name: 'inner', botMember: true, isPrivate: true });
    expect((await client.conversations.info({ channel: 'GIN' })).channel).toMatchObject({
      is_private: true,
      is_member: true,
      is_im: false,
    });
    expect((await client.conversations.info({ channel: 'CPUB' })).channel).toMatchObject({
      is_private: false,
      is_member: false,
    });
    await expect(client.conversations.info({ channel: 'DANABEN' })).rejects.toThrow(
      'channel_not_found',
    );
  });
});
