// The error policy over real HTTP: a signed /cdn command into the real Bolt app, an unexpected
// failure inside the real listener, and the user's answer through the fake Slack's response_url.
import { describe, expect, it } from 'vitest';
import { CHANNEL, MEMBER, startHarness, textOf } from '../e2e/harness.js';
import { entries, LEVEL } from './helpers.js';

describe('an unexpected failure, end to end', () => {
  it('tells the user a ref, and logs the same ref once at error level', async () => {
    const h = await startHarness();
    await h.login();
    h.deps.zones.page = async () => {
      throw new Error('boom');
    };

    const answer = await h.command('zones');
    expect(answer.status).toBe(200);
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(reply?.ephemeralTo).toBe(MEMBER);
    expect(reply?.channel).toBe(CHANNEL);
    const text = textOf(reply?.text);
    const ref = /^Something went wrong on our side \(ref `([0-9a-f]{6})`\)\./.exec(text)?.[1];
    if (!ref) throw new Error(`no ref in ${JSON.stringify(text)}`);
    expect(textOf(reply?.blocks)).toContain(
      `:warning: Something went wrong on our side (ref \`${ref}\`)`,
    );
    expect(text).not.toContain('boom');

    const errors = entries(h.logs.lines).filter((line) => line.level >= LEVEL.error);
    expect(errors).toEqual([
      expect.objectContaining({
        msg: 'unexpected error',
        ref,
        where: 'command /cdn',
        err: expect.objectContaining({ message: 'boom' }),
      }),
    ]);
    // The one message the user got is that reply.
    expect(h.slack.messages).toEqual([reply]);
  });
});
