// The fake Slack's files as real Slack has them: a completed upload is processed for a while before
// an image block may show it, and files.info says so meanwhile.
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { ManualClock } from '../../helpers/clock.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
let slack: FakeSlack;
let client: WebClient;
let clock: ManualClock;

beforeEach(async () => {
  clock = new ManualClock(Date.parse('2026-11-22T12:00:00Z'));
  slack = await startFakeSlack({ clock, fileReadyMs: 2_000 });
  slack.addChannel({ id: 'C1', name: 'ops', botMember: true });
  client = new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
  });
});

afterEach(async () => {
  await slack.close();
});

/** The bot's private upload (no channel), as an alert's chart is made. */
async function upload(): Promise<string> {
  const { upload_url: url, file_id: id } = await client.files.getUploadURLExternal({
    filename: 'chart.png',
    length: PNG.length,
  });
  await fetch(String(url), { method: 'POST', body: PNG });
  await client.files.completeUploadExternal({ files: [{ id: String(id), title: 'chart' }] });
  return String(id);
}

const withImage = (id: string) => ({
  channel: 'C1',
  text: 'chart',
  blocks: [
    { type: 'section', text: { type: 'mrkdwn', text: 'Traffic' } },
    { type: 'image', slack_file: { id }, alt_text: 'traffic' },
  ],
});

async function refusal(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await promise.then(
    () => undefined,
    (e: { data?: Record<string, unknown> }) => e.data,
  );
  if (!error) throw new Error('expected a Slack API error');
  return error;
}

describe('fake Slack: file processing', () => {
  it('refuses an image of a file still being processed, in Slack’s words, and takes it once ready', async () => {
    const id = await upload();
    expect(await refusal(client.chat.postMessage(withImage(id)))).toEqual({
      ok: false,
      error: 'invalid_blocks',
      errors: ['invalid slack file [json-pointer:/blocks/1/slack_file]'],
      response_metadata: {
        messages: ['[ERROR] invalid slack file [json-pointer:/blocks/1/slack_file]'],
      },
    });
    clock.advance(1_999);
    await expect(client.chat.postMessage(withImage(id))).rejects.toThrow('invalid_blocks');
    clock.advance(1);
    expect(await client.chat.postMessage(withImage(id))).toMatchObject({ ok: true });
  });

  it('refuses an image of an unknown file, and chat.update waits for processing too', async () => {
    expect(await refusal(client.chat.postMessage(withImage('F404')))).toMatchObject({
      errors: ['invalid slack file [json-pointer:/blocks/1/slack_file]'],
    });
    const posted = await client.chat.postMessage({ channel: 'C1', text: 'alert' });
    const id = await upload();
    await expect(client.chat.update({ ...withImage(id), ts: String(posted.ts) })).rejects.toThrow(
      'invalid_blocks',
    );
    clock.advance(2_000);
    expect(await client.chat.update({ ...withImage(id), ts: String(posted.ts) })).toMatchObject({
      ok: true,
    });
  });

  it('files.info shows no type while the file is processed, then its type', async () => {
    const id = await upload();
    expect((await client.files.info({ file: id })).file).toMatchObject({
      mimetype: '',
      filetype: '',
      pretty_type: '',
    });
    clock.advance(2_000);
    expect((await client.files.info({ file: id })).file).toMatchObject({
      mimetype: 'image/png',
      filetype: 'png',
      pretty_type: 'PNG',
    });
  });
});
