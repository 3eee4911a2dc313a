// All the background work of a process in one list: the durable job kinds (run by the one job
// runner) and the recurring entries (what, how often). The composition root starts it once;
// `stop` takes no new work, waits for what runs (up to a deadline), and only then may the store
// close. The only loops of background work are here: services expose one round of their work.
import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { type Clock, repeat } from '../clock.js';
import { logLevelOf } from '../errors.js';
import type { Logger } from '../logger.js';
import type { JobKind, JobRunner } from './runner.js';

/**
 * Recurring work, declared once: a round of it every `every` ms, the first at start. By default
 * one replica runs each round: the entry is a job of the runner (`recurring:<name>`), held with its
 * lease while a round runs and then queued for the next period, so that replicas take turns and a
 * dead holder's round is taken over once its lease expires (like graphile-worker's crontab).
 */
export interface Recurring {
  /** Named for the logs, and the key of its job. */
  name: string;
  /** Milliseconds from the end of a round to the next one. */
  every: number;
  /**
   * One round. Its failures are logged, and the next round comes a period later. `signal` aborts
   * when the process stops: a long round ends early.
   */
  run(signal: AbortSignal): Promise<unknown>;
  /**
   * 'process': every process runs its own rounds, for what is its own (its host's files, its
   * event loop), with no job and no lease.
   */
  each?: 'process';
  /** With `each: 'process'`: the first round a period after start instead of at start. */
  firstAfter?: boolean;
}

/** The kind of a recurring entry's job: its loop runs it, never the runner's claims. */
export const RECURRING_JOB = 'recurring';

/** The key of a recurring entry's one job. */
export const recurringKey = (name: string): string => `recurring:${name}`;

export class BackgroundWork {
  readonly #runner: JobRunner;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #entries = new Map<string, Recurring>();
  readonly #stopping = new AbortController();
  /** The recurring entries' loops under way, by name, once started. */
  #running: Map<string, Promise<void>> | undefined;

  constructor(runner: JobRunner, logger: Logger, clock: Clock) {
    this.#runner = runner;
    this.#logger = logger;
    this.#clock = clock;
  }

  /** A kind of durable job: claimed with a lease by one process, resumed after a crash. */
  job<Payload, Checkpoint>(kind: string, handler: JobKind<Payload, Checkpoint>): void {
    this.#runner.register(kind, handler);
  }

  /** A recurring entry (see Recurring). */
  every(entry: Recurring): void {
    if (this.#entries.has(entry.name))
      throw new TypeError(`BackgroundWork: two entries named ${entry.name}`);
    if (!(entry.every >= 1)) throw new TypeError(`BackgroundWork: ${entry.name} every ms < 1`);
    if (entry.firstAfter && entry.each !== 'process')
      throw new TypeError(`BackgroundWork: ${entry.name} is shared; its first round is at start`);
    this.#entries.set(entry.name, entry);
  }

  /** The recurring entries, as declared. */
  get entries(): readonly Recurring[] {
    return [...this.#entries.values()];
  }

  /** Starts the runner and every entry. Only once: a second start would run each entry twice. */
  start(): void {
    if (this.#running) throw new Error('BackgroundWork: already started');
    this.#runner.start();
    const signal = this.#stopping.signal;
    // Each entry's loop listens on this one signal (its sleep, its round): a listener or two an
    // entry is expected, not a leak, so Node's warning past ten is moved past what they hold.
    setMaxListeners(10 + 2 * this.#entries.size, signal);
    this.#running = new Map(
      [...this.#entries].map(([name, entry]) => [
        name,
        (entry.each === 'process'
          ? this.#eachProcess(entry, signal)
          : this.#shared(entry, signal)
        ).catch((error: unknown) =>
          this.#logger[logLevelOf(error)]({ err: error, entry: name }, 'recurring work stopped'),
        ),
      ]),
    );
  }

  /**
   * Takes no new work: no job is claimed, no entry starts a round. Running jobs pause at a step
   * boundary (or are released at the deadline); rounds under way end. Resolves once all have, or
   * at `deadlineMs`: only then may the store close.
   */
  async stop(deadlineMs: number): Promise<void> {
    this.#stopping.abort();
    const loops = this.#running ?? new Map<string, Promise<void>>();
    const unfinished = new Set(loops.keys());
    const ended = Promise.all(
      [...loops].map(([name, done]) => done.then(() => unfinished.delete(name))),
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
      this.#logger.warn({ entries: [...unfinished] }, 'recurring work did not end in time');
    }
  }

  /** One round, its failure logged. */
  async #round(entry: Recurring, signal: AbortSignal): Promise<void> {
    try {
      await entry.run(signal);
    } catch (error) {
      this.#logger[logLevelOf(error)]({ err: error, entry: entry.name }, 'recurring round failed');
    }
  }

  async #eachProcess(entry: Recurring, signal: AbortSignal): Promise<void> {
    if (entry.firstAfter && !(await this.#sleep(entry.every, signal))) return;
    await repeat(this.#clock, entry.every, signal, () => this.#round(entry, signal));
  }

  /**
   * Until the signal aborts: runs the entry's job when it is due and no replica holds it, then
   * waits until its next time (what the job says when another replica ran it).
   */
  async #shared(entry: Recurring, signal: AbortSignal): Promise<void> {
    const clock = this.#clock;
    const input = {
      workspaceId: '',
      kind: RECURRING_JOB,
      key: recurringKey(entry.name),
      payload: { name: entry.name },
    };
    while (!signal.aborted) {
      let wait = entry.every;
      try {
        const held = await this.#runner.runHeld(
          input,
          () => this.#round(entry, signal),
          () => clock.now() + entry.every,
        );
        // Not due yet: until it is (a replica that ran it set when). Held elsewhere: a period,
        // by when a dead holder's lease has expired or the next is due.
        if (!held.ran && held.job.state === 'queued')
          wait = Math.max(1, held.job.runAt - clock.now());
      } catch (error) {
        this.#logger[logLevelOf(error)](
          { err: error, entry: entry.name },
          'recurring job not claimed',
        );
      }
      if (!(await this.#sleep(wait, signal))) return;
    }
  }

  /** False when the signal aborted the sleep. */
  async #sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.#clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }
}
