// Charts are drawn off the event loop, in a pool of worker threads (piscina), so that a chart's
// 40 ms of CPU never holds up another user's ack. The queue in front of the workers is bounded:
// when it is full, a chart someone is waiting for is refused at once ("busy, try again in a
// minute"), while background work (reports) waits for room. A render in a worker is the same
// renderer's, so its PNG is byte for byte the one drawn in-process.
// The pool loads `canvas` in this thread too: a native addon loaded by worker threads alone is
// unloaded when one of them exits, which crashes the process.
import 'canvas';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { AppError } from '../errors.js';
import type { ChartRenderer, TrafficChartInput } from './traffic-chart.js';

export interface ChartPoolOptions {
  /** Worker threads. Default: the cores less one for the event loop, at least one. */
  threads?: number;
  /** Charts waiting for a worker, at most. Default: four per thread. */
  queue?: number;
}

/** Running from TypeScript sources (tests, the console): workers need tsx to load the renderer. */
const fromSources = import.meta.url.endsWith('.ts');

export function defaultChartThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

export class ChartPool implements ChartRenderer {
  readonly #pool: Piscina;
  readonly threads: number;
  readonly queue: number;

  constructor(options: ChartPoolOptions = {}) {
    this.threads = options.threads ?? defaultChartThreads();
    this.queue = options.queue ?? this.threads * 4;
    const worker = new URL(`./render-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
    this.#pool = new Piscina({
      filename: fromSources
        ? new URL('../dev/workers/typescript-worker.mjs', import.meta.url).href
        : worker.href,
      ...(fromSources ? { workerData: { module: worker.href } } : {}),
      minThreads: this.threads,
      maxThreads: this.threads,
      // Unbounded here: the bound is for charts someone waits for (see render); background work
      // queues behind them, never refused and never starved.
      // Workers live as long as the pool: each holds a renderer with its fonts loaded.
      idleTimeout: Number.POSITIVE_INFINITY,
    });
  }

  async render(input: TrafficChartInput, options: { wait?: boolean } = {}): Promise<Buffer> {
    if (!options.wait && this.#pool.queueSize >= this.queue)
      throw new AppError({ code: 'charts_busy' });
    const png = (await this.#pool.run(input)) as Uint8Array;
    return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}
