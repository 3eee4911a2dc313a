// A watch alert's chart as real Slack takes it: a file is processed for a while after its upload,
// and an image block naming it is refused meanwhile. The alert waits for it (bounded), and is never
// dropped: a chart never ready goes in the alert's thread. And a channel that refuses the bot
// pauses the watch, its creator told once what to do.
import { describe, expect, it } from 'vitest';
import { SLACK_GAPS } from '../../src/slack/web-api-paces.js';
import { alerts, interval, shape, thread, watching } from './flows.js';
import { CHANNEL, type Harness, MEMBER, startHarness } from './harness.js';

const imageOf = (blocks: unknown[] | undefined) =>
  blocks?.find((b) => (b as { type: string }).type === 'image') as
    | { slack_file: { id: string } }
    | undefined;

/**
 * `ms` pass: the runner takes whatever fell due meanwhile (a post waiting for its chart). A post
 * also waits for its channel's turn (the refused try took one): time moves on to it.
 */
async function pass(h: Harness, ms: number): Promise<void> {
  h.clock.advance(ms);
  const settled = h.deps.runner.settled().then(() => true);
  while (!(await Promise.race([settled, h.clock.sleepers().then(() => false)])))
    h.clock.advance(SLACK_GAPS.channelPostMs);
}

/** A watch of example.com whose spike fires at the next interval. */
async function firing(h: Harness): Promise<void> {
  const zoneId = await watching(h, 'example.com');
  shape(h, zoneId, 8, 'spike');
  await interval(h, 3);
}

describe('alert charts Slack is still processing', () => {
  it('waits for the chart, then posts the alert once, with its image', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 3_000 } });
    await firing(h);
    // Refused in Slack's words while the file is processed: the alert is not dropped but waits.
    const [refused] = h.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.response.error === 'invalid_blocks');
    expect(refused?.response.errors).toEqual([
      expect.stringMatching(/^invalid slack file \[json-pointer:\/blocks\/\d\/slack_file\]$/),
    ]);
    expect(alerts(h)).toEqual([]);
    await pass(h, 1_000);
    expect(alerts(h)).toEqual([]);
    await pass(h, 2_000);
    const [alert] = alerts(h);
    expect(alerts(h)).toHaveLength(1);
    const image = imageOf(alert?.blocks);
    expect(
      h.slack.files
        .get(image?.slack_file.id ?? '')
        ?.bytes.subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    // One chart uploaded for the alert: each try showed the same file.
    expect(h.slack.callsTo('files.completeUploadExternal')).toHaveLength(1);
  });

  it('posts the alert without the image after the last wait, its chart shared in the thread', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 3_600_000 } });
    await firing(h);
    for (const wait of [1_000, 2_000, 4_000, 8_000]) {
      await pass(h, wait);
      expect(alerts(h)).toEqual([]);
    }
    await pass(h, 16_000);
    const [alert] = alerts(h);
    if (!alert) throw new Error('the alert was dropped');
    expect(alerts(h)).toHaveLength(1);
    expect(imageOf(alert.blocks)).toBeUndefined();
    expect(alert.text).toBe('Alert: example.com · Requests spike');
    // The chart is in the alert's thread, as a shared file that says why it is there.
    const shared = h.slack
      .callsTo('files.completeUploadExternal')
      .find((c) => c.args.thread_ts === alert.ts);
    expect(shared?.response.ok).toBe(true);
    expect(shared?.args.channel_id).toBe(CHANNEL);
    expect(String(shared?.args.initial_comment)).toContain('Slack was still processing it');
    // Nothing more is tried.
    await pass(h, 120_000);
    expect(alerts(h)).toHaveLength(1);
    expect(thread(h, alert)).toEqual([]);
  });
});

/** Slack's answer to a call it refuses (HTTP 200, ok false), as a fault gives it. */
const refusal = (method: string, body: Record<string, unknown>) =>
  ({ method, kind: 'status', status: 200, body: JSON.stringify({ ok: false, ...body }) }) as const;

