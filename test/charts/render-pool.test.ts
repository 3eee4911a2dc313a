// The chart pool: PNGs drawn in worker threads, its bounded queue, priorities, nice value, close.
// The pool under test is src compiled to JavaScript (test/helpers/compiled-src.ts), as the built
// bot runs it: its workers load the compiled renderer directly, where from the TypeScript sources
// each worker would first load tsx and compile the renderer (a fifth of a second of CPU a worker,
// and seconds of wall time at nice 10 on a busy machine; this file starts a dozen workers).
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type * as RenderPool from '../../src/charts/render-pool.js';
import { type TrafficChartInput, TrafficChartRenderer } from '../../src/charts/traffic-chart.js';
import type * as Errors from '../../src/errors.js';
import { compiledMain } from '../helpers/compiled-src.js';

/** A module of src, compiled (the one the compiled pool itself loads). */
async function compiled<T>(module: string): Promise<T> {
  return (await import(pathToFileURL(join(dirname(await compiledMain()), module)).href)) as T;
}
// Compiling src (once per change of it) may take a while on a busy machine: top-level, not in a test.
const { ChartPool } = await compiled<typeof RenderPool>('charts/render-pool.js');
// The class the compiled pool's refusals are made of.
const { AppError } = await compiled<typeof Errors>('errors.js');
type ChartPool = RenderPool.ChartPool;

const HOUR = 3_600_000;
const since = Date.parse('2026-11-22T00:00:00Z');
const input: TrafficChartInput = {
  zoneName: 'example.com',
  traffic: {
    totals: { requests: 48_000, bandwidth: 9e9, cacheHitRate: 0.91 },
    series: Array.from({ length: 24 }, (_, i) => ({
      timestamp: new Date(since + i * HOUR).toISOString(),
      time: since + i * HOUR,
      requests: 1_500 + ((i * 37) % 11) * 90,
      bandwidth: 3e8 + i * 1e7,
    })),
  },
  range: { since, until: since + 24 * HOUR, granularity: 'hour', label: 'last 24 h' },
  timeZone: 'Europe/Paris',
  markers: [{ at: since + 5 * HOUR, label: 'purge 3 URLs', kind: 'purge' }],
};

const pools: ChartPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

function pool(options: ConstructorParameters<typeof ChartPool>[0]): ChartPool {
  const created = new ChartPool(options);
  pools.push(created);
  return created;
}

const busy = (outcome: PromiseSettledResult<Buffer>) =>
  outcome.status === 'rejected' &&
  outcome.reason instanceof AppError &&
  outcome.reason.code === 'charts_busy';

