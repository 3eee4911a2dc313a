// A worker thread of the chart pool (render-pool.ts): one renderer for the thread's life, given a
// chart's data, giving back its PNG. The thread runs at the pool's nice value, below the event loop.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { type TrafficChartInput, TrafficChartRenderer } from './traffic-chart.js';
import { WORKER_LOADED } from './worker-loaded.js';

lowerPriority(Number((workerData as { nice?: unknown } | undefined)?.nice ?? 0));

// Encoded here, on this niced thread: on libuv's pool the PNG's deflate would run at the
// process's priority and take a core from the event loop.
const renderer = new TrafficChartRenderer({ encodeInThread: true });
// The pool stops no thread before this: one stopped inside canvas's font loading aborts the
// whole process (node-addon-api cannot throw into a thread being terminated). Said a turn of the
// event loop later, not while this module is evaluated: piscina loads it with require(), and a
// thread stopped after this module's body but before that require() returned aborts the process
// too (SIGABRT, Node's "Assertion failed: facade->InstantiateModule(...)" in
// CreateRequiredModuleFacade): 1 SIGTERM in 21 just after start on a busy machine. The pool runs
// its workers without Atomics (render-pool.ts), so this turn comes without waiting for a task.
setImmediate(() => parentPort?.postMessage(WORKER_LOADED));

export default function render(input: TrafficChartInput): Promise<Buffer> {
  return renderer.render(input);
}

/**
 * On Linux a nice value belongs to a thread: this thread's id is the last part of
 * /proc/thread-self. Elsewhere, or where it is not allowed, the thread keeps the process's.
 */
function lowerPriority(nice: number): void {
  if (!(nice > 0)) return;
  try {
    const self = readlinkSync('/proc/thread-self');
    setPriority(Number(self.slice(self.lastIndexOf('/') + 1)), Math.min(19, nice));
  } catch {
    // Not Linux, or not permitted: rendering goes on at the process's priority.
  }
}
