// The durable job runner, one per process: claims due or abandoned jobs with a lease, keeps the
// lease alive with a heartbeat while a handler runs, retries failures with backoff, and on a
// graceful stop asks handlers to pause at a step boundary and puts their jobs back in the queue.
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { logLevelOf } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Job, JobRepository, JobStep, NewJob } from '../store/jobs.js';
import { StepWrites } from './step-writes.js';
import { UnseenKinds } from './unseen-kinds.js';

/** What a handler is given for one attempt at a job. */
export interface JobContext<Payload = unknown, Checkpoint = Record<string, unknown>> {
  job: Job<Payload, Checkpoint>;
  /** Aborted when the lease is lost: stop at once, write nothing more. */
  lost: AbortSignal;
  /** Aborted when the process is stopping: finish the step at hand, then return 'paused'. */
  stopping: AbortSignal;
  /** Stores where the work stands; throws LeaseLostError if another process holds the job now. */
  checkpoint(next: Checkpoint): Promise<void>;
  /**
   * Renews the lease now, or throws LeaseLostError if another process holds the job: called right
   * before a side effect that cannot be looked for afterwards (a Slack post), so that no other
   * process can take the job over for a whole lease (JOB_LEASE_MS) while it is made. The side
   * effect must end within that lease (Slack's calls are bounded well below its 15 s default).
   */
  fence(): Promise<void>;
  steps<Input, Result>(): Promise<JobStep<Input, Result>[]>;
  /** Closes one step with its result (steps that end together share one write). */
  completeStep(idx: number, result: unknown): Promise<void>;
  /**
   * Resolves when background work may take the event loop (JobRunnerOptions.pace): a handler
   * awaits it before each step it sends, so that Slack's requests find the loop free. At once
   * without a pace.
   */
  turn(): Promise<void>;
}

/**
 * How an attempt ended: done, paused for a restart, to be tried again later (a failed attempt), or
 * deferred: nothing failed, the rest is only not possible yet (another side's rate limit said
 * when), so the job comes back after `deferMs`, not counted as an attempt, holding no slot meanwhile.
 */
export type JobOutcome =
  | 'done'
  | 'paused'
  | { retryInMs: number; error: string }
  | { deferMs: number; reason: string };

export interface JobKind<Payload = unknown, Checkpoint = Record<string, unknown>> {
  run(context: JobContext<Payload, Checkpoint>): Promise<JobOutcome>;
  /** Called instead of `run` once a job has been claimed more than `maxAttempts` times. */
  giveUp?(context: JobContext<Payload, Checkpoint>): Promise<void>;
  /** Jobs of this kind running at once in this process. Default 4. */
  concurrency?: number;
  /** Claims before `giveUp` (a job whose process keeps dying counts too). Default 5. */
  maxAttempts?: number;
}

/**
 * How long to wait before trying a job again: `baseMs` doubling with each attempt up to `maxMs`,
 * and never sooner than the other side asked (a 429's Retry-After).
 */
export function retryDelay(
  attempts: number,
  options: { baseMs: number; maxMs: number; askedMs?: number | undefined },
): number {
  const backoff = Math.min(
    options.maxMs,
    options.baseMs * 2 ** Math.min(Math.max(0, attempts - 1), 20),
  );
  return Math.max(backoff, options.askedMs ?? 0);
}

export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  readonly code = 'lease_lost';
}

export interface JobRunnerOptions {
  jobs: JobRepository;
  clock: Clock;
  logger: Logger;
  /** This process's name on the leases it holds. */
  owner?: string;
  /** How long a claim lasts without a heartbeat: a crashed holder's jobs wait this long. */
  leaseMs?: number;
  /** How often the queue is read for due or abandoned jobs (enqueuing here wakes it at once). */
  pollMs?: number;
  /**
   * Background work's turns on the event loop (BACKGROUND_LOOP_PERCENT, see EventLoopPace): each
   * claim of new work, and each step a handler sends (`turn`), waits for one. Default: no waiting.
   */
  pace?: { turn(signal?: AbortSignal): Promise<void> };
}

interface Running {
  job: Job;
  stopping: AbortController;
  lost: AbortController;
  done: Promise<void>;
}

/**
 * Handlers make their steps idempotent; the runner only guarantees that one process at a time
 * holds a job, and that a crashed holder's job is taken over once its lease expires. `runKeyed`
 * gives work a request runs at once (a button's change) the same claim, under the work's key.
 * The whole mechanism, feature by feature: docs/architecture.md, "Exactly once".
 * Times written to the store come from the injected clock; the cadence of polling and heartbeats
 * is the process's own timers (a test clock standing still must not stop the runner).
 * (Over 400 lines: the claim loop, an attempt, the stop and `runKeyed` share the running map, the
 * lease and its heartbeat; which kinds are worth a claim is in unseen-kinds.ts, the pace in
 * src/throttles/event-loop-pace.ts.)
 */