describe('ChartPool', () => {
  it('draws in a worker thread exactly the PNG the in-process renderer draws', async () => {
    const png = await pool({ threads: 1 }).render(input);
    expect(Buffer.compare(png, await new TrafficChartRenderer().render(input))).toBe(0);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  // A worker stopped while canvas loads its fonts aborts the process (a bot SIGTERMed just after
  // it started exited on SIGABRT): close() lets each worker load first. `loaded` comes with no task
  // run: a worker parked in Atomics.wait between tasks would never say it (close would wait 10 s).
  it('stops no worker before it has loaded its renderer, even when closed at once', async () => {
    const charts = new ChartPool({ threads: 2 });
    let loaded = false;
    void charts.loaded.then(() => {
      loaded = true;
    });
    await charts.close();
    expect(loaded).toBe(true);
  });

  // Piscina loads the worker module with require() (require(esm), compiled as the bot runs it); a
  // thread stopped after the module's body but before that require() returned aborted the process
  // (SIGABRT, "Assertion failed: facade->InstantiateModule(...)" in Node's
  // CreateRequiredModuleFacade): a bot SIGTERMed just after "is up", 1 time in 21 on a busy
  // machine. The worker, loaded here the way piscina loads it, must say so only after that.
  it('says a worker is loaded only once its require() of the renderer has returned', async () => {
    const module = join(dirname(await compiledMain()), 'charts', 'render-worker.js');
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
      let required = false;
      const post = parentPort.postMessage.bind(parentPort);
      parentPort.postMessage = (message) => post({ message, required });
      require(workerData.module);
      required = true;`,
      { eval: true, workerData: { module, nice: 0 } },
    );
    try {
      const [said] = await once(worker, 'message');
      expect(said).toEqual({ message: { chartWorker: 'loaded' }, required: true });
    } finally {
      await worker.terminate();
    }
  });

  // At nice 0, as this test is about memory: on a thread niced below every other process of a
  // busy machine (2 cores, load 12), a chart took over 150 ms and 200 of them over a minute.
  it('gives back each canvas: 50 more charts queued back to back leave the memory as it was', async () => {
    const charts = pool({ threads: 1, queue: 50, nice: 0 });
    const queued = (count: number) =>
      Promise.all(Array.from({ length: count }, () => charts.render(input, { wait: true })));
    await queued(20); // the worker's heaps grown to what rendering needs
    const before = process.memoryUsage().rss;
    await queued(50);
    // Each canvas is 3 MB: kept, they would add 150 MB; given back, the memory stays (8-16 MB of
    // allocator noise measured; the bound leaves room for a busy machine's late collections).
    const grownMb = (process.memoryUsage().rss - before) / 2 ** 20;
    expect(grownMb).toBeLessThan(80);
    // 70 charts of 40 ms of CPU each, on a machine that gives this process a sixth of a core.
  }, 60_000);

  it('refuses a chart someone waits for once the queue is full, and draws the rest', async () => {
    const charts = pool({ threads: 1, queue: 2 });
    await charts.render(input); // the worker is up and idle
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => charts.render(input)),
    );
    const refused = outcomes.filter(busy).length;
    const drawn = outcomes.filter((o) => o.status === 'fulfilled').length;
    // One drawing and two waiting at most: the others are refused at once, none fails otherwise.
    expect(drawn + refused).toBe(8);
    expect(drawn).toBeGreaterThanOrEqual(2);
    expect(drawn).toBeLessThanOrEqual(3);
    // The first ones in are the ones drawn: the refusals are the latecomers.
    expect(outcomes.slice(0, 2).every((o) => o.status === 'fulfilled')).toBe(true);
    expect(busy(outcomes[7] as PromiseSettledResult<Buffer>)).toBe(true);
  });

  it('lets background work wait for room instead', async () => {
    const charts = pool({ threads: 1, queue: 1 });
    const pngs = await Promise.all(
      Array.from({ length: 6 }, () => charts.render(input, { wait: true })),
    );
    expect(pngs).toHaveLength(6);
    for (const png of pngs) expect(png.length).toBeGreaterThan(10_000);
  });

  it('draws a chart someone waits for before the reports queued ahead of it', async () => {
    const charts = pool({ threads: 1 });
    await charts.render(input);
    const done: string[] = [];
    const reports = Array.from({ length: 5 }, (_, i) =>
      charts.render(input, { wait: true }).then(() => done.push(`report ${i}`)),
    );
    // One report is drawing; four wait. The interactive chart goes next, ahead of them.
    expect(charts.waiting).toEqual({ interactive: 0, background: 4 });
    const asked = charts.render(input).then(() => done.push('asked'));
    expect(charts.waiting).toEqual({ interactive: 1, background: 4 });
    await Promise.all([...reports, asked]);
    expect(done).toEqual(['report 0', 'asked', 'report 1', 'report 2', 'report 3', 'report 4']);
  });

  it('does not count reports waiting against the charts someone waits for', async () => {
    const charts = pool({ threads: 1, queue: 1 });
    const reports = Array.from({ length: 4 }, () => charts.render(input, { wait: true }));
    await expect(charts.render(input)).resolves.toBeInstanceOf(Buffer);
    await Promise.all(reports);
  });

  it.runIf(process.platform === 'linux')(
    'runs its workers at the nice value asked for, the event loop left at its own',
    async () => {
      const nices = () =>
        readdirSync('/proc/self/task').map((tid) => {
          const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
          // Fields after the command's closing parenthesis; the nice value is the 19th field.
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
        });
      const before = nices().filter((nice) => nice === 7).length;
      const charts = pool({ threads: 2, nice: 7 });
      await Promise.all([charts.render(input), charts.render(input)]);
      expect(nices().filter((nice) => nice === 7).length - before).toBe(2);
      expect(
        Number(readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]?.split(' ')[16]),
      ).toBe(0);
    },
  );

  it('rejects what still waits when it closes', async () => {
    const charts = new ChartPool({ threads: 1 });
    const drawing = charts.render(input, { wait: true });
    const waiting = expect(charts.render(input, { wait: true })).rejects.toThrow('closed');
    await charts.close();
    await waiting;
    await drawing.catch(() => {});
    await expect(charts.render(input)).rejects.toThrow('closed');
  });

  it('sizes itself from the cores, leaving one to the event loop', () => {
    const charts = pool({});
    expect(charts.threads).toBeGreaterThanOrEqual(1);
    expect(charts.queue).toBe(charts.threads * 4);
  });
});
