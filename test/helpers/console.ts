// Runs a script through a fresh local console (real app, in-process fake Slack, embedded sandbox) for the console tests.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { CdnTransport } from '../../src/cdn/transport.js';
import type { ChartRenderer } from '../../src/charts/traffic-chart.js';
import { loadConfig } from '../../src/config.js';
import { type RunningConsole, startConsole } from '../../src/dev/console/start.js';
import type { Store } from '../../src/store/index.js';
import { afterEachTest } from './after-each-test.js';
import { ManualClock } from './clock.js';
import { captureLogs } from './logs.js';
import { testStore } from './store.js';

const closers: Array<() => Promise<unknown>> = [];
afterEachTest(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

export interface ConsoleRun {
  transcript: string;
  /** Everything printed so far, including after the script ended. */
  printed: () => string;
  console: RunningConsole;
  store: Store;
  outDir: string;
  logs: ReturnType<typeof captureLogs>;
  clock: ManualClock;
}

export interface PipeOptions {
  /** Called once the console is up, before the script runs (to set up the sandbox's edge, say). */
  before?: (running: RunningConsole) => void;
  chartRenderer?: ChartRenderer;
}

/** Pipes `script` through a fresh console and returns everything it printed; closed after the test. */
export async function pipeConsole(script: string, options: PipeOptions = {}): Promise<ConsoleRun> {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const { store } = await testStore('sqlite', { clock });
  const transport = new CdnTransport();
  const outDir = join(await mkdtemp(join(tmpdir(), 'console-')), 'out');
  const logs = captureLogs('info');
  let transcript = '';
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      transcript += chunk.toString();
      done();
    },
  });
  const running = await startConsole({
    config: loadConfig({ BOT_MODE: 'console' }),
    store,
    transport,
    logger: logs.logger,
    clock,
    input: Readable.from([script]),
    output,
    outDir,
    timeZone: 'Europe/Paris',
    interactive: false,
    ...(options.chartRenderer ? { chartRenderer: options.chartRenderer } : {}),
  });
  // As the console's entry (src/dev/console/main.ts) does: the background work, started once.
  running.deps.background.start();
  closers.push(
    () => transport.close(),
    () => running.deps.background.stop(1_000),
    () => running.close(),
  );
  options.before?.(running);
  await running.run();
  return { transcript, printed: () => transcript, console: running, store, outDir, logs, clock };
}

/** Each fragment appears in `text`, in this order; else says which is missing or out of order. */
export function expectInOrder(text: string, fragments: string[]): void {
  let from = 0;
  for (const fragment of fragments) {
    const at = text.indexOf(fragment, from);
    if (at < 0) {
      const what = text.includes(fragment) ? 'out of order' : 'missing';
      throw new Error(
        `${what} in the transcript: ${JSON.stringify(fragment)}\n${text.slice(-4000)}`,
      );
    }
    from = at + fragment.length;
  }
}
