// A long purge's progress as real Slack shows it, over the signed HTTP receiver: one bot message
// edited in place where the bot may post; where it may not, "Purging…" and the result only
// (a slash command's response_url cannot replace a message: bolt-js#2287, bolt-python#1268).
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { CHANNEL, type Harness, startHarness } from './harness.js';

const URL_COUNT = 600;
const urls = Array.from({ length: URL_COUNT }, (_, i) => `https://example.com/assets/${i}.js`);
const FINAL = `Purged ${URL_COUNT} items on example.com`;

/** Runs the purge of 600 URLs in `channel` and waits for its result. */
async function purge(h: Harness, channel: string): Promise<Message[]> {
  await h.login();
  await h.command(`purge example.com ${urls.join(' ')}`, { channel });
  await h.slack.waitForMessages((m) => m.text === FINAL);
  // 30 URLs a request (the sandbox's limit): 20 batches, each progress milestone reached.
  expect(h.sandbox.requests.filter((r) => r.path.endsWith('/purge'))).toHaveLength(20);
  return h.slack.messages.filter((m) => !m.deleted);
}

describe('a purge of 600 URLs', () => {
  it('in a channel the bot is in: exactly one bot message, edited in place', async () => {
    const h = await startHarness();
    const shown = await purge(h, CHANNEL);
    expect(shown.map((m) => [m.channel, m.via, m.text])).toEqual([[CHANNEL, 'api', FINAL]]);
    expect(shown[0]?.history.map((v) => v.text)).toEqual([
      `Purging: 0/${URL_COUNT}`,
      expect.stringMatching(/^Purging: [2-3]\d\d\/600$/),
      expect.stringMatching(/^Purging: [4-5]\d\d\/600$/),
    ]);
    expect(h.slack.callsTo('chat.update')).toHaveLength(3);
  });

  it.each([
    ['not a member of (not_in_channel)', 'CNOTIN', { botMember: false }, 'not_in_channel'],
    [
      'unable to see (channel_not_found: a private channel, a DM of others)',
      'GHIDDEN',
      undefined,
      'channel_not_found',
    ],
    [
      'in, but only some may post (read-only)',
      'CREADONLY',
      { botMember: true, postingRestricted: 'read_only' as const },
      'restricted_action_read_only_channel',
    ],
    [
      'in, but only thread replies are taken (thread-only)',
      'CTHREADS',
      { botMember: true, postingRestricted: 'thread_only' as const },
      'restricted_action_thread_only_channel',
    ],
  ])(
    'in a channel the bot is %s: "Purging…" then the result, never more',
    async (_, channel, fields, refusal) => {
      const h = await startHarness();
      if (fields) h.slack.addChannel({ id: channel, name: 'outside', ...fields });
      const shown = await purge(h, channel);
      expect(shown.map((m) => [m.channel, m.via, m.ephemeralTo, m.text])).toEqual([
        [channel, 'response_url', undefined, `Purging: 0/${URL_COUNT}`],
        [channel, 'response_url', undefined, FINAL],
      ]);
      const [refused] = h.slack.callsTo('chat.postMessage');
      expect(refused?.response.error).toBe(refusal);
    },
  );
});
