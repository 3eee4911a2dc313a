// How the event loop's business is read: the signal the fair queue and the event-loop pace act on.

import type { EventLoopUtilization } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { EventLoopBusy } from '../../src/throttles/event-loop-busy.js';

describe('EventLoopBusy', () => {
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
    const loop = new EventLoopBusy(0.5, utilization);
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
