import { type View, WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { InstantClock } from '../../helpers/clock.js';

let slack: FakeSlack;
let client: WebClient;
let clock: InstantClock;

beforeEach(async () => {
  clock = new InstantClock();
  slack = await startFakeSlack({ clock });
  slack.addUser({ id: 'U1', name: 'alice', isAdmin: true });
  slack.addChannel({ id: 'C1', name: 'ops', botMember: true });
  slack.addChannel({ id: 'C2', name: 'elsewhere', botMember: false });
  client = new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
  });
});

afterEach(async () => {
  await slack.close();
});

async function slackError(promise: Promise<unknown>): Promise<string> {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { data?: { error?: string } } | undefined;
  if (!error?.data?.error) throw new Error('expected a Slack API error');
  return error.data.error;
}

const section = (text: string, blockId?: string) => ({
  type: 'section',
  text: { type: 'mrkdwn', text },
  ...(blockId ? { block_id: blockId } : {}),
});
const button = (actionId: string) => ({
  type: 'button',
  text: { type: 'plain_text', text: 'Go' },
  action_id: actionId,
});
// Deliberately loose: these tests send what Slack would refuse.
const modal = (title: string, blocks: unknown[] = [section('hi')]) =>
  ({ type: 'modal', title: { type: 'plain_text', text: title }, blocks }) as unknown as View;

