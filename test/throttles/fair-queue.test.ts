// The fair queue (the HTTP API's): at most `inFlight` pieces of work at once (one while the event
// loop is busy), `queued` more, shared fairly between keys (tokens), the rest refused.

import { describe, expect, it } from 'vitest';
import { FairQueue, QueueFull } from '../../src/throttles/fair-queue.js';

function held() {
  let release = () => {};
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

describe('FairQueue', () => {
  it('runs inFlight at once, queues the next ones first come first served, refuses past the queue', async () => {
    const gate = new FairQueue({ inFlight: 2, queued: 2 });
    const order: string[] = [];
    const holds = [held(), held()];
    const running = holds.map((h, i) =>
      gate.run(async () => {
        order.push(`start ${i}`);
        await h.promise;
      }),
    );
    const queued = [2, 3].map((i) =>
      gate.run(async () => {
        order.push(`start ${i}`);
      }),
    );
    expect(gate.load).toEqual({ active: 2, waiting: 2 });
    await expect(gate.run(async () => 'never')).rejects.toBeInstanceOf(QueueFull);
    expect(order).toEqual(['start 0', 'start 1']);
    holds[1]?.release();
    await running[1];
    // One turn freed: the queued ones run in it, one after the other, while 0 still holds its own.
    await Promise.all(queued);
    expect(order).toEqual(['start 0', 'start 1', 'start 2', 'start 3']);
    expect(gate.load).toEqual({ active: 1, waiting: 0 });
    holds[0]?.release();
    await running[0];
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('frees the turn of work that fails', async () => {
    const gate = new FairQueue({ inFlight: 1, queued: 0 });
    await expect(gate.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run(async () => 'next')).toBe('next');
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('gives one turn at a time while the event loop is busy, and the others once it is not', async () => {
    let busy = true;
    const gate = new FairQueue({ inFlight: 3, queued: 10 }, () => busy);
    const holds = [held(), held(), held(), held()];
    const started: number[] = [];
    const runs = holds.slice(0, 3).map((h, i) =>
      gate.run(async () => {
        started.push(i);
        await h.promise;
      }),
    );
    expect(gate.load).toEqual({ active: 1, waiting: 2 });
    // The loop is free again: the next request and those waiting before it get their turns.
    busy = false;
    const fourth = gate.run(async () => {
      started.push(3);
      await holds[3]?.promise;
    });
    expect(gate.load).toEqual({ active: 3, waiting: 1 });
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    // Busy again: a turn that ends is not given on while another runs.
    busy = true;
    holds[0]?.release();
    await runs[0];
    expect(gate.load).toEqual({ active: 2, waiting: 1 });
    holds[1]?.release();
    await runs[1];
    expect(gate.load).toEqual({ active: 1, waiting: 1 });
    holds[2]?.release();
    await runs[2];
    expect(gate.load).toEqual({ active: 1, waiting: 0 });
    holds[3]?.release();
    await fourth;
    expect(started).toEqual([0, 1, 2, 3]);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });
});

describe('FairQueue between tokens', () => {
  it('gives a free turn to the waiting token that holds the fewest, in turn: a burst queues behind itself', async () => {
    const gate = new FairQueue({ inFlight: 1, queued: 10 });
    const order: string[] = [];
    const first = held();
    const running = gate.run(() => first.promise, { key: 'a' });
    const runs = ['a1', 'a2', 'a3', 'b1', 'c1', 'b2'].map((name) =>
      gate.run(
        async () => {
          order.push(name);
        },
        { key: name.slice(0, 1) },
      ),
    );
    expect(gate.load).toEqual({ active: 1, waiting: 6 });
    first.release();
    await Promise.all([running, ...runs]);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('gives a token holding turns none more while another waits', async () => {
    const gate = new FairQueue({ inFlight: 2, queued: 10 });
    const holds = [held(), held()];
    const order: string[] = [];
    const running = holds.map((h) => gate.run(() => h.promise, { key: 'a' }));
    const a = gate.run(async () => order.push('a'), { key: 'a' });
    const b = gate.run(async () => order.push('b'), { key: 'b' });
    // The turn a frees goes to b, which holds none, though a asked first (a then has the next).
    holds[0]?.release();
    await Promise.all([running[0], a, b]);
    expect(order).toEqual(['b', 'a']);
    holds[1]?.release();
    await running[1];
  });

  it('makes room in a full queue by refusing the newest of the longest line, never another token’s', async () => {
    const gate = new FairQueue({ inFlight: 1, queued: 3 });
    const first = held();
    const running = gate.run(() => first.promise, { key: 'a' });
    const outcome = (key: string) =>
      gate
        .run(async () => 'ran', { key })
        .catch((error: unknown) => {
          expect(error).toBeInstanceOf(QueueFull);
          return 'refused';
        });
    const a = [outcome('a'), outcome('a'), outcome('a')];
    // Full: b's request takes the place of a's newest; a's next is refused itself.
    const b = outcome('b');
    const aMore = outcome('a');
    expect(gate.load).toEqual({ active: 1, waiting: 3 });
    // c takes the place of a's newest again (a's line, two, is still the longest).
    const c = outcome('c');
    expect(gate.load).toEqual({ active: 1, waiting: 3 });
    first.release();
    await running;
    expect(await Promise.all([...a, b, aMore, c])).toEqual([
      'ran',
      'refused',
      'refused',
      'ran',
      'refused',
      'ran',
    ]);
  });

  it('takes a request whose client left out of the line', async () => {
    const gate = new FairQueue({ inFlight: 1, queued: 1 });
    const first = held();
    const running = gate.run(() => first.promise, { key: 'a' });
    const left = new AbortController();
    const leaving = gate.run(async () => 'ran', { key: 'b', signal: left.signal });
    left.abort(new Error('gone'));
    await expect(leaving).rejects.toThrow('gone');
    expect(gate.load).toEqual({ active: 1, waiting: 0 });
    // Its place is free again.
    const next = gate.run(async () => 'next', { key: 'c' });
    first.release();
    await running;
    expect(await next).toBe('next');
  });
});
