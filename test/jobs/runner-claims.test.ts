// How often the job runner asks the database for work (issue 30: a hundred API purges at once):
// a kind whose last claim found nothing is not asked about again until a job of it is enqueued
// here, a general look is asked for, or the poll comes; a kind whose slots are full is not asked
// about at all. Each enqueue of a full kind used to cost an empty claim for the other kinds.
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock, within } from '../../src/clock.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { UnseenKinds } from '../../src/jobs/unseen-kinds.js';
import type { NewJob } from '../../src/store/jobs.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import { BACKENDS, testStore } from '../helpers/store.js';
import { deferred, type JobCall, observe } from './observed-jobs.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const inTime = <T>(promise: Promise<T>, label: string): Promise<T> =>
  within(systemClock, 8_000, promise, () => {
    throw new Error(`timed out: ${label}`);
  });
const job = (kind: string): NewJob => ({ workspaceId: 'T1', kind, payload: {} });
const claimOf = (call: JobCall) => ({
  kinds: call.args[2],
  got: (call.result as { kind?: string } | undefined)?.kind ?? null,
});

const runners: JobRunner[] = [];
afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop(1_000);
});

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`job runner claims on ${backend}`, () => {
    it('asks no claim for a full kind, nor again for a kind found empty until one is enqueued', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      const observed = observe(store.jobs);
      // No poll within the test: every claim is one the runner asked for on its own.
      const runner = new JobRunner({
        jobs: observed.repo,
        clock,
        logger: captureLogs('info').logger,
        pollMs: 600_000,
      });
      runners.push(runner);
      const gates: Array<() => void> = [];
      let holding = true;
      runner.register('purge', {
        concurrency: 1,
        run: async () => {
          if (!holding) return 'done';
          const gate = deferred();
          gates.push(gate.resolve);
          await gate.promise;
          return 'done';
        },
      });
      runner.register('report', { run: async () => 'done' });
      runner.start();
      await inTime(
        observed.until((c) => c.method === 'claim'),
        'the first look',
      );
      const first = (await runner.enqueue(job('purge'))).job;
      await inTime(
        observed.until((c) => c.method === 'claim' && claimOf(c).got === 'purge'),
        'the first purge claimed',
      );
      // Three more while the only purge slot is taken: no claim for them, none for `report`.
      for (let i = 0; i < 3; i++) await runner.enqueue(job('purge'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(observed.calls.filter((c) => c.method === 'claim').map(claimOf)).toEqual([
        { kinds: ['purge', 'report'], got: null },
        { kinds: ['purge'], got: 'purge' },
      ]);
      gates.shift()?.();
      await inTime(
        observed.until((c) => c.method === 'finish' && c.args[0] === first.id),
        'the first purge done',
      );
      await inTime(
        observed.until((c) => c.method === 'claim' && claimOf(c).got === 'purge' && c.seq > 3),
        'the second purge claimed',
      );
      // A report enqueued here: its kind is asked about again, and found empty after it ran.
      await runner.enqueue(job('report'));
      await inTime(
        observed.until((c) => c.method === 'finish' && c.seq > 5),
        'the report ran',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(observed.calls.filter((c) => c.method === 'claim').map(claimOf)).toEqual([
        { kinds: ['purge', 'report'], got: null },
        { kinds: ['purge'], got: 'purge' },
        { kinds: ['purge'], got: 'purge' },
        { kinds: ['report'], got: 'report' },
        { kinds: ['report'], got: null },
      ]);
      holding = false;
      for (const open of gates.splice(0)) open();
      await inTime(runner.settled(), 'settled');
      // settled() looks at every kind: all four purges ran.
      expect(await store.jobs.countByState()).toEqual({ succeeded: 5 });
    });
  });
}

describe('job runner pace', () => {
  it('claims new work, and lets a handler send a step, only in background work’s turn', async () => {
    const clock = new ManualClock(T0);
    const { store } = await testStore('sqlite', { clock });
    const observed = observe(store.jobs);
    const turns: Array<() => void> = [];
    const runner = new JobRunner({
      jobs: observed.repo,
      clock,
      logger: captureLogs('info').logger,
      pollMs: 600_000,
      pace: { turn: () => new Promise<void>((resolve) => turns.push(resolve)) },
    });
    runners.push(runner);
    const steps: string[] = [];
    runner.register('purge', {
      run: async (context) => {
        steps.push('asked');
        await context.turn();
        steps.push('sent');
        return 'done';
      },
    });
    await store.jobs.enqueue(job('purge'));
    runner.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The loop waits for its turn before it claims.
    expect(observed.calls.filter((c) => c.method === 'claim')).toEqual([]);
    turns.shift()?.();
    await inTime(
      observed.until((c) => c.method === 'claim'),
      'claimed in its turn',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(steps).toEqual(['asked']);
    // The step waits for a turn of its own (the next claim's waits behind it).
    turns.shift()?.();
    await inTime(
      observed.until((c) => c.method === 'finish'),
      'the job done',
    );
    expect(steps).toEqual(['asked', 'sent']);
    for (const turn of turns.splice(0)) turn();
  });
});

describe('UnseenKinds', () => {
  it('keeps a kind quiet after an empty claim, unless it was marked while the claim was out', () => {
    const unseen = new UnseenKinds();
    expect(unseen.worth(['a', 'b'])).toEqual(['a', 'b']);
    const look = unseen.look(['a', 'b']);
    unseen.mark('b');
    unseen.nothingFor(look);
    expect(unseen.worth(['a', 'b'])).toEqual(['b']);
    unseen.nothingFor(unseen.look(['b']));
    expect(unseen.worth(['a', 'b'])).toEqual([]);
    unseen.mark('a');
    expect(unseen.worth(['a', 'b'])).toEqual(['a']);
    // A general look while a claim is out: nothing turns quiet from that claim.
    const out = unseen.look(['a']);
    unseen.mark();
    unseen.nothingFor(out);
    expect(unseen.worth(['a', 'b'])).toEqual(['a', 'b']);
  });
});
