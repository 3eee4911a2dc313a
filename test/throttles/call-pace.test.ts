// The call pace: a call waits for the latest of its keys' slots; keys alone do not hold others up.
import { describe, expect, it } from 'vitest';
import { paceKeys } from '../../src/slack/web-api-paces.js';
import { CallPace, LocalSlots } from '../../src/throttles/call-pace.js';
import { ManualClock } from '../helpers/clock.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');

describe('CallPace', () => {
  it("spaces calls in one channel by 1.2 s, and a workspace's file method by 750 ms", async () => {
    const clock = new ManualClock(T0);
    const pace = new CallPace(new LocalSlots(clock), clock);
    const ran: Array<[string, number]> = [];
    const post = (name: string, keys: Array<[string, number]>) =>
      pace.turn(keys, async () => {
        ran.push([name, clock.now() - T0]);
      });
    const channel = paceKeys.channel('T1', 'C1');
    const upload = paceKeys.tier4('T1', 'files.completeUploadExternal');
    const calls = [
      post('first', [upload, channel]),
      post('same channel', [upload, channel]),
      post('other channel, same method', [upload, paceKeys.channel('T1', 'C2')]),
      post('other workspace', [paceKeys.tier4('T2', 'files.info'), paceKeys.channel('T2', 'C9')]),
    ];
    await clock.sleepers(2);
    expect(ran).toEqual([
      ['first', 0],
      ['other workspace', 0],
    ]);
    clock.advance(1_200);
    await calls[1];
    clock.advance(300);
    await Promise.all(calls);
    expect(Object.fromEntries(ran)).toEqual({
      first: 0,
      'other workspace': 0,
      'same channel': 1_200,
      // Its channel was free, but the method's slots went at 0 and 750: its own is 1,500.
      'other channel, same method': 1_500,
    });
  });

  it("keeps a channel's posts 1.2 s apart when a method's backlog delays them", async () => {
    const clock = new ManualClock(T0);
    const slots = new LocalSlots(clock);
    const pace = new CallPace(slots, clock);
    const upload = paceKeys.tier4('T1', 'files.completeUploadExternal');
    // Five uploads to other channels came first: the method's next slot is 3,750 ms away.
    for (let i = 0; i < 5; i++) await slots.take(upload[0], upload[1]);
    const at: number[] = [];
    const posts = Array.from({ length: 3 }, () =>
      pace.turn([upload, paceKeys.channel('T1', 'C1')], async () => {
        at.push(clock.now() - T0);
      }),
    );
    await clock.sleepers(3);
    clock.advance(3_750);
    await posts[0];
    for (const post of posts.slice(1)) {
      clock.advance(1_200);
      await post;
    }
    expect(at).toEqual([3_750, 4_950, 6_150]);
  });

  it('makes no call when its wait is cut short', async () => {
    const clock = new ManualClock(T0);
    const pace = new CallPace(new LocalSlots(clock), clock);
    const channel = paceKeys.channel('T1', 'C1');
    await pace.turn([channel], async () => {});
    const stop = new AbortController();
    let called = false;
    const waiting = pace.turn(
      [channel],
      async () => {
        called = true;
      },
      stop.signal,
    );
    await clock.sleepers(1);
    stop.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    expect(called).toBe(false);
  });
});