describe('alerts whose chart Slack will not take', () => {
  it('posts the alert at once without its chart when the upload is refused for good (missing_scope)', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 0 } });
    // A token without the scope: missing_scope, with `needed` and `provided` (the fields of
    // @slack/web-api's response types, e.g. docs.slack.dev/tools/node-slack-sdk/reference/web-api/type-aliases/AdminAppsRestrictResponse).
    h.slack.inject(
      refusal('files.getUploadURLExternal', {
        error: 'missing_scope',
        needed: 'files:write',
        provided: 'chat:write,commands',
      }),
    );
    await firing(h);
    const [alert] = alerts(h);
    if (!alert) throw new Error('the alert was dropped');
    expect(alerts(h)).toHaveLength(1);
    expect(imageOf(alert.blocks)).toBeUndefined();
    expect(alert.text).toBe('Alert: example.com · Requests spike');
    expect(h.slack.callsTo('files.completeUploadExternal')).toEqual([]);
  });

  it('posts the alert at once without its chart when Slack refuses the blocks for another reason', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 0 } });
    h.slack.inject(
      refusal('chat.postMessage', {
        error: 'invalid_blocks',
        errors: ['must be more than 0 characters [json-pointer:/blocks/0/text/text]'],
      }),
    );
    const zoneId = await watching(h, 'example.com');
    shape(h, zoneId, 8, 'spike');
    await interval(h, 2);
    // The post without the chart waits for the channel's next turn (the refused one took one).
    h.clock.advance(60_000);
    await h.deps.watchEvaluation.tick();
    await pass(h, 0);
    const [alert] = alerts(h);
    if (!alert) throw new Error('the alert was dropped');
    expect(alerts(h)).toHaveLength(1);
    expect(imageOf(alert.blocks)).toBeUndefined();
  });

  it('posts the alert without its chart when its tries run out (Slack failing every one)', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 0 } });
    const tries = h.deps.watchEvaluation.postJob.maxAttempts ?? 5;
    h.slack.inject({ method: 'chat.postMessage', kind: 'status', status: 500, times: 1_000 });
    await firing(h);
    for (let i = 0; i < 40 && h.slack.faultHits.length < tries; i++) await pass(h, 120_000);
    expect(h.slack.faultHits).toHaveLength(tries);
    expect(alerts(h)).toEqual([]);
    // Slack is back for the last word: the alert is posted, without its chart.
    h.slack.clearFaults();
    await pass(h, 120_000);
    const [alert] = alerts(h);
    if (!alert) throw new Error('the alert was dropped');
    expect(alerts(h)).toHaveLength(1);
    expect(imageOf(alert.blocks)).toBeUndefined();
    expect(alert.text).toBe('Alert: example.com · Requests spike');
  });
});

describe('alerts in a channel that refuses the bot', () => {
  it('pauses the watch and tells its creator once what to do, instead of failing silently', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 0 } });
    const ops = h.slack.channels.get(CHANNEL);
    if (!ops) throw new Error('no channel');
    const zoneId = await watching(h, 'example.com');
    // The bot is removed from the (private) channel.
    Object.assign(ops, { isPrivate: true, botMember: false });
    shape(h, zoneId, 30, 'spike');
    await interval(h, 3);
    const dms = () => h.slack.messages.filter((m) => m.channel === MEMBER && m.via === 'api');
    expect(dms()).toHaveLength(1);
    expect(dms()[0]?.text).toContain('Alerts of *example.com* for <#COPS> are paused.');
    expect(dms()[0]?.text).toContain('Invite me with `/invite @cdn`');
    expect(dms()[0]?.text).toContain('`/cdn watch example.com`');
    // Paused: no more posts are tried, and the creator is not told again.
    const tried = h.slack.callsTo('chat.postMessage').length;
    await interval(h, 10);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(tried);
    expect(dms()).toHaveLength(1);
    // Invited again, `/cdn watch` resumes it.
    Object.assign(ops, { botMember: true });
    await h.command('watch example.com');
    await h.slack.waitForMessages((m) => m.via === 'response_url', 2);
    expect(
      (await h.store.watches.listForZone(h.workspaceId, zoneId, await h.loginAccountId()))[0]
        ?.pausedReason,
    ).toBeNull();
  });

  it('pauses the watch of a channel only some may post in, and tells its creator why', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 0 } });
    const ops = h.slack.channels.get(CHANNEL);
    if (!ops) throw new Error('no channel');
    const zoneId = await watching(h, 'example.com');
    // The channel is made read-only: the bot is still in it, but may not post.
    Object.assign(ops, { postingRestricted: 'read_only' });
    shape(h, zoneId, 30, 'spike');
    await interval(h, 3);
    const refused = h.slack.callsTo('chat.postMessage').map((c) => c.response.error);
    expect(refused).toContain('restricted_action_read_only_channel');
    const dms = () => h.slack.messages.filter((m) => m.channel === MEMBER && m.via === 'api');
    expect(dms()).toHaveLength(1);
    expect(dms()[0]?.text).toContain('Alerts of *example.com* for <#COPS> are paused.');
    expect(dms()[0]?.text).toContain('that channel only lets some people post');
    expect(
      (await h.store.watches.listForZone(h.workspaceId, zoneId, await h.loginAccountId()))[0]
        ?.pausedReason,
    ).toContain('only lets some people post');
    // Paused: no more posts are tried.
    const tried = h.slack.callsTo('chat.postMessage').length;
    await interval(h, 10);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(tried);
  });
});
