// All the background work of a process in one list: the durable job kinds (run by the one job
// runner) and the periodic ticks. The composition root starts it once; `stop` takes no new work,
// waits for what runs (up to a deadline), and only then may the store close.
import { setTimeout as delay } from 'node:timers/promises';
import { logLevelOf } from '../errors.js';
import type { Logger } from '../logger.js';
import type { JobKind, JobRunner } from './runner.js';

/**
 * A periodic tick: rounds until the signal aborts. A round under way when it aborts ends first,
 * and the returned promise settles only then (the stop waits for it).
 */
export type Tick = (signal: AbortSignal) => Promise<void>;

export class BackgroundWork {
  readonly #runner: JobRunner;
  readonly #logger: Logger;
  readonly #ticks = new Map<string, Tick>();
  readonly #stopping = new AbortController();
  /** The ticks under way, by name, once started. */
  #running: Map<string, Promise<void>> | undefined;

  constructor(runner: JobRunner, logger: Logger) {
    this.#runner = runner;
    this.#logger = logger;
  }

  /** A kind of durable job: claimed with a lease by one process, resumed after a crash. */
  job<Payload, Checkpoint>(kind: string, handler: JobKind<Payload, Checkpoint>): void {
    this.#runner.register(kind, handler);
  }

  /** A periodic tick, named for the logs. */
  tick(name: string, run: Tick): void {
    if (this.#ticks.has(name)) throw new TypeError(`BackgroundWork: two ticks named ${name}`);
    this.#ticks.set(name, run);
  }

  /** Starts the runner and every tick. Only once: a second start would run each tick twice. */
  start(): void {
    if (this.#running) throw new Error('BackgroundWork: already started');
    this.#runner.start();
    this.#running = new Map(
      [...this.#ticks].map(([name, run]) => [
        name,
        run(this.#stopping.signal).catch((error: unknown) =>
          this.#logger[logLevelOf(error)]({ err: error, tick: name }, 'background tick stopped'),
        ),
      ]),
    );
  }

  /**
   * Takes no new work: no job is claimed, no tick starts a round. Running jobs pause at a step
   * boundary (or are released at the deadline); ticks end their round. Resolves once all have, or
   * at `deadlineMs`: only then may the store close.
   */
  async stop(deadlineMs: number): Promise<void> {
    this.#stopping.abort();
    const ticks = this.#running ?? new Map<string, Promise<void>>();
    const unfinished = new Set(ticks.keys());
    const ended = Promise.all(
      [...ticks].map(([name, done]) => done.then(() => unfinished.delete(name))),
    );
    const deadline = new AbortController();
    await Promise.all([
      this.#runner.stop(deadlineMs),
      Promise.race([ended, delay(deadlineMs, undefined, { signal: deadline.signal })]).catch(
        () => undefined,
      ),
    ]);
    deadline.abort();
    if (unfinished.size > 0) {
      this.#logger.warn({ ticks: [...unfinished] }, 'background ticks did not end in time');
    }
  }
}