describe('fake Slack Web API', () => {
  it('authenticates the bot token and refuses others', async () => {
    expect(await client.auth.test()).toMatchObject({
      ok: true,
      team_id: 'T0FAKE',
      user_id: 'UBOT',
    });
    const other = new WebClient('xoxb-wrong', {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    expect(await slackError(other.auth.test())).toBe('invalid_auth');
  });

  it('posts messages and records them', async () => {
    const posted = await client.chat.postMessage({
      channel: 'C1',
      text: 'hello',
      blocks: [section('*hello*')],
    });
    expect(slack.messages).toEqual([
      expect.objectContaining({ channel: 'C1', ts: posted.ts, text: 'hello', via: 'api' }),
    ]);
    await client.chat.update({
      channel: 'C1',
      ts: posted.ts ?? '',
      text: 'bye',
      blocks: [section('bye')],
    });
    expect(slack.messages[0]).toMatchObject({ text: 'bye', history: [{ text: 'hello' }] });
  });

  it.each([
    ['51 blocks', Array.from({ length: 51 }, (_, i) => section(`b${i}`))],
    ['an empty text', [section('')]],
    ['a section of 3001 characters', [section('x'.repeat(3001))]],
    ['duplicate block ids', [section('a', 'same'), section('b', 'same')]],
    [
      'duplicate action ids',
      [
        { type: 'actions', elements: [button('go')] },
        { type: 'actions', elements: [button('go')] },
      ],
    ],
    [
      '101 options',
      [
        {
          type: 'actions',
          elements: [
            {
              type: 'static_select',
              action_id: 's',
              options: Array.from({ length: 101 }, (_, i) => ({
                text: { type: 'plain_text', text: `o${i}` },
                value: `v${i}`,
              })),
            },
          ],
        },
      ],
    ],
    [
      'an input block in a message',
      [
        {
          type: 'input',
          label: { type: 'plain_text', text: 'x' },
          element: { type: 'plain_text_input', action_id: 'x' },
        },
      ],
    ],
    [
      'a button label of 76 characters',
      [
        {
          type: 'actions',
          elements: [{ ...button('b'), text: { type: 'plain_text', text: 'x'.repeat(76) } }],
        },
      ],
    ],
  ])('refuses a message with %s as invalid_blocks', async (_name, blocks) => {
    expect(
      await slackError(
        client.chat.postMessage({ channel: 'C1', text: 't', blocks: blocks as never }),
      ),
    ).toBe('invalid_blocks');
    expect(slack.messages).toEqual([]);
  });

  it('refuses a message without text, to a channel the bot is not in, or archived', async () => {
    expect(await slackError(client.chat.postMessage({ channel: 'C1', text: '' }))).toBe('no_text');
    expect(await slackError(client.chat.postMessage({ channel: 'C2', text: 'x' }))).toBe(
      'not_in_channel',
    );
    expect(await slackError(client.chat.postMessage({ channel: 'C404', text: 'x' }))).toBe(
      'channel_not_found',
    );
    slack.addChannel({ id: 'C3', name: 'old', botMember: true, archived: true });
    expect(await slackError(client.chat.postMessage({ channel: 'C3', text: 'x' }))).toBe(
      'is_archived',
    );
  });

  it('opens a modal once per trigger, within 3 seconds, with a title of at most 24 characters', async () => {
    const trigger = slack.mintTrigger('U1');
    expect(
      await slackError(client.views.open({ trigger_id: trigger, view: modal('x'.repeat(25)) })),
    ).toBe('invalid_blocks');
    const opened = await client.views.open({
      trigger_id: trigger,
      view: modal('Set the CDN API key'),
    });
    expect(opened.view?.id).toMatch(/^V/);
    expect(await slackError(client.views.open({ trigger_id: trigger, view: modal('Again') }))).toBe(
      'exchanged_trigger_id',
    );
    const late = slack.mintTrigger('U1');
    clock.advance(3_001);
    expect(await slackError(client.views.open({ trigger_id: late, view: modal('Late') }))).toBe(
      'expired_trigger_id',
    );
    expect(
      await slackError(client.views.open({ trigger_id: 'made-up', view: modal('Nope') })),
    ).toBe('invalid_trigger_id');
  });

  it('refuses a modal of 101 blocks and one with inputs but no submit button', async () => {
    const blocks = Array.from({ length: 101 }, (_, i) => section(`b${i}`));
    expect(
      await slackError(
        client.views.open({ trigger_id: slack.mintTrigger('U1'), view: modal('Big', blocks) }),
      ),
    ).toBe('invalid_blocks');
    const input = {
      type: 'input',
      label: { type: 'plain_text', text: 'Key' },
      element: { type: 'plain_text_input', action_id: 'k' },
    };
    expect(
      await slackError(
        client.views.open({ trigger_id: slack.mintTrigger('U1'), view: modal('Form', [input]) }),
      ),
    ).toBe('invalid_blocks');
  });

  it('updates a view only with the current hash', async () => {
    const opened = await client.views.open({
      trigger_id: slack.mintTrigger('U1'),
      view: modal('One'),
    });
    const id = opened.view?.id ?? '';
    const updated = await client.views.update({
      view_id: id,
      hash: opened.view?.hash ?? '',
      view: modal('Two'),
    });
    expect(
      await slackError(
        client.views.update({ view_id: id, hash: opened.view?.hash ?? '', view: modal('Three') }),
      ),
    ).toBe('hash_conflict');
    expect(updated.view?.hash).not.toBe(opened.view?.hash);
  });

  it('serves the external upload flow', async () => {
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    await client.filesUploadV2({
      channel_id: 'C1',
      file: png,
      filename: 'chart.png',
      title: 'Traffic',
      initial_comment: 'hi',
    });
    expect(slack.calls.map((c) => c.method)).toEqual([
      'files.getUploadURLExternal',
      'files.completeUploadExternal',
    ]);
    const [file] = slack.files.values();
    expect(file).toMatchObject({
      filename: 'chart.png',
      channel: 'C1',
      title: 'Traffic',
      initialComment: 'hi',
    });
    expect(file?.bytes.equals(png)).toBe(true);
  });

  it('answers users.info and usergroups.users.list', async () => {
    expect((await client.users.info({ user: 'U1' })).user).toMatchObject({
      is_admin: true,
      tz: 'UTC',
    });
    expect(await slackError(client.users.info({ user: 'U404' }))).toBe('user_not_found');
    slack.addUsergroup('S1', 'sre', ['U1']);
    expect((await client.usergroups.users.list({ usergroup: 'S1' })).users).toEqual(['U1']);
  });

  it('asks an org-wide install’s token which workspace a group is in (team_id), as Slack does', async () => {
    const org = await startFakeSlack({
      clock,
      tokens: { 'xoxb-org': { teamId: 'T1', botUserId: 'B1', enterpriseId: 'E1', orgWide: true } },
    });
    try {
      org.addUsergroup('S1', 'sre', ['U1']);
      const web = new WebClient('xoxb-org', {
        slackApiUrl: org.apiUrl,
        retryConfig: { retries: 0 },
      });
      expect(await slackError(web.usergroups.users.list({ usergroup: 'S1' }))).toBe(
        'missing_argument',
      );
      const named = await web.usergroups.users.list({ usergroup: 'S1', team_id: 'T1' });
      expect(named.users).toEqual(['U1']);
    } finally {
      await org.close();
    }
  });

  it('answers 429 with Retry-After for a second post in a channel within a second, when asked to', async () => {
    const limited = await startFakeSlack({ clock, channelRateLimit: true });
    limited.addChannel({ id: 'C1', name: 'ops', botMember: true });
    const web = new WebClient(limited.botToken, {
      slackApiUrl: limited.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    await web.chat.postMessage({ channel: 'C1', text: 'one' });
    await expect(web.chat.postMessage({ channel: 'C1', text: 'two' })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 1,
    });
    clock.advance(1_000);
    await web.chat.postMessage({ channel: 'C1', text: 'three' });
    expect(limited.rateLimited).toBe(1);
    await limited.close();
  });

  it("answers 429 past a method's calls a minute in one workspace, with the seconds to wait", async () => {
    const limited = await startFakeSlack({
      clock,
      methodRateLimits: { 'files.getUploadURLExternal': 3 },
    });
    const web = new WebClient(limited.botToken, {
      slackApiUrl: limited.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    const ask = () => web.files.getUploadURLExternal({ filename: 'a.png', length: 10 });
    await ask();
    clock.advance(20_000);
    await ask();
    await ask();
    await expect(ask()).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 40,
    });
    // Other methods are not held up.
    await web.auth.test();
    clock.advance(40_000);
    await ask();
    expect(limited.rateLimitedBy).toEqual({ 'files.getUploadURLExternal': 1 });
    await limited.close();
  });
});
