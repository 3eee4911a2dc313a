// Charts are drawn off the event loop, in a pool of worker threads (piscina), so that a chart's
// 40 ms of CPU never holds up another user's ack. A render in a worker is the same renderer's, so
// its PNG is byte for byte the one drawn in-process.
// The pool loads `canvas` in this thread too: a native addon loaded by worker threads alone is
// unloaded when one of them exits, which crashes the process.
import 'canvas';
import { availableParallelism } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { Piscina } from 'piscina';
import { AppError } from '../errors.js';
import type { ChartPlace, ChartRenderer, TrafficChartInput } from './traffic-chart.js';
import { isWorkerLoaded } from './worker-loaded.js';

export interface ChartPoolOptions {
  /** Worker threads. Default: the cores less one for the event loop, at least one. */
  threads?: number;
  /**
   * Charts someone waits for beyond those being drawn, at most (their data being fetched, or
   * waiting for a worker). Default: four per thread.
   */
  queue?: number;
  /**
   * The workers' nice value (0 to 19, Linux): above 0, the event loop wins a core over a render,
   * so an ack never queues behind a chart. Default 10.
   */
  nice?: number;
}

/** Running from TypeScript sources (tests, the console): workers need tsx to load the renderer. */
const fromSources = import.meta.url.endsWith('.ts');

export function defaultChartThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * How long `close` waits for workers still loading their renderer before it stops them anyway
 * (a worker that never loads must not hold up a shutdown for ever).
 */
const LOAD_WAIT_MS = 10_000;

/** Charts someone waits for that go ahead of a waiting background chart, at most, in a row. */
const INTERACTIVE_IN_A_ROW = 4;

interface Task {
  input: TrafficChartInput;
  resolve: (png: Buffer) => void;
  reject: (error: unknown) => void;
}

/**
 * The charts someone waits for are bounded: one holds a place from before its data is fetched
 * until it is drawn, at most the workers plus the queue of them at once; past that a chart is
 * refused at once ("busy, try again in a minute"), before the CDN is asked for anything, while
 * background work (reports) waits for room.
 */
export class ChartPool implements ChartRenderer {
  readonly #pool: Piscina;
  readonly threads: number;
  readonly queue: number;
  /** Charts someone is waiting for go to a worker before any background chart. */
  readonly #interactive: Task[] = [];
  readonly #background: Task[] = [];
  #running = 0;
  /** Places held by charts someone waits for: fetching their data, waiting, or being drawn. */
  #held = 0;
  /** Charts someone waited for, sent to a worker in a row while background charts waited. */
  #ahead = 0;
  #closed = false;
  /**
   * Resolves once every worker has loaded its renderer, fonts included, and is out of its module
   * load. Until then a worker must not be stopped: one stopped inside canvas's font loading, or
   * inside Node's require() of the worker module, aborts the whole process (SIGABRT).
   */
  readonly loaded: Promise<void>;

  constructor(options: ChartPoolOptions = {}) {
    this.threads = options.threads ?? defaultChartThreads();
    this.queue = options.queue ?? this.threads * 4;
    const worker = new URL(`./render-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
    const nice = options.nice ?? 10;
    this.#pool = new Piscina({
      filename: fromSources
        ? new URL('../dev/workers/typescript-worker.mjs', import.meta.url).href
        : worker.href,
      workerData: { nice, ...(fromSources ? { module: worker.href } : {}) },
      minThreads: this.threads,
      maxThreads: this.threads,
      // Tasks wait here, in order of priority (see #next), not in piscina's queue.
      // Workers live as long as the pool: each holds a renderer with its fonts loaded.
      idleTimeout: Number.POSITIVE_INFINITY,
      // Between tasks a worker waits in its event loop, not in Atomics.wait (which stops it): the
      // worker says it is loaded a turn of its loop after loading (render-worker.ts), and must
      // not have to wait for a first task to get that turn. A chart's 40 ms dwarf the difference.
      atomics: 'disabled',
    });
    let loading = this.threads;
    this.loaded = new Promise((resolve) => {
      const onMessage = (message: unknown) => {
        if (!isWorkerLoaded(message) || --loading > 0) return;
        this.#pool.off('message', onMessage);
        resolve();
      };
      this.#pool.on('message', onMessage);
    });
  }

  /**
   * Draws `input` in a worker. A chart someone waits for takes a place (see `reserve`) and is
   * refused at once (`charts_busy`) when none is free; background work (`wait: true`) waits for
   * room behind them, never refused and never ahead of them.
   */
  render(input: TrafficChartInput, options: { wait?: boolean } = {}): Promise<Buffer> {
    if (options.wait) return this.#enqueue(this.#background, input);
    let place: ChartPlace;
    try {
      place = this.reserve();
    } catch (error) {
      return Promise.reject(error);
    }
    return place.render(input).finally(() => place.release());
  }

  /**
   * A place for a chart someone waits for, taken before its data is fetched: one of `threads +
   * queue`, or AppError `charts_busy` at once when all are held.
   */
  reserve(): ChartPlace {
    if (this.#closed) throw new Error('the chart pool is closed');
    if (this.#held >= this.threads + this.queue) throw new AppError({ code: 'charts_busy' });
    this.#held += 1;
    let held = true;
    return {
      render: (input) => this.#enqueue(this.#interactive, input),
      release: () => {
        if (!held) return;
        held = false;
        this.#held -= 1;
      },
    };
  }

  #enqueue(line: Task[], input: TrafficChartInput): Promise<Buffer> {
    if (this.#closed) return Promise.reject(new Error('the chart pool is closed'));
    return new Promise<Buffer>((resolve, reject) => {
      line.push({ input, resolve, reject });
      this.#next();
    });
  }

  /** Charts waiting for a worker: someone's, and background ones. */
  get waiting(): { interactive: number; background: number } {
    return { interactive: this.#interactive.length, background: this.#background.length };
  }

  #next(): void {
    while (this.#running < this.threads) {
      // Someone's chart first; but after a few in a row, one background chart, so that reports
      // move on even while charts keep being asked for.
      const backgroundTurn = this.#ahead >= INTERACTIVE_IN_A_ROW && this.#background.length > 0;
      const task = backgroundTurn
        ? this.#background.shift()
        : (this.#interactive.shift() ?? this.#background.shift());
      this.#ahead = backgroundTurn || this.#interactive.length === 0 ? 0 : this.#ahead + 1;
      if (!task) return;
      this.#running += 1;
      const settle = () => {
        // The worker is free before anyone hears of the result, so the next task can have it.
        this.#running -= 1;
        this.#next();
      };
      this.#pool.run(task.input).then(
        (png: Uint8Array) => {
          settle();
          task.resolve(Buffer.from(png.buffer, png.byteOffset, png.byteLength));
        },
        (error: unknown) => {
          settle();
          task.reject(error);
        },
      );
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const closed = new Error('the chart pool is closed');
    for (const task of this.#interactive.splice(0).concat(this.#background.splice(0)))
      task.reject(closed);
    const waited = new AbortController();
    await Promise.race([
      this.loaded,
      delay(LOAD_WAIT_MS, undefined, { signal: waited.signal }).catch(() => undefined),
    ]);
    waited.abort();
    await this.#pool.close();
  }
}