export class JobRunner {
  readonly owner: string;
  readonly leaseMs: number;
  readonly #options: JobRunnerOptions;
  readonly #pollMs: number;
  readonly #kinds = new Map<string, JobKind<never, never>>();
  readonly #running = new Map<string, Running>();
  #loop: Promise<void> | undefined;
  #draining = false;
  /** The current wait between polls; aborting it wakes the loop. */
  #pollWait = new AbortController();
  /** Set when there may be work the loop has not looked for yet. */
  #unseenWork = false;
  /** How many times `lookNow` was called: settled() looks again if it moved during a look. */
  #looks = 0;
  /** The claiming under way, shared: two claimers at once would overrun the kinds' limits. */
  #filling: Promise<void> | undefined;
  /** Kinds whose last claim found nothing are not asked about again until marked (or polled). */
  readonly #unseen = new UnseenKinds();

  constructor(options: JobRunnerOptions) {
    this.#options = options;
    this.owner = options.owner ?? `worker-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.leaseMs = options.leaseMs ?? 15_000;
    this.#pollMs = options.pollMs ?? 1_000;
    if (this.leaseMs < 100 || this.#pollMs < 1)
      throw new TypeError('JobRunner: leaseMs must be at least 100 and pollMs at least 1');
  }

  register<Payload, Checkpoint>(kind: string, handler: JobKind<Payload, Checkpoint>): void {
    this.#kinds.set(kind, handler as unknown as JobKind<never, never>);
  }

  /** Stores the job (once per key) and wakes the loop, so it starts at once when it is due. */
  async enqueue(input: NewJob): Promise<{ job: Job; created: boolean }> {
    const result = await this.#options.jobs.enqueue(input);
    this.lookNow(input.kind);
    return result;
  }

  /**
   * Runs `work` now, in this process, as the job stored under `input.key`, for work a person waits
   * for (a button's change): claimed with a lease (`JobRepository.hold`) that the heartbeat keeps
   * while it runs, then finished. If `work` throws, the job is released and the next caller takes
   * it; if this process dies, the next caller takes it once the lease has expired. `ran` false,
   * with the job, when another process holds it or it is done. Its kind has no handler: the
   * runner's loop never takes it; `stop` waits for it as for any running job.
   */
  async runKeyed<T>(
    input: NewJob & { key: string },
    work: () => Promise<T>,
  ): Promise<{ ran: true; result: T } | { ran: false; job: Job }> {
    const { jobs, clock } = this.#options;
    const { held, job } = await jobs.hold(input, this.owner, this.leaseMs);
    if (!held) return { ran: false, job };
    const lost = new AbortController();
    const heartbeat = new AbortController();
    void this.#heartbeat(job, lost, heartbeat.signal);
    let ended = () => {};
    const done = new Promise<void>((resolve) => {
      ended = resolve;
    });
    this.#running.set(job.id, { job, stopping: new AbortController(), lost, done });
    try {
      const result = await work();
      if (!(await jobs.finish(job.id, this.owner, { state: 'succeeded' })))
        throw new LeaseLostError(`job ${job.id} is held by another process now`);
      return { ran: true, result };
    } catch (error) {
      await jobs
        .release(job.id, this.owner, clock.now(), { error: (error as Error).name })
        .catch(() => undefined);
      throw error;
    } finally {
      heartbeat.abort();
      this.#running.delete(job.id);
      ended();
    }
  }

  /**
   * Runs `work` now, in this process, as the job stored under `input.key` if it is due and no
   * other process holds it, then puts the job back in the queue, due at `next()`: work that comes
   * round again under one key (a recurring entry of BackgroundWork, a zone index's refresh).
   * Claimed with a lease (`JobRepository.hold`) that the heartbeat keeps while it runs; `ran`
   * false, with the job as it stands, when another process holds it or it is not due yet. A `work`
   * that throws puts it back all the same, and the error reaches the caller. Its kind has no
   * handler: the loop never takes it; the caller's stop waits for it, not `stop`.
   */
  async runHeld<T>(
    input: NewJob & { key: string },
    work: () => Promise<T>,
    next: () => number,
  ): Promise<{ ran: true; result: T } | { ran: false; job: Job }> {
    const { jobs, logger } = this.#options;
    const { held, job } = await jobs.hold(input, this.owner, this.leaseMs);
    if (!held) return { ran: false, job };
    const lost = new AbortController();
    const heartbeat = new AbortController();
    void this.#heartbeat(job, lost, heartbeat.signal);
    try {
      return { ran: true, result: await work() };
    } finally {
      heartbeat.abort();
      // Not a failed attempt: the work comes round again.
      const released = await jobs
        .release(job.id, this.owner, next(), { paused: true })
        .catch(() => false);
      if (!released) logger.warn({ job: job.key }, 'held job not released; its lease will expire');
    }
  }

  /**
   * Makes the loop look at the queue now instead of at the next poll, for jobs of `kind` (or, with
   * none, of every kind) stored without `enqueue` (a batch, in a transaction).
   */
  lookNow(kind?: string): void {
    this.#unseen.mark(kind);
    this.#wake();
  }

  /** Wakes the loop: a slot freed up, or a kind was marked. */
  #wake(): void {
    this.#looks++;
    this.#unseenWork = true;
    this.#pollWait.abort();
  }

  /** Starts claiming jobs until `stop`. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /**
   * Resolves once this process runs nothing and nothing is due: what a line of the console waits
   * for, so that a purge's messages come before the next line's.
   */
  async settled(): Promise<void> {
    for (;;) {
      // A job may finish, and enqueue more, while the queue is read: the claim that answered
      // "nothing" was asked before. Then nothing runs, yet the queue must be read again.
      const looks = this.#looks;
      // Every kind, whatever earlier claims found: jobs due since (a test clock moved on).
      this.#unseen.mark();
      if (!this.#draining) await this.#fillOnce();
      const running = [...this.#running.values()].map((entry) => entry.done);
      if (running.length === 0 && this.#looks === looks) return;
      await Promise.all(running);
    }
  }

  /** Jobs this process is running now. */
  get active(): number {
    return this.#running.size;
  }

  /**
   * Stops claiming, asks running handlers to pause at a step boundary, and waits for them up to
   * `deadlineMs`; past it their leases are released anyway (the work resumes elsewhere).
   */
  async stop(deadlineMs = 20_000): Promise<void> {
    this.#draining = true;
    this.#pollWait.abort();
    await this.#loop;
    const running = [...this.#running.values()];
    for (const entry of running) entry.stopping.abort();
    const all = Promise.all(running.map((entry) => entry.done));
    const deadline = new AbortController();
    const timedOut = await Promise.race([
      all.then(() => false),
      delay(deadlineMs, true, { signal: deadline.signal }).catch(() => false),
    ]);
    deadline.abort();
    if (!timedOut) return;
    this.#options.logger.warn(
      { jobs: running.filter((e) => this.#running.has(e.job.id)).map((e) => e.job.id) },
      'jobs did not pause in time; their leases are released',
    );
    for (const entry of this.#running.values()) {
      entry.lost.abort();
      await this.#options.jobs
        .release(entry.job.id, this.owner, this.#options.clock.now(), {
          error: 'interrupted by a stop',
        })
        .catch(() => undefined);
    }
  }

  async #run(): Promise<void> {
    while (!this.#draining) {
      this.#unseenWork = false;
      await this.#fillOnce().catch((error: unknown) =>
        this.#options.logger[logLevelOf(error)]({ err: error }, 'job queue not read'),
      );
      if (this.#draining) return;
      if (this.#unseenWork) continue;
      this.#pollWait = new AbortController();
      const polled = await delay(this.#pollMs, true, { signal: this.#pollWait.signal }).catch(
        () => false,
      );
      // The poll looks at every kind: jobs come due with time, or from other replicas.
      if (polled) this.#unseen.mark();
    }
  }

  /** Claims as `#fill` does, or joins the claiming already under way (then looks again). */
  async #fillOnce(): Promise<void> {
    while (this.#filling) await this.#filling.catch(() => undefined);
    this.#filling = this.#fill().finally(() => {
      this.#filling = undefined;
    });
    await this.#filling;
  }

  /** Claims jobs while this process has room for their kinds. */
  async #fill(): Promise<void> {
    for (;;) {
      const room = [...this.#kinds.entries()]
        .filter(([kind, handler]) => this.#count(kind) < (handler.concurrency ?? 4))
        .map(([kind]) => kind);
      if (this.#draining || this.#unseen.worth(room).length === 0) return;
      await this.#options.pace?.turn();
      const kinds = this.#unseen.worth(room);
      if (this.#draining || kinds.length === 0) return;
      const look = this.#unseen.look(kinds);
      const job = await this.#options.jobs.claim(this.owner, this.leaseMs, kinds);
      if (!job) {
        this.#unseen.nothingFor(look);
        return;
      }
      this.#start(job);
    }
  }

  #count(kind: string): number {
    let count = 0;
    for (const entry of this.#running.values()) if (entry.job.kind === kind) count++;
    return count;
  }

  #start(job: Job): void {
    const stopping = new AbortController();
    const lost = new AbortController();
    const entry: Running = { job, stopping, lost, done: Promise.resolve() };
    this.#running.set(job.id, entry);
    entry.done = this.#attempt(job, stopping.signal, lost).finally(() => {
      this.#running.delete(job.id);
      // A slot is free: look for more work of the kinds that may have some now, not at the next poll.
      this.#wake();
    });
  }

  async #attempt(job: Job, stopping: AbortSignal, lost: AbortController): Promise<void> {
    const { jobs, clock, logger } = this.#options;
    const handler = this.#kinds.get(job.kind);
    if (!handler) return;
    const heartbeat = new AbortController();
    void this.#heartbeat(job, lost, heartbeat.signal);
    const owner = this.owner;
    const held = async (write: Promise<boolean>) => {
      if (!(await write)) {
        lost.abort();
        throw new LeaseLostError(`job ${job.id} is held by another process now`);
      }
    };
    const stepWrites = new StepWrites((results) => jobs.completeSteps(job.id, owner, results));
    const context: JobContext<never, never> = {
      job: job as Job<never, never>,
      lost: lost.signal,
      stopping,
      checkpoint: async (next) => {
        await held(jobs.checkpoint(job.id, owner, next as Record<string, unknown>));
        job.checkpoint = next as Record<string, unknown>;
      },
      fence: () => held(jobs.renew(job.id, owner, this.leaseMs)),
      steps: () => jobs.steps(job.id),
      completeStep: (idx, result) => held(stepWrites.add(idx, result)),
      turn: () => this.#options.pace?.turn(stopping) ?? Promise.resolve(),
    };
    const log = { job: job.id, kind: job.kind, attempt: job.attempts };
    try {
      if (job.attempts > (handler.maxAttempts ?? 5)) {
        logger.warn(log, 'job given up after too many attempts');
        // Its last word failing does not bring it back: it is failed all the same.
        await handler.giveUp?.(context).catch((error: unknown) => {
          if (lost.signal.aborted || error instanceof LeaseLostError) throw error;
          logger[logLevelOf(error)]({ ...log, err: error }, 'job giveUp failed');
        });
        await jobs.finish(job.id, owner, { state: 'failed', error: 'too many attempts' });
        return;
      }
      if (job.attempts > 1) logger.info(log, 'job resumed');
      const outcome = await handler.run(context);
      if (lost.signal.aborted) {
        logger.warn(log, 'job lease lost; another process holds it now');
        return;
      }
      if (outcome === 'done') {
        await jobs.finish(job.id, owner, { state: 'succeeded' });
        logger.info(log, 'job finished');
      }
      // A pause for a stop is no failed attempt: a job paused by many deploys is not given up.
      else if (outcome === 'paused')
        await jobs.release(job.id, owner, clock.now(), { paused: true });
      // Nor is a deferral: a job told "not before" again and again is not given up either.
      else if ('deferMs' in outcome) {
        await jobs.release(job.id, owner, clock.now() + outcome.deferMs, {
          paused: true,
          error: outcome.reason,
        });
        logger.info({ ...log, deferMs: outcome.deferMs, reason: outcome.reason }, 'job deferred');
      } else {
        await jobs.release(job.id, owner, clock.now() + outcome.retryInMs, {
          error: outcome.error,
        });
        logger.info(
          { ...log, retryInMs: outcome.retryInMs, reason: outcome.error },
          'job will be tried again',
        );
      }
    } catch (error) {
      if (lost.signal.aborted || error instanceof LeaseLostError) {
        logger.warn(log, 'job lease lost; another process holds it now');
        return;
      }
      // Unexpected: logged, and the job retried later (its steps are idempotent).
      logger[logLevelOf(error)]({ ...log, err: error }, 'job attempt failed');
      const retryInMs = retryDelay(job.attempts + 1, { baseMs: 1_000, maxMs: 60_000 });
      await jobs
        .release(job.id, owner, clock.now() + retryInMs, { error: (error as Error).name })
        .catch((releaseError: unknown) =>
          logger[logLevelOf(releaseError)](
            { ...log, err: releaseError },
            'job not released; its lease will expire',
          ),
        );
    } finally {
      heartbeat.abort();
    }
  }

  /** Renews the lease a third of the way through it, until the attempt ends or the lease is lost. */
  async #heartbeat(job: Job, lost: AbortController, ended: AbortSignal): Promise<void> {
    const { jobs, logger } = this.#options;
    while (!ended.aborted) {
      try {
        await delay(Math.floor(this.leaseMs / 3), undefined, { signal: ended });
      } catch {
        return;
      }
      const renewed = await jobs.renew(job.id, this.owner, this.leaseMs).catch((error: unknown) => {
        // The database is away: keep trying; the lease may still be ours when it is back.
        logger.warn({ err: error, job: job.id }, 'job lease not renewed');
        return true;
      });
      if (!renewed) {
        lost.abort();
        return;
      }
    }
  }
}
