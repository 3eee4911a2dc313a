import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import type { NewJob } from '../../src/store/jobs.js';
import { ManualClock } from '../helpers/clock.js';
import { BACKENDS, testDatabase, testStore } from '../helpers/store.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const LEASE = 10_000;
const DAY = 86_400_000;

const newJob: NewJob = { workspaceId: 'T1', kind: 'purge', payload: { zone: 'zone_1' } };

async function jobCount(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function stepCount(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('job_steps')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`jobs on ${backend}`, () => {
    const fixture = async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      return { store, clock, jobs: store.jobs };
    };

    it('enqueues a job with its steps (in chunks past any bound-parameter limit), closed once each', async () => {
      const { jobs } = await fixture();
      // On SQLite, 8,200 steps of 4 values each: more than one statement may bind (32,766). On
      // PostgreSQL (65,535: that would take 16,384), three chunks, the last one short. Either way
      // the chunks must add up to exactly these steps, in order.
      const count = backend === 'sqlite' ? 8_200 : 1_201;
      const inputs = Array.from({ length: count }, (_, n) => ({ batch: n, urls: [`/p/${n}`] }));
      const { job, created } = await jobs.enqueue({
        ...newJob,
        steps: inputs,
        checkpoint: { planned: true },
      });
      expect(created).toBe(true);
      expect(job).toEqual({
        id: 'id-1',
        workspaceId: 'T1',
        kind: 'purge',
        key: null,
        state: 'queued',
        payload: { zone: 'zone_1' },
        checkpoint: { planned: true },
        attempts: 0,
        runAt: T0,
        leaseOwner: null,
        leaseUntil: null,
        error: null,
        createdAt: T0,
        finishedAt: null,
      });
      expect(await jobs.get('id-1')).toEqual(job);
      const steps = await jobs.steps<{ batch: number }, unknown>(job.id);
      expect(steps).toHaveLength(count);
      expect(steps.map((s) => s.idx)).toEqual(inputs.map((_, n) => n));
      expect(steps.map((s) => s.input)).toEqual(inputs);
      expect(steps.every((s) => s.result === undefined)).toBe(true);

      // Steps are closed by the job's holder only, each once: a second result is refused.
      expect(await jobs.completeStep(job.id, 'w0', 500, { purged: 30 })).toBe(false);
      await jobs.claim('w0', LEASE, [job.kind]);
      expect(await jobs.completeStep(job.id, 'w9', 500, { purged: 30 })).toBe(false);
      expect(await jobs.completeStep(job.id, 'w0', 500, { purged: 30 })).toBe(true);
      expect(await jobs.completeStep(job.id, 'w0', 500, { purged: 99 })).toBe(false);
      expect(await jobs.completeStep(job.id, 'w0', count - 1, [])).toBe(true);
      expect(await jobs.completeStep(job.id, 'w0', count, { purged: 1 })).toBe(false);
      const other = (await jobs.enqueue({ ...newJob, steps: [{ batch: 0 }] })).job;
      await jobs.claim('w1', LEASE, [job.kind]);
      expect(await jobs.completeStep(other.id, 'w1', 0, 'other')).toBe(true);
      const closed = await jobs.steps<{ batch: number }, unknown>(job.id);
      expect(closed.filter((s) => s.result !== undefined)).toEqual([
        { idx: 500, input: inputs[500], result: { purged: 30 } },
        { idx: count - 1, input: inputs[count - 1], result: [] },
      ]);
      expect(await jobs.steps(other.id)).toEqual([
        { idx: 0, input: { batch: 0 }, result: 'other' },
      ]);

      // Several at once, in one statement: each closed once, by the holder only.
      const results = [
        { idx: 1, result: { purged: 30 } },
        { idx: 2, result: { ok: false, error: { code: 'timeout' } } },
        { idx: 500, result: { purged: 99 } },
      ];
      expect(await jobs.completeSteps(job.id, 'w9', results)).toEqual(new Set());
      expect(await jobs.completeSteps(job.id, 'w0', results)).toEqual(new Set([1, 2]));
      expect(await jobs.completeSteps(job.id, 'w0', results)).toEqual(new Set());
      expect(await jobs.completeSteps(job.id, 'w0', [])).toEqual(new Set());
      const both = await jobs.steps<{ batch: number }, unknown>(job.id);
      expect(both.filter((s) => s.result !== undefined).map((s) => [s.idx, s.result])).toEqual([
        [1, { purged: 30 }],
        [2, { ok: false, error: { code: 'timeout' } }],
        [500, { purged: 30 }],
        [count - 1, []],
      ]);
    });

    it('returns the first job for a key already used, without a second job or its steps', async () => {
      const { store, jobs, clock } = await fixture();
      const first = await jobs.enqueue({ ...newJob, key: 'approval:1', steps: ['a', 'b'] });
      expect(first.created).toBe(true);
      clock.advance(1_000);
      const again = await jobs.enqueue({
        ...newJob,
        key: 'approval:1',
        payload: { zone: 'other' },
        steps: ['x', 'y', 'z'],
      });
      expect(again).toEqual({ job: first.job, created: false });
      // Racing enqueues of one key: one job still.
      const racing = await Promise.all(
        Array.from({ length: 5 }, () =>
          jobs.enqueue({ ...newJob, key: 'approval:2', steps: ['c'] }),
        ),
      );
      expect(racing.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(racing.map((r) => r.job.id)).size).toBe(1);
      // Jobs without a key are never merged.
      await jobs.enqueue(newJob);
      await jobs.enqueue(newJob);
      expect(await jobCount(store)).toBe(4);
      expect(await stepCount(store)).toBe(3);
      expect((await jobs.steps(first.job.id)).map((s) => s.input)).toEqual(['a', 'b']);
    });

    it('claims a due job for a lease, and lets another take it over once the lease expired', async () => {
      const { jobs, clock } = await fixture();
      const { job } = await jobs.enqueue(newJob);
      const claimed = await jobs.claim('w1', LEASE, ['purge']);
      expect(claimed).toEqual({
        ...job,
        state: 'running',
        leaseOwner: 'w1',
        leaseUntil: T0 + LEASE,
        attempts: 1,
      });
      expect(await jobs.get(job.id)).toEqual(claimed);
      expect(await jobs.claim('w2', LEASE, ['purge'])).toBeUndefined();

      // Leased until T0 + LEASE inclusive; then anyone may take it over.
      clock.advance(LEASE);
      expect(await jobs.claim('w2', LEASE, ['purge'])).toBeUndefined();
      expect(await jobs.get(job.id)).toEqual(claimed);
      clock.advance(1);
      const taken = await jobs.claim('w2', LEASE, ['purge']);
      expect(taken).toEqual({
        ...job,
        state: 'running',
        leaseOwner: 'w2',
        leaseUntil: T0 + 2 * LEASE + 1,
        attempts: 2,
      });
      expect(await jobs.get(job.id)).toEqual(taken);

      // The new holder fails it for good.
      expect(await jobs.finish(job.id, 'w1', { state: 'succeeded' })).toBe(false);
      expect(await jobs.finish(job.id, 'w2', { state: 'failed', error: 'too many' })).toBe(true);
      expect(await jobs.get(job.id)).toEqual({
        ...taken,
        state: 'failed',
        error: 'too many',
        leaseOwner: null,
        leaseUntil: null,
        finishedAt: T0 + LEASE + 1,
      });
      expect(await jobs.countByState()).toEqual({ failed: 1 });
    });

    it('claims the job due first, of the kinds asked for only, none before its run_at', async () => {
      const { jobs, clock } = await fixture();
      // Kinds: the claimer takes only what it asks for.
      const a = (await jobs.enqueue({ ...newJob, kind: 'a', runAt: T0 - 1_000 })).job;
      const b = (await jobs.enqueue({ ...newJob, kind: 'b' })).job;
      expect(await jobs.claim('w', LEASE, [])).toBeUndefined();
      expect(await jobs.claim('w', LEASE, ['c'])).toBeUndefined();
      expect((await jobs.claim('w', LEASE, ['b']))?.id).toBe(b.id);
      expect(await jobs.claim('w', LEASE, ['b', 'c'])).toBeUndefined();
      expect(await jobs.get(a.id)).toMatchObject({ state: 'queued', attempts: 0 });
      expect((await jobs.claim('w', LEASE, ['c', 'a', 'b']))?.id).toBe(a.id);
      expect(await jobs.countByState()).toEqual({ running: 2 });
      // Time: the one due first, and none before its time.
      const later = (await jobs.enqueue({ ...newJob, runAt: T0 + 5_000 })).job;
      expect(later).toMatchObject({ runAt: T0 + 5_000, checkpoint: {}, state: 'queued' });
      expect(await jobs.steps(later.id)).toEqual([]);
      expect(await jobs.get('nope')).toBeUndefined();
      const second = (await jobs.enqueue({ ...newJob, runAt: T0 - 50 })).job;
      const first = (await jobs.enqueue({ ...newJob, runAt: T0 - 100 })).job;
      expect((await jobs.claim('w', LEASE, ['purge']))?.id).toBe(first.id);
      expect((await jobs.claim('w', LEASE, ['purge']))?.id).toBe(second.id);
      expect(await jobs.claim('w', LEASE, ['purge'])).toBeUndefined();
      clock.advance(4_999);
      expect(await jobs.claim('w', LEASE, ['purge'])).toBeUndefined();
      clock.advance(1);
      expect((await jobs.claim('w', LEASE, ['purge']))?.id).toBe(later.id);
      expect(await jobs.get(later.id)).toMatchObject({ state: 'running', attempts: 1 });
    });

    it('holds a keyed job once, and again only once released or its lease expired', async () => {
      // An alert's "Turn rate limiting on" (WatchService.rateLimit): who holds it is its checkpoint.
      const { jobs, clock } = await fixture();
      const claim = (alertId: string, userId: string) =>
        jobs.hold(
          {
            workspaceId: 'T1',
            kind: 'alert_ratelimit',
            key: `alert-ratelimit:${alertId}`,
            payload: { alertId },
            checkpoint: { by: userId },
          },
          `owner-${userId}`,
          120_000,
        );
      const seen = (held: { held: boolean; job: { checkpoint: unknown; state: string } }) =>
        held.held
          ? { claimed: true }
          : { claimed: false, by: held.job.checkpoint, done: held.job.state === 'succeeded' };

      const first = await claim('a1', 'U1');
      expect(seen(first)).toEqual({ claimed: true });
      expect(first.job).toMatchObject({ state: 'running', leaseOwner: 'owner-U1', attempts: 1 });
      expect(seen(await claim('a1', 'U2'))).toEqual({
        claimed: false,
        by: { by: 'U1' },
        done: false,
      });
      // U1's process died mid-call: once its lease expired, the claim is U2's to take.
      clock.advance(120_001);
      const second = await claim('a1', 'U2');
      expect(seen(second)).toEqual({ claimed: true });
      expect(second.job).toMatchObject({ leaseOwner: 'owner-U2', attempts: 2 });
      expect(await jobs.finish(second.job.id, 'owner-U2', { state: 'succeeded' })).toBe(true);
      // Done: never again, however late; a release of a done claim changes nothing.
      clock.advance(DAY);
      expect(await jobs.release(second.job.id, 'owner-U2', clock.now())).toBe(false);
      expect(seen(await claim('a1', 'U3'))).toEqual({
        claimed: false,
        by: { by: 'U2' },
        done: true,
      });

      // A failed change releases the claim at once.
      const other = await claim('a2', 'U1');
      expect(seen(other)).toEqual({ claimed: true });
      await jobs.release(other.job.id, 'owner-U1', clock.now(), { error: 'CdnError' });
      expect(seen(await claim('a2', 'U2'))).toEqual({ claimed: true });
      // The runner never takes such a job: its kind has no handler.
      expect(await jobs.claim('runner', LEASE, ['purge'])).toBeUndefined();
    });

    it('lets only the holder renew, checkpoint, release or finish', async () => {
      const { jobs, clock } = await fixture();
      const { job } = await jobs.enqueue({ ...newJob, checkpoint: { at: 0 } });
      await jobs.claim('w1', LEASE, ['purge']);
      const held = await jobs.get(job.id);
      clock.advance(1_000);
      expect(await jobs.renew(job.id, 'w2', LEASE)).toBe(false);
      expect(await jobs.checkpoint(job.id, 'w2', { at: 9 })).toBe(false);
      expect(await jobs.release(job.id, 'w2', T0, { error: 'stolen' })).toBe(false);
      expect(await jobs.finish(job.id, 'w2', { state: 'failed', error: 'stolen' })).toBe(false);
      expect(await jobs.renew('nope', 'w1', LEASE)).toBe(false);
      expect(await jobs.get(job.id)).toEqual(held);

      // The holder can.
      expect(await jobs.renew(job.id, 'w1', LEASE)).toBe(true);
      expect(await jobs.get(job.id)).toMatchObject({ leaseUntil: T0 + 1_000 + LEASE });
      expect(await jobs.checkpoint(job.id, 'w1', { at: 3 })).toBe(true);
      expect((await jobs.get(job.id))?.checkpoint).toEqual({ at: 3 });
      expect(await jobs.release(job.id, 'w1', T0 + 60_000, { error: 'boom' })).toBe(true);
      const released = await jobs.get(job.id);
      expect(released).toEqual({
        ...held,
        state: 'queued',
        checkpoint: { at: 3 },
        runAt: T0 + 60_000,
        leaseOwner: null,
        leaseUntil: null,
        error: 'boom',
      });
      // Released, it is nobody's: not even the former holder's.
      expect(await jobs.renew(job.id, 'w1', LEASE)).toBe(false);
      expect(await jobs.checkpoint(job.id, 'w1', { at: 4 })).toBe(false);
      expect(await jobs.finish(job.id, 'w1', { state: 'succeeded' })).toBe(false);
      expect(await jobs.release(job.id, 'w1', T0)).toBe(false);
      expect(await jobs.get(job.id)).toEqual(released);

      clock.advance(59_000);
      expect(await jobs.claim('w2', LEASE, ['purge'])).toMatchObject({ attempts: 2 });
      expect(await jobs.finish(job.id, 'w1', { state: 'succeeded' })).toBe(false);
      expect(await jobs.finish(job.id, 'w2', { state: 'succeeded' })).toBe(true);
      const finished = await jobs.get(job.id);
      expect(finished).toEqual({
        ...released,
        state: 'succeeded',
        runAt: T0 + 60_000,
        attempts: 2,
        error: null,
        finishedAt: T0 + 60_000,
      });
      // Finished for good: never claimed again, nothing more written.
      clock.advance(10 * LEASE);
      expect(await jobs.claim('w3', LEASE, ['purge'])).toBeUndefined();
      expect(await jobs.finish(job.id, 'w2', { state: 'failed' })).toBe(false);
      expect(await jobs.release(job.id, 'w2', T0)).toBe(false);
      expect(await jobs.get(job.id)).toEqual(finished);
      expect(await jobs.countByState()).toEqual({ succeeded: 1 });
    });

    if (backend === 'postgres') {
      // Kysely's Migrator, unless told its schema, looks for its own tables in every schema of the
      // database: a fresh schema beside a migrated one never got them (fixed in migrate()).
      it('opens a store on a fresh schema beside another migrated schema', async () => {
        await testStore(backend);
        const { store } = await testStore(backend);
        expect(await store.jobs.countByState()).toEqual({});
      });
    }

    for (const replicas of [2, 3]) {
      describe(`${replicas} replicas on one database`, () => {
        const open = async () => {
          const clock = new ManualClock(T0);
          const database = await testDatabase(backend);
          const stores: Store[] = [];
          // One after the other: the first migrates.
          for (let i = 0; i < replicas; i++) {
            stores.push((await testStore(backend, { clock, database, poolSize: 4 })).store);
          }
          const race = () =>
            Promise.all(
              Array.from({ length: 20 }, (_, i) =>
                stores[i % replicas]?.jobs.claim(`w${i}`, LEASE, ['purge']),
              ),
            );
          return { clock, stores, race };
        };

        it('let exactly one of 20 concurrent claims take a due job, or an abandoned one', async () => {
          const { stores, race, clock } = await open();
          const jobs = stores[0]?.jobs;
          if (!jobs) throw new Error('no store');
          for (let round = 0; round < 3; round++) {
            const { job } = await jobs.enqueue(newJob);
            // Due: one claimer gets it.
            const winners = (await race()).filter((j) => j !== undefined);
            expect(winners).toHaveLength(1);
            expect(winners[0]).toMatchObject({ id: job.id, attempts: 1 });
            expect(await jobs.get(job.id)).toMatchObject({
              state: 'running',
              leaseOwner: winners[0]?.leaseOwner,
              attempts: 1,
            });
            // Abandoned (its holder died): one claimer takes it over.
            clock.advance(LEASE + 1);
            const heirs = (await race()).filter((j) => j !== undefined);
            expect(heirs).toHaveLength(1);
            expect(heirs[0]).toMatchObject({
              id: job.id,
              attempts: 2,
              leaseUntil: clock.now() + LEASE,
            });
            expect(await jobs.get(job.id)).toMatchObject({
              leaseOwner: heirs[0]?.leaseOwner,
              attempts: 2,
            });
            // Done with it, so that the next round's races are for the next job only.
            expect(
              await jobs.finish(job.id, heirs[0]?.leaseOwner ?? '', { state: 'succeeded' }),
            ).toBe(true);
          }
          expect(await jobs.countByState()).toEqual({ succeeded: 3 });
        });
      });
    }
  });
}
