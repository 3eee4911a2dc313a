// Issue 32, item 6: text is read in time linear in its length, and command and message text
// longer than Slack's own limit (40,000 characters) is refused, with a clear answer, before it is
// parsed at all.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS } from '../../src/blocks/ids.js';
import { parseCommand } from '../../src/commands/parse.js';
import { httpUrlsIn, MAX_TEXT_LENGTH, parseSlackText } from '../../src/text.js';
import { CHANNEL, MEMBER, startHarness } from '../e2e/harness.js';

/** The fastest of three runs, in ms (the least disturbed by the rest of a busy machine). */
function fastest(run: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

describe('reading Slack text', () => {
  const shapes: Array<[string, (n: number) => string]> = [
    ['<', (n) => '<'.repeat(n)],
    ['< ', (n) => '< '.repeat(n / 2)],
    ['<http://a', (n) => `<http://a${'|a'.repeat(n / 2)}`],
  ];
  it.each(shapes)(
    'takes time linear in the length of %j repeated to 400,000 characters',
    (_, text) => {
      for (const read of [parseSlackText, httpUrlsIn, parseCommand]) {
        const small = fastest(() => read(text(100_000)));
        const large = fastest(() => read(text(400_000)));
        // Four times the text: about four times the time; quadratic would be sixteen.
        // (A margin for a busy machine's collector: a quadratic reader is far past it.)
        expect(large).toBeLessThan(8 * small + 200);
      }
    },
  );
});

describe('text over Slack’s limit', () => {
  it('a command of 100,000 typed `<` is refused in one clear line, without being parsed', async () => {
    const h = await startHarness();
    await h.login();
    const answer = await h.command('<'.repeat(100_000));
    expect(answer.status).toBe(200);
    const [reply] = await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER);
    // Slack sends each typed `<` as `&lt;`: 400,000 characters arrive.
    expect(reply?.text).toBe(
      `That command is too long to read: 400,000 characters, over Slack's own limit of ${MAX_TEXT_LENGTH.toLocaleString('en')}. Nothing was done.`,
    );
    expect(h.sandbox.requests).toEqual([]);
  });

  it('a message shortcut on a message longer than 40,000 characters is refused in one line', async () => {
    const h = await startHarness();
    await h.login();
    const text = `https://example.com/a.css ${'<'.repeat(MAX_TEXT_LENGTH)}`;
    await h.shortcut(PURGE_IDS.shortcut, { channel: CHANNEL, ts: '1.2', text });
    const [reply] = await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER);
    expect(reply?.text).toMatch(
      /^That message is too long to read: [\d,]+ characters, over Slack's own limit of 40,000\. Nothing was done\.$/,
    );
    expect(h.slack.callsTo('views.open')).toEqual([]);
    expect(h.sandbox.requests).toEqual([]);
  });
});
