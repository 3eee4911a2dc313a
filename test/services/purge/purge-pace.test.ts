// A purge job sends each batch in background work's turn (BACKGROUND_LOOP_PERCENT): while the
// pace holds its turns, nothing goes to the CDN; each turn given lets one batch go.
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplyTo } from '../../../src/services/reply.js';
import { callerOf, opened, purgeSetup } from '../purge-setup.js';

const REPLY: ReplyTo = { userId: 'U1', channelId: 'C1', issuedAt: 0, visibility: 'in_channel' };

let release = () => {};
afterEach(async () => {
  release();
  for (const close of opened.splice(0).reverse()) await close();
});

const until = async (what: string, done: () => boolean) => {
  const deadline = Date.now() + 8_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within 8 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('purge job pace', () => {
  it('sends no batch before its turn, and one batch per turn given', async () => {
    const turns: Array<() => void> = [];
    let holding = true;
    release = () => {
      holding = false;
      for (const turn of turns.splice(0)) turn();
    };
    const t = await purgeSetup('sqlite', {
      pace: {
        turn: () =>
          holding ? new Promise<void>((resolve) => turns.push(resolve)) : Promise.resolve(),
      },
    });
    const caller = callerOf('U1', { user: { isAdmin: true } });
    // More URLs than one batch of the sandbox's size: several batches, each with its turn.
    const urls = Array.from({ length: 61 }, (_, i) => `https://example.com/p/${i}.css`);
    const plan = await t.purges.plan(caller, 'C1', t.items(urls.join(' ')));
    await t.purges.start(plan, REPLY);
    // The runner's claim waits for a turn first.
    await until('the claim asks for its turn', () => turns.length === 1);
    turns.shift()?.();
    // Then each batch asks for its own (and the runner, for its next claim); none is sent yet.
    await until('the batches ask for their turns', () => turns.length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(t.purgeRequests()).toEqual([]);
    // Turns given one at a time, in line: the first batch that has one is sent, the rest wait.
    while (t.purgeRequests().length === 0) {
      turns.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(t.purgeRequests()).toHaveLength(1);
    expect(turns.length).toBeGreaterThan(0);
    holding = false;
    for (const turn of turns.splice(0)) turn();
    await until('the purge finished', () => t.finished.length === 1);
    expect(t.purgeRequests().length).toBeGreaterThan(1);
  });
});
