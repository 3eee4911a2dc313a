// The API's gate: at most `inFlight` requests worked on at once, `queued` more in order, the rest refused.
import { describe, expect, it } from 'vitest';
import { ApiGate, GateFull } from '../../src/api/gate.js';

function held() {
  let release = () => {};
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

describe('ApiGate', () => {
  it('runs inFlight at once, queues the next ones first come first served, refuses past the queue', async () => {
    const gate = new ApiGate({ inFlight: 2, queued: 2 });
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
    await expect(gate.run(async () => 'never')).rejects.toBeInstanceOf(GateFull);
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
    const gate = new ApiGate({ inFlight: 1, queued: 0 });
    await expect(gate.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run(async () => 'next')).toBe('next');
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });
});
