import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock, within } from '../../src/clock.js';
import type { DatabaseConfig } from '../../src/config.js';
import {
  type JobContext,
  type JobKind,
  JobRunner,
  type JobRunnerOptions,
  LeaseLostError,
} from '../../src/jobs/runner.js';
import type { Store } from '../../src/store/index.js';
import type { NewJob } from '../../src/store/jobs.js';
import { ManualClock } from '../helpers/clock.js';
import { type CapturedLogs, captureLogs } from '../helpers/logs.js';
import { BACKENDS, type Backend, testDatabase, testStore } from '../helpers/store.js';
import { aborted, deferred, type JobCall, type ObservedJobs, observe } from './observed-jobs.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');

const WAIT = 8_000;

/** `promise`, or a failure naming `label` after WAIT ms, instead of hanging until the test's timeout. */
const inTime = <T>(promise: Promise<T>, label: string): Promise<T> =>
  within(systemClock, WAIT, promise, () => {
    throw new Error(`timed out after ${WAIT} ms: ${label}`);
  });

/** What a test keeps of a handler's context. */
type Signals = Pick<JobContext, 'lost' | 'stopping'>;

class BoomError extends Error {
  override readonly name = 'BoomError';
}

// Runners stop, and blocked handlers are let go, before the stores close (hooks run as a stack).
const runners: JobRunner[] = [];
let teardown = new AbortController();
afterEach(async () => {
  teardown.abort();
  for (const runner of runners.splice(0)) {
    await runner.stop(1_000);
    await runner.settled();
  }
  teardown = new AbortController();
});

/** A gate a handler waits at; the test opens it (teardown opens them all). */
function gate(): { open: () => void; passed: Promise<void> } {
  const { promise, resolve } = deferred();
  return { open: resolve, passed: Promise.race([promise, aborted(teardown.signal)]) };
}

interface Replica {
  store: Store;
  observed: ObservedJobs;
  logs: CapturedLogs;
  runner: JobRunner;
}

async function replica(
  backend: Backend,
  clock: ManualClock,
  database: DatabaseConfig,
  options: Partial<JobRunnerOptions> = {},
): Promise<Replica> {
  const { store } = await testStore(backend, { clock, database });
  const observed = observe(store.jobs);
  const logs = captureLogs('info');
  const runner = new JobRunner({
    jobs: observed.repo,
    clock,
    logger: logs.logger,
    pollMs: 20,
    leaseMs: 10_000,
    ...options,
  });
  runners.push(runner);
  return { store, observed, logs, runner };
}

async function world(backend: Backend, options: Partial<JobRunnerOptions> = {}) {
  const clock = new ManualClock(T0);
  const database = await testDatabase(backend);
  const first = await replica(backend, clock, database, { owner: 'r1', ...options });
  return { clock, database, ...first };
}

const job = (kind: string, extra: Partial<NewJob> = {}): NewJob => ({
  workspaceId: 'T1',
  kind,
  payload: { n: 1 },
  ...extra,
});

const isCall =
  (method: JobCall['method'], jobId?: string) =>
  (call: JobCall): boolean =>
    call.method === method && (jobId === undefined || call.args[0] === jobId);

/**
 * Holds the answer of the next claim that takes a job until `letGo` opens; `held` resolves once
 * it is held (the store's work done, the runner not yet told).
 */
function holdNextClaim(observed: ObservedJobs) {
  const held = deferred();
  const letGo = gate();
  observed.hold = async (call) => {
    if (call.method !== 'claim' || call.result === undefined) return;
    observed.hold = undefined;
    held.resolve();
    await letGo.passed;
  };
  return { held, letGo };
}

/** The nth (1-based) call that matches, past or future. */
function nth(observed: ObservedJobs, n: number, predicate: (call: JobCall) => boolean) {
  let seen = 0;
  return observed.until((call) => predicate(call) && ++seen === n);
}

/** The first matching call made from now on (so it sees the clock as it is now). */
function next(observed: ObservedJobs, predicate: (call: JobCall) => boolean) {
  const from = observed.issued;
  return observed.until((call) => call.seq > from && predicate(call));
}

