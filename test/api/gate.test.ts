// The API's gate: at most `inFlight` requests worked on at once (one while the event loop is busy),
// `queued` more in order, the rest refused; and how the loop's business is read.

import type { EventLoopUtilization } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { ApiGate, GateFull } from '../../src/api/gate.js';
import { LoopBusy } from '../../src/api/loop-busy.js';

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

  it('gives one turn at a time while the event loop is busy, and the others once it is not', async () => {
    let busy = true;
    const gate = new ApiGate({ inFlight: 3, queued: 10 }, () => busy);
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

describe('LoopBusy', () => {
  it('says busy when the loop ran callbacks more than half of its last window of 50 ms or more', () => {
    // Node's cumulative figures, as the test sets them: idle and active ms so far.
    let idle = 0;
    let active = 0;
    const utilization = (now?: EventLoopUtilization, before?: EventLoopUtilization) => {
      if (now && before) {
        const window = { idle: now.idle - before.idle, active: now.active - before.active };
        return { ...window, utilization: window.active / (window.idle + window.active) };
      }
      return { idle, active, utilization: active / Math.max(1, idle + active) };
    };
    const loop = new LoopBusy(0.5, utilization);
    active = 40;
    // A window shorter than 50 ms is not judged yet.
    expect(loop.busy()).toBe(false);
    idle = 20;
    expect(loop.busy()).toBe(true);
    // Until the next window is complete, the last one's verdict stands.
    idle = 30;
    expect(loop.busy()).toBe(true);
    idle = 80;
    active = 50;
    expect(loop.busy()).toBe(false);
  });
});
