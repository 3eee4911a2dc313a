// The retention sweep: on both backends, rows past their retention go in one sweep (in batches)
// and newer ones stay; the background work starts it once and its stop waits for it.
import { describe, expect, it } from 'vitest';
import { BackgroundWork } from '../../src/jobs/background.js';
import { type RetentionOptions, RetentionSweep } from '../../src/jobs/retention.js';
import { JobRunner } from '../../src/jobs/runner.js';
import type { Store } from '../../src/store/index.js';
import type { JobState } from '../../src/store/schema.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import { BACKENDS, testStore } from '../helpers/store.js';
import { deferred } from './observed-jobs.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function sweepOf(store: Store, clock: ManualClock, options: Partial<RetentionOptions> = {}) {
  return new RetentionSweep({
    store,
    clock,
    logger: captureLogs().logger,
    jobsMs: 7 * DAY,
    jobsSoonerMs: { eval: HOUR },
    auditMs: 365 * DAY,
    uninstalledMs: 30 * DAY,
    // Small batches: one sweep must go round several times.
    batch: 2,
    ...options,
  });
}

/** Stores a job of `kind` in `state`, finished (when it is) at `finishedAt`; with one step. */
async function job(store: Store, id: string, kind: string, state: JobState, finishedAt: number) {
  const finished = state === 'succeeded' || state === 'failed';
  await store.db
    .insertInto('jobs')
    .values({
      id,
      workspace_id: 'T1',
      kind,
      key: null,
      state,
      payload: '{}',
      checkpoint: null,
      attempts: 1,
      run_at: finishedAt,
      lease_owner: null,
      lease_until: null,
      error: null,
      created_at: finishedAt,
      updated_at: finishedAt,
      finished_at: finished ? finishedAt : null,
    })
    .execute();
  await store.db
    .insertInto('job_steps')
    .values({ job_id: id, idx: 0, input: '{}', result: null })
    .execute();
}

async function alert(store: Store, id: string, resolvedAt: number) {
  await store.db
    .insertInto('watch_alerts')
    .values({
      id,
      workspace_id: 'T1',
      account_id: 'account-1',
      watch_id: 'w-gone',
      zone_id: 'z1',
      zone_name: 'example.com',
      channel_id: 'C1',
      rule: 'spike',
      status: 'resolved',
      started_at: resolvedAt,
      resolved_at: resolvedAt,
      detail: '{}',
      message_ts: null,
      created_at: resolvedAt,
    })
    .execute();
}