/** A handler over the job's steps: skips the closed ones, records the ones it executes. */
function stepper(
  executed: Array<{ owner: string | null; idx: number }>,
  before?: (idx: number, context: JobContext) => Promise<void>,
): JobKind {
  return {
    run: async (context) => {
      for (const step of await context.steps<number, { by: string | null }>()) {
        if (step.result !== undefined) continue;
        if (context.stopping.aborted) return 'paused';
        await before?.(step.idx, context);
        executed.push({ owner: context.job.leaseOwner, idx: step.idx });
        await context.completeStep(step.idx, { by: context.job.leaseOwner });
      }
      return 'done';
    },
  };
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`job runner on ${backend}`, () => {
    it('runs an enqueued job of a registered kind to succeeded at once, long before the next poll', async () => {
      const { runner, store, observed } = await world(backend, { pollMs: 60_000 });
      const seen: unknown[] = [];
      runner.register('echo', {
        run: async (context) => {
          seen.push({ ...context.job });
          return 'done';
        },
      });
      const stranger = (await runner.enqueue(job('unknown'))).job;
      runner.start();
      // The loop has looked at the queue: it now waits a minute for the next look, unless woken.
      await inTime(observed.until(isCall('claim')), 'the first look at the queue');
      const { job: queued, created } = await runner.enqueue(job('echo', { payload: { hi: 1 } }));
      expect(created).toBe(true);
      await inTime(observed.until(isCall('finish', queued.id)), 'the job ran at once');
      expect(seen).toEqual([
        { ...queued, state: 'running', leaseOwner: 'r1', leaseUntil: T0 + 10_000, attempts: 1 },
      ]);
      expect(await store.jobs.get(queued.id)).toEqual({
        ...queued,
        state: 'succeeded',
        attempts: 1,
        finishedAt: T0,
      });
      // A kind this process does not run is never claimed.
      expect(await store.jobs.get(stranger.id)).toEqual(stranger);
      const claims = observed.calls.filter(isCall('claim'));
      expect(claims.map((c) => c.args[2])).toEqual(claims.map(() => ['echo']));
    });

    it('retries a handler that throws, later, with attempts growing, and one that asks to', async () => {
      const { runner, store, observed, clock, logs } = await world(backend);
      const attempts: number[] = [];
      runner.register('flaky', {
        run: async (context) => {
          attempts.push(context.job.attempts);
          if (context.job.attempts === 1) throw new BoomError('upstream said no');
          if (context.job.attempts === 2) return { retryInMs: 30_000, error: 'rate limited' };
          return 'done';
        },
      });
      runner.start();
      const { job: queued } = await runner.enqueue(job('flaky'));
      await inTime(nth(observed, 1, isCall('release', queued.id)), 'first failure');
      // Thrown: retried after 1 s × 2^attempts, with the error's name (not its message).
      expect(await store.jobs.get(queued.id)).toEqual({
        ...queued,
        state: 'queued',
        attempts: 1,
        runAt: T0 + 2_000,
        error: 'BoomError',
      });
      expect(logs.text()).toContain('job attempt failed');
      // Not before its time: a later look at the queue leaves it be.
      clock.advance(1_999);
      await inTime(
        next(observed, (c) => c.method === 'claim' && c.result === undefined),
        'a look at the queue',
      );
      expect(await store.jobs.get(queued.id)).toMatchObject({ state: 'queued', attempts: 1 });
      clock.advance(1);
      await inTime(nth(observed, 2, isCall('release', queued.id)), 'asked for a retry');
      expect(await store.jobs.get(queued.id)).toEqual({
        ...queued,
        state: 'queued',
        attempts: 2,
        runAt: T0 + 2_000 + 30_000,
        error: 'rate limited',
      });
      clock.advance(30_000);
      await inTime(observed.until(isCall('finish', queued.id)), 'third attempt');
      expect(attempts).toEqual([1, 2, 3]);
      expect(await store.jobs.get(queued.id)).toMatchObject({
        state: 'succeeded',
        attempts: 3,
        error: null,
        finishedAt: T0 + 32_000,
      });
    });

    it('defers a job that says "not before": back then, never given up for it, not an attempt', async () => {
      const { runner, store, observed, clock, logs } = await world(backend);
      const seen: number[] = [];
      runner.register('deferring', {
        maxAttempts: 2,
        // Four deferrals, more than its attempts: none of them counts as one.
        run: async (context) => {
          seen.push(context.job.attempts);
          return seen.length <= 4 ? { deferMs: 10_000, reason: 'waits for Slack' } : 'done';
        },
        giveUp: async () => {
          throw new Error('a deferral is no failure');
        },
      });
      runner.start();
      const { job: queued } = await runner.enqueue(job('deferring'));
      for (let n = 1; n <= 4; n++) {
        await inTime(nth(observed, n, isCall('release', queued.id)), `deferral ${n}`);
        expect(await store.jobs.get(queued.id)).toMatchObject({
          state: 'queued',
          attempts: 0,
          runAt: T0 + n * 10_000,
          error: 'waits for Slack',
        });
        // Not before its time.
        clock.advance(9_999);
        await inTime(
          next(observed, (c) => c.method === 'claim' && c.result === undefined),
          'a look at the queue',
        );
        expect(await store.jobs.get(queued.id)).toMatchObject({ state: 'queued' });
        clock.advance(1);
        runner.lookNow();
      }
      await inTime(observed.until(isCall('finish', queued.id)), 'done');
      expect(seen).toEqual([1, 1, 1, 1, 1]);
      expect(await store.jobs.get(queued.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
      expect(logs.text()).toContain('job deferred');
    });

    it('gives up once the attempts exceed maxAttempts, and fails the job for good', async () => {
      const { runner, store, observed, clock } = await world(backend);
      const runs: number[] = [];
      const givenUp: number[] = [];
      runner.register('doomed', {
        maxAttempts: 2,
        run: async (context) => {
          runs.push(context.job.attempts);
          throw new BoomError('no');
        },
        giveUp: async (context) => {
          givenUp.push(context.job.attempts);
        },
      });
      runner.start();
      const { job: queued } = await runner.enqueue(job('doomed'));
      await inTime(nth(observed, 1, isCall('release', queued.id)), 'first failure');
      clock.advance(2_000);
      await inTime(nth(observed, 2, isCall('release', queued.id)), 'second failure');
      expect(givenUp).toEqual([]);
      clock.advance(4_000);
      await inTime(observed.until(isCall('finish', queued.id)), 'given up');
      expect(runs).toEqual([1, 2]);
      expect(givenUp).toEqual([3]);
      expect(await store.jobs.get(queued.id)).toMatchObject({
        state: 'failed',
        attempts: 3,
        error: 'too many attempts',
        leaseOwner: null,
        finishedAt: T0 + 6_000,
      });
      // Failed for good: later looks at the queue find nothing.
      clock.advance(3_600_000);
      await inTime(
        next(observed, (c) => c.method === 'claim' && c.result === undefined),
        'a look at the queue',
      );
      expect(runs).toEqual([1, 2]);
      expect(givenUp).toEqual([3]);
    });

    it('fails a job for good when its giveUp throws, logged with the error, not retried', async () => {
      const { runner, store, observed, clock, logs } = await world(backend);
      const givenUp: number[] = [];
      runner.register('doomed', {
        maxAttempts: 1,
        run: async () => {
          throw new BoomError('no');
        },
        giveUp: async (context) => {
          givenUp.push(context.job.attempts);
          throw new BoomError('the last word failed too');
        },
      });
      runner.start();
      const { job: queued } = await runner.enqueue(job('doomed'));
      await inTime(nth(observed, 1, isCall('release', queued.id)), 'first failure');
      clock.advance(2_000);
      await inTime(observed.until(isCall('finish', queued.id)), 'given up');
      expect(givenUp).toEqual([2]);
      expect(await store.jobs.get(queued.id)).toMatchObject({
        state: 'failed',
        attempts: 2,
        error: 'too many attempts',
        leaseOwner: null,
      });
      expect(logs.text()).toContain('the last word failed too');
      // Not back a minute later, nor an hour later.
      clock.advance(3_600_000);
      await inTime(
        next(observed, (c) => c.method === 'claim' && c.result === undefined),
        'a look at the queue',
      );
      expect(givenUp).toEqual([2]);
    });

    it('resumes a job abandoned by a crashed holder without redoing its closed steps', async () => {
      const { runner, store, observed, clock } = await world(backend);
      const executed: Array<{ owner: string | null; idx: number }> = [];
      runner.register('steps', stepper(executed));
      const { job: queued } = await store.jobs.enqueue(job('steps', { steps: [0, 1, 2, 3, 4, 5] }));
      // The dead process claimed it, closed three steps, and never came back.
      expect(await store.jobs.claim('dead', 1_000, ['steps'])).toMatchObject({ attempts: 1 });
      for (const idx of [0, 1, 2])
        await store.jobs.completeStep(queued.id, 'dead', idx, { by: 'dead' });
      runner.start();
      // Its lease still runs: the runner leaves it be.
      await inTime(
        next(observed, (c) => c.method === 'claim' && c.result === undefined),
        'a look at the queue',
      );
      expect(executed).toEqual([]);
      clock.advance(1_001);
      await inTime(observed.until(isCall('finish', queued.id)), 'the job resumed');
      expect(executed).toEqual([3, 4, 5].map((idx) => ({ owner: 'r1', idx })));
      expect((await store.jobs.steps(queued.id)).map((s) => s.result)).toEqual([
        { by: 'dead' },
        { by: 'dead' },
        { by: 'dead' },
        { by: 'r1' },
        { by: 'r1' },
        { by: 'r1' },
      ]);
      expect(await store.jobs.get(queued.id)).toMatchObject({
        state: 'succeeded',
        attempts: 2,
        finishedAt: T0 + 1_001,
      });
    });

    it('lets one of two runners racing for an expired lease run the handler, once', async () => {
      const w = await world(backend, { pollMs: 5 });
      const second = await replica(backend, w.clock, w.database, { owner: 'r2', pollMs: 5 });
      const byReplica = { r1: w, r2: second };
      const ran: Array<string | null> = [];
      const started = deferred<string>();
      const release = gate();
      const kind: JobKind = {
        run: async (context) => {
          ran.push(context.job.leaseOwner);
          started.resolve(context.job.leaseOwner ?? '');
          await release.passed;
          return 'done';
        },
      };
      w.runner.register('once', kind);
      second.runner.register('once', kind);
      const { job: queued } = await w.store.jobs.enqueue(job('once'));
      await w.store.jobs.claim('dead', 1_000, ['once']);
      w.runner.start();
      second.runner.start();
      w.clock.advance(1_001);
      const winner = await inTime(started.promise, 'one runner took it over');
      const loser = byReplica[winner === 'r1' ? 'r2' : 'r1'];
      // The other keeps looking while the winner runs it, and finds nothing.
      for (let i = 0; i < 3; i++) {
        const look = await inTime(next(loser.observed, isCall('claim')), 'a look');
        expect(look.result).toBeUndefined();
      }
      release.open();
      await inTime(
        byReplica[winner === 'r1' ? 'r1' : 'r2'].observed.until(isCall('finish', queued.id)),
        'finished',
      );
      expect(ran).toEqual([winner]);
      expect(await w.store.jobs.get(queued.id)).toMatchObject({ state: 'succeeded', attempts: 2 });
      expect(loser.observed.calls.filter((c) => c.method === 'claim' && c.result)).toEqual([]);
    });

    it('pauses at a step boundary on stop, and another runner finishes the remaining steps', async () => {
      const { runner, store, observed, clock, database } = await world(backend);
      const executed: Array<{ owner: string | null; idx: number }> = [];
      const atStep2 = deferred();
      runner.register(
        'steps',
        stepper(executed, async (idx, context) => {
          if (idx !== 2 || context.job.leaseOwner !== 'r1') return;
          atStep2.resolve();
          // The step at hand runs to its end, even though the stop comes in the middle of it.
          await aborted(context.stopping);
        }),
      );
      runner.start();
      const { job: queued } = await runner.enqueue(job('steps', { steps: [0, 1, 2, 3, 4, 5] }));
      await inTime(atStep2.promise, 'step 2 under way');
      await inTime(runner.stop(10_000), 'stopped');
      expect(
        observed.calls.filter(isCall('release')).map(({ args, result }) => ({ args, result })),
      ).toEqual([{ args: [queued.id, 'r1', T0, { paused: true }], result: true }]);
      // A pause for a stop is not an attempt: the job has been claimed once and tried none.
      expect(await store.jobs.get(queued.id)).toEqual({
        ...queued,
        state: 'queued',
        attempts: 0,
        runAt: T0,
        leaseOwner: null,
        leaseUntil: null,
        error: null,
      });
      expect((await store.jobs.steps(queued.id)).map((s) => s.result)).toEqual([
        { by: 'r1' },
        { by: 'r1' },
        { by: 'r1' },
        undefined,
        undefined,
        undefined,
      ]);
      // Stopped: it claims nothing more.
      expect(runner.active).toBe(0);

      const other = await replica(backend, clock, database, { owner: 'r2' });
      other.runner.register('steps', stepper(executed));
      other.runner.start();
      await inTime(other.observed.until(isCall('finish', queued.id)), 'finished elsewhere');
      expect(executed).toEqual([
        { owner: 'r1', idx: 0 },
        { owner: 'r1', idx: 1 },
        { owner: 'r1', idx: 2 },
        { owner: 'r2', idx: 3 },
        { owner: 'r2', idx: 4 },
        { owner: 'r2', idx: 5 },
      ]);
      expect(await store.jobs.get(queued.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
    });

    it('releases the lease of a handler that ignores the stop, once the deadline has passed', async () => {
      const { runner, store, observed } = await world(backend);
      const started = deferred<Signals>();
      let returned = false;
      runner.register('stubborn', {
        run: async (context) => {
          started.resolve(context);
          await Promise.race([aborted(context.lost), aborted(teardown.signal)]);
          returned = true;
          return 'done';
        },
      });
      runner.start();
      const { job: queued } = await runner.enqueue(job('stubborn'));
      const context = await inTime(started.promise, 'started');
      await inTime(runner.stop(150), 'stopped');
      expect(context.stopping.aborted).toBe(true);
      expect(context.lost.aborted).toBe(true);
      expect(await store.jobs.get(queued.id)).toEqual({
        ...queued,
        state: 'queued',
        attempts: 1,
        runAt: T0,
        leaseOwner: null,
        leaseUntil: null,
        error: 'interrupted by a stop',
      });
      // The handler returned 'done' after all, too late: the runner writes nothing more.
      await inTime(runner.settled(), 'the attempt ended');
      expect(returned).toBe(true);
      expect(observed.calls.filter(isCall('finish'))).toEqual([]);
      expect(await store.jobs.get(queued.id)).toMatchObject({ state: 'queued', leaseOwner: null });
      // Another replica can take it at once.
      expect(await store.jobs.claim('r2', 1_000, ['stubborn'])).toMatchObject({ attempts: 2 });
    });

    it('keeps the lease alive with its heartbeat while the handler runs', async () => {
      const { runner, store, observed, clock } = await world(backend, { leaseMs: 300 });
      const started = deferred();
      const release = gate();
      runner.register('slow', {
        run: async () => {
          started.resolve();
          await release.passed;
          return 'done';
        },
      });
      runner.start();
      const { job: queued } = await runner.enqueue(job('slow'));
      await inTime(started.promise, 'started');
      for (let beat = 1; beat <= 2; beat++) {
        clock.advance(250);
        const renewed = await inTime(next(observed, isCall('renew', queued.id)), 'beat');
        expect(renewed.result).toBe(true);
        expect((await store.jobs.get(queued.id))?.leaseUntil).toBe(clock.now() + 300);
      }
      // Past the lease it was first given, and still held.
      expect(clock.now()).toBeGreaterThan(T0 + 300);
      expect(await store.jobs.claim('thief', 300, ['slow'])).toBeUndefined();
      release.open();
      await inTime(observed.until(isCall('finish', queued.id)), 'finished');
      expect(await store.jobs.get(queued.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
    });

    /** Moves the clock past the runner's lease until another owner has taken the job. */
    async function steal(store: Store, clock: ManualClock, kind: string) {
      for (let tries = 0; tries < 50; tries++) {
        // The heartbeat may renew between the move and the claim: then move on again.
        clock.advance(10_000);
        const taken = await store.jobs.claim('other', 60_000, [kind]);
        if (taken) return taken;
      }
      throw new Error('the job could not be taken over');
    }

    it('notices a lost lease: lost aborts, checkpoint throws LeaseLostError, nothing finished', async () => {
      // No poll of its own after the first claim (the enqueue wakes it): a poll between the
      // clock's move and the steal would claim the expired job again first (attempts 3, seen on
      // PostgreSQL at load 10).
      const { runner, store, observed, clock, logs } = await world(backend, {
        leaseMs: 300,
        pollMs: 60_000,
      });
      const started = deferred<Signals>();
      const outcome = deferred<unknown>();
      runner.register('long', {
        run: async (context) => {
          started.resolve(context);
          // The heartbeat (every 100 ms) finds the lease gone.
          await Promise.race([aborted(context.lost), aborted(teardown.signal)]);
          try {
            await context.checkpoint({ step: 9 });
            outcome.resolve('written');
          } catch (error) {
            outcome.resolve(error);
          }
          return 'done';
        },
      });
      runner.start();
      const { job: queued } = await runner.enqueue(job('long', { checkpoint: { step: 0 } }));
      const context = await inTime(started.promise, 'started');
      const taken = await steal(store, clock, 'long');
      expect(taken).toMatchObject({ leaseOwner: 'other', attempts: 2 });
      const error = await inTime(outcome.promise, 'the handler tried a checkpoint');
      expect(error).toBeInstanceOf(LeaseLostError);
      expect(context.lost.aborted).toBe(true);
      await inTime(runner.stop(1_000), 'stopped');
      expect(observed.calls.filter((c) => c.method === 'finish' || c.method === 'release')).toEqual(
        [],
      );
      expect(await store.jobs.get(queued.id)).toEqual(taken);
      // Said, though the handler returned as if done (it used to end in silence).
      expect(logs.text()).toContain('job lease lost');
    });

    it('fence() renews the lease for a whole lease before a side effect, or refuses once it is lost', async () => {
      const { runner, store, clock } = await world(backend, { leaseMs: 300, pollMs: 60_000 });
      const fenced = deferred<number | null | undefined>();
      const stolen = gate();
      const second = deferred<unknown>();
      let sideEffects = 0;
      runner.register('post', {
        run: async (context) => {
          clock.advance(250);
          await context.fence();
          fenced.resolve((await store.jobs.get(context.job.id))?.leaseUntil);
          sideEffects++;
          await stolen.passed;
          try {
            await context.fence();
            sideEffects++;
            second.resolve('fenced');
          } catch (error) {
            second.resolve(error);
            throw error;
          }
          return 'done';
        },
      });
      runner.start();
      await runner.enqueue(job('post'));
      // A whole lease from the fence, not from the claim 250 ms before it.
      expect(await inTime(fenced.promise, 'fenced')).toBe(clock.now() + 300);
      await steal(store, clock, 'post');
      stolen.open();
      expect(await inTime(second.promise, 'the second fence')).toBeInstanceOf(LeaseLostError);
      expect(sideEffects).toBe(1);
      await inTime(runner.stop(1_000), 'stopped');
    });

    it('neither finishes nor releases a job whose handler lets LeaseLostError through', async () => {
      const { runner, store, observed, clock, logs } = await world(backend, { leaseMs: 300 });
      const started = deferred<Signals>();
      const stolen = gate();
      const thrown = deferred<unknown>();
      runner.register('long', {
        run: async (context) => {
          started.resolve(context);
          await stolen.passed;
          try {
            await context.checkpoint({ step: 9 });
          } catch (error) {
            thrown.resolve(error);
            throw error;
          }
          return 'done';
        },
      });
      runner.start();
      const { job: queued } = await runner.enqueue(job('long'));
      await inTime(started.promise, 'started');
      const taken = await steal(store, clock, 'long');
      stolen.open();
      expect(await inTime(thrown.promise, 'checkpoint refused')).toBeInstanceOf(LeaseLostError);
      await inTime(runner.stop(1_000), 'stopped');
      expect(observed.calls.filter((c) => c.method === 'finish' || c.method === 'release')).toEqual(
        [],
      );
      expect(await store.jobs.get(queued.id)).toEqual(taken);
      expect(logs.text()).toContain('job lease lost');
    });

    it('settled() resolves once the queued jobs, and the jobs they enqueued, have run', async () => {
      const { runner, store } = await world(backend);
      const ran: string[] = [];
      runner.register('parent', {
        run: async (context) => {
          ran.push(`parent ${context.job.id}`);
          await runner.enqueue(job('child', { payload: { parent: context.job.id } }));
          return 'done';
        },
      });
      runner.register('child', {
        run: async (context) => {
          ran.push(`child of ${(context.job.payload as { parent: string }).parent}`);
          return 'done';
        },
      });
      const a = (await runner.enqueue(job('parent'))).job;
      const later = (await runner.enqueue(job('parent', { runAt: T0 + 60_000 }))).job;
      await inTime(runner.settled(), 'settled');
      expect(ran).toEqual([`parent ${a.id}`, `child of ${a.id}`]);
      expect(await store.jobs.countByState()).toEqual({ succeeded: 2, queued: 1 });
      expect((await store.jobs.get(later.id))?.state).toBe('queued');
    });

    // The race a busy machine opens: settled()'s second claim is answered "nothing" before the
    // first job enqueues its child, and that job has finished (its slot empty) by the time the
    // answer comes back. Nothing runs then, yet the child is due: settled() must look again.
    it('settled() looks again when a job finished and enqueued more while the queue was read', async () => {
      const { runner, observed } = await world(backend);
      const ran: string[] = [];
      const emptyClaim = deferred();
      runner.register('child', {
        run: async () => {
          ran.push('child');
          return 'done';
        },
      });
      runner.register('parent', {
        run: async () => {
          ran.push('parent');
          await emptyClaim.promise;
          await runner.enqueue(job('child'));
          return 'done';
        },
      });
      const { job: parent } = await runner.enqueue(job('parent'));
      observed.hold = async (call) => {
        if (call.method !== 'claim' || call.result !== undefined) return;
        observed.hold = undefined;
        emptyClaim.resolve();
        await observed.until(isCall('finish', parent.id));
        // The attempt's own `finally` (its slot freed) runs before this answer is handed back.
        await new Promise((resolve) => setImmediate(resolve));
      };
      await inTime(runner.settled(), 'settled');
      expect(ran).toEqual(['parent', 'child']);
    });

    it('runs at most `concurrency` jobs of a kind at once, each kind on its own', async () => {
      const { runner, store, observed } = await world(backend);
      const active = new Map<string, number>();
      const most = new Map<string, number>();
      const gates = new Map<string, ReturnType<typeof gate>>();
      const started = new Map<string, ReturnType<typeof deferred<void>>>();
      const kind = (concurrency: number): JobKind => ({
        concurrency,
        run: async (context) => {
          const k = context.job.kind;
          active.set(k, (active.get(k) ?? 0) + 1);
          most.set(k, Math.max(most.get(k) ?? 0, active.get(k) ?? 0));
          started.get(context.job.id)?.resolve();
          await gates.get(context.job.id)?.passed;
          active.set(k, (active.get(k) ?? 0) - 1);
          return 'done';
        },
      });
      runner.register('a', kind(1));
      runner.register('b', kind(1));
      runner.register('c', kind(2));
      runner.register('d', kind(1));
      const ids = new Map<string, string>();
      const add = async (name: string, runAt: number) => {
        const { job: queued } = await store.jobs.enqueue(job(name.slice(0, 1), { runAt }));
        ids.set(name, queued.id);
        gates.set(queued.id, gate());
        started.set(queued.id, deferred());
      };
      const id = (name: string) => ids.get(name) ?? '';
      const startedOf = (name: string) =>
        started.get(id(name))?.promise ?? Promise.reject(new Error(`no job ${name}`));
      const open = (name: string) => gates.get(id(name))?.open();
      const finished = (name: string) =>
        inTime(observed.until(isCall('finish', id(name))), `${name} finished`);
      await add('a1', T0 - 3);
      await add('a2', T0 - 2);
      await add('b1', T0 - 1);
      runner.start();
      await inTime(Promise.all([startedOf('a1'), startedOf('b1')]), 'a1 and b1 running');
      for (const name of ['c1', 'c2', 'c3']) await add(name, T0 - 1);
      // Stored behind the runner's back (as a batch in a transaction is): c's last claim found
      // nothing, so only a look for c (or the poll) asks about it again; it takes two jobs of c.
      runner.lookNow('c');
      // Enqueued through the runner: a look at the queue now, for d only (a, b and c are full).
      const d1 = (await runner.enqueue(job('d'))).job;
      const dClaim = await inTime(
        observed.until((c) => isCall('claim')(c) && (c.result as { id?: string })?.id === d1.id),
        'd1 claimed',
      );
      expect(dClaim.args[2]).toEqual(['d']);
      await inTime(observed.until(isCall('finish', d1.id)), 'd1 ran');
      expect(Object.fromEntries(active)).toEqual({ a: 1, b: 1, c: 2, d: 0 });
      const claimedKinds = observed.calls.filter(isCall('claim')).map((c) => c.args[2]);
      expect(claimedKinds.filter((kinds) => (kinds as string[]).includes('a'))).toHaveLength(1);
      open('a1');
      await inTime(startedOf('a2'), 'a2 runs once a1 is done');
      for (const name of ['a2', 'b1', 'c1', 'c2', 'c3']) open(name);
      for (const name of ['a1', 'a2', 'b1', 'c1', 'c2', 'c3']) await finished(name);
      expect(Object.fromEntries(most)).toEqual({ a: 1, b: 1, c: 2, d: 1 });
      expect(await store.jobs.countByState()).toEqual({ succeeded: 7 });
    });

    // settled() must not resolve while the loop's claim is on its way back (here held back, as a
    // slow database answer would be): the console would print its next prompt before the purge's
    // messages.
    it('settled() waits for a job the started loop has claimed but not started yet', async () => {
      const { runner, store, observed } = await world(backend, { pollMs: 60_000 });
      let ran = 0;
      runner.register('echo', {
        run: async () => {
          ran++;
          return 'done';
        },
      });
      runner.start();
      await inTime(observed.until(isCall('claim')), 'the first look at the queue');
      const { held, letGo } = holdNextClaim(observed);
      const { job: queued } = await runner.enqueue(job('echo'));
      try {
        await inTime(held.promise, 'the loop claimed the job');
        const settling = runner.settled();
        // Still waiting while the claim is held (a wrong settled() resolves at once).
        const early = await Promise.race([
          settling.then(() => 'settled'),
          new Promise((resolve) => setTimeout(resolve, 100, 'waiting')),
        ]);
        expect(early).toBe('waiting');
        letGo.open();
        await inTime(settling, 'settled');
        expect(ran).toBe(1);
        expect((await store.jobs.get(queued.id))?.state).toBe('succeeded');
      } finally {
        letGo.open();
      }
    });

    // The same race must not break `concurrency`: with the loop's claim in flight, settled() must
    // not claim a second job of a kind limited to one.
    it('keeps concurrency 1 while settled() runs beside the started loop', async () => {
      const { runner, store, observed } = await world(backend, { pollMs: 60_000 });
      let active = 0;
      let most = 0;
      const both = deferred();
      runner.register('one', {
        concurrency: 1,
        run: async () => {
          active++;
          most = Math.max(most, active);
          if (active === 2) both.resolve();
          // Long enough to overlap a second job, were one started beside it.
          const timer = new AbortController();
          await Promise.race([
            both.promise,
            delay(500, undefined, { signal: timer.signal }),
            aborted(teardown.signal),
          ]);
          timer.abort();
          active--;
          return 'done';
        },
      });
      runner.start();
      await inTime(observed.until(isCall('claim')), 'the first look at the queue');
      await store.jobs.enqueue(job('one', { runAt: T0 - 2 }));
      await store.jobs.enqueue(job('one', { runAt: T0 - 1 }));
      const { held, letGo } = holdNextClaim(observed);
      // Wake the loop (a look at every kind, as for jobs stored behind its back): its claim
      // takes the first job.
      runner.lookNow();
      try {
        await inTime(held.promise, 'the loop claimed the first job');
        const settled = runner.settled();
        // settled()'s own look at the queue, if it makes one, answers before the loop's.
        const timer = new AbortController();
        await Promise.race([
          observed.until((c) => isCall('claim')(c) && c.result !== undefined),
          delay(300, undefined, { signal: timer.signal }),
        ]);
        timer.abort();
        letGo.open();
        await inTime(settled, 'settled');
        await inTime(nth(observed, 2, isCall('finish')), 'both jobs done');
        expect(most).toBe(1);
      } finally {
        letGo.open();
      }
    });
  });
}