const ids = async (store: Store, table: 'jobs' | 'watch_alerts') =>
  (await store.db.selectFrom(table).select('id').orderBy('id').execute()).map((r) => r.id);

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`the retention sweep on ${backend}`, () => {
    it('deletes what is past its retention in one sweep, batch after batch, and keeps the rest', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      const now = T0 + 400 * DAY;
      for (const [id, state, age] of [
        ['old-ok-1', 'succeeded', 8 * DAY],
        ['old-ok-2', 'succeeded', 7 * DAY + 1],
        ['old-ok-3', 'succeeded', 30 * DAY],
        ['old-failed', 'failed', 8 * DAY],
        ['new-ok', 'succeeded', 7 * DAY - 1],
        ['new-failed', 'failed', DAY],
        // Unfinished work stays whatever its age.
        ['old-queued', 'queued', 30 * DAY],
        ['old-running', 'running', 30 * DAY],
      ] as const)
        await job(store, id, 'purge', state, now - age);
      await job(store, 'eval-old', 'eval', 'succeeded', now - HOUR - 1);
      await job(store, 'eval-new', 'eval', 'succeeded', now - HOUR + 1);
      for (const key of ['gone-1', 'gone-2', 'gone-3'])
        await store.db.insertInto('seen_requests').values({ key, expires_at: now }).execute();
      await store.db
        .insertInto('seen_requests')
        .values({ key: 'live', expires_at: now + 1 })
        .execute();
      await alert(store, 'alert-old', now - 30 * DAY - 1);
      await alert(store, 'alert-new', now - 29 * DAY);
      for (const age of [366 * DAY, 400 * DAY, 365 * DAY + 1, 364 * DAY]) {
        await store.db
          .insertInto('audit_log')
          .values({
            workspace_id: 'T1',
            actor_id: 'U1',
            action: 'purge.files',
            zone_id: null,
            zone_name: null,
            outcome: 'ok',
            detail: null,
            at: now - age,
            event_key: null,
          })
          .execute();
      }
      // A key's slot an hour past is as good as none; a change count's window an hour old is unread.
      for (const [key, age] of [
        ['gone-a', HOUR + 1],
        ['gone-b', 2 * HOUR],
        ['gone-c', DAY],
        ['live', HOUR - 1],
      ] as const)
        await store.db
          .insertInto('rate_slots')
          .values({ key, next_at: now - age })
          .execute();
      for (const [user, age] of [
        ['U-gone', HOUR + 60_000],
        ['U-live', 60_000],
      ] as const)
        await store.db
          .insertInto('change_counters')
          .values({ workspace_id: 'T1', user_id: user, window_start: now - age, count: 3 })
          .execute();
      clock.advance(now - T0);

      expect(await sweepOf(store, clock).sweep()).toEqual({
        jobs: 5,
        seenRequests: 3,
        alerts: 1,
        audit: 3,
        uninstalled: 0,
        apiPurges: 0,
        rateLimits: 4,
      });
      const slots = await store.db.selectFrom('rate_slots').select('key').execute();
      expect(slots.map((r) => r.key)).toEqual(['live']);
      const counts = await store.db.selectFrom('change_counters').select('user_id').execute();
      expect(counts.map((r) => r.user_id)).toEqual(['U-live']);
      expect(await ids(store, 'jobs')).toEqual([
        'eval-new',
        'new-failed',
        'new-ok',
        'old-queued',
        'old-running',
      ]);
      // The steps of deleted jobs went with them.
      const steps = await store.db.selectFrom('job_steps').select('job_id').execute();
      expect(steps.map((s) => s.job_id).sort()).toEqual(await ids(store, 'jobs'));
      const keys = await store.db.selectFrom('seen_requests').select('key').execute();
      expect(keys.map((k) => k.key)).toEqual(['live']);
      expect(await ids(store, 'watch_alerts')).toEqual(['alert-new']);
      const audit = await store.db.selectFrom('audit_log').select('at').execute();
      expect(audit.map((a) => now - a.at)).toEqual([364 * DAY]);
      // A second sweep (another replica's, or the next) finds nothing: deletes by age are idempotent.
      expect(await sweepOf(store, clock).sweep()).toEqual({
        jobs: 0,
        seenRequests: 0,
        alerts: 0,
        audit: 0,
        uninstalled: 0,
        apiPurges: 0,
        rateLimits: 0,
      });
    });

    it('keeps audit rows forever when their retention is 0', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      await store.audit.record({ workspaceId: 'T1', actorId: 'U1', action: 'x', outcome: 'ok' });
      clock.advance(10_000 * DAY);
      expect((await sweepOf(store, clock, { auditMs: 0 }).sweep()).audit).toBe(0);
      expect(await store.audit.recent('T1')).toHaveLength(1);
    });
  });
}

describe('the background work', () => {
  it('starts the sweep once, and its stop waits for the sweep under way', async () => {
    const clock = new ManualClock(T0);
    const { store } = await testStore('sqlite', { clock });
    const deleting = deferred();
    const release = deferred();
    const calls: number[] = [];
    // The first batch of finished jobs waits until the test lets it go.
    const jobs = Object.create(store.jobs) as Store['jobs'];
    jobs.pruneFinished = async (before, limit, kind) => {
      calls.push(before);
      deleting.resolve();
      await release.promise;
      return store.jobs.pruneFinished(before, limit, kind);
    };
    const retention = sweepOf({ ...store, jobs } as Store, clock, { jobsSoonerMs: {} });
    let runnerStopped = false;
    const logger = captureLogs().logger;
    const runner = new JobRunner({ jobs: store.jobs, clock, logger });
    const stopRunner = runner.stop.bind(runner);
    runner.stop = async (deadlineMs) => {
      await stopRunner(deadlineMs);
      runnerStopped = true;
    };
    const background = new BackgroundWork(runner, logger, clock);
    background.every({ name: 'retention', every: DAY, run: (signal) => retention.sweep(signal) });

    background.start();
    await deleting.promise;
    expect(calls).toHaveLength(1);
    let stopped = false;
    const stopping = background.stop(1_000).then(() => {
      stopped = true;
    });
    // The runner has stopped, but the sweep's batch is still running: stop has not returned.
    await new Promise((resolve) => setImmediate(resolve));
    expect(runnerStopped).toBe(true);
    expect(stopped).toBe(false);
    release.resolve();
    await stopping;
    // The sweep ended after its batch: no more deletes, and no second sweep, once stopped.
    clock.advance(DAY);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toHaveLength(1);
  });
});
