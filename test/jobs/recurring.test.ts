// Recurring work as entries of the one job runner: two replicas on one database run a shared entry
// once per period between them, each its own `each: 'process'` entry, and nothing after stop().
// The app's list (src/jobs/recurring.ts) says what runs and how often.
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock, within } from '../../src/clock.js';
import { BackgroundWork, RECURRING_JOB, recurringKey } from '../../src/jobs/background.js';
import { recurringWork } from '../../src/jobs/recurring.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import { BACKENDS, testStore } from '../helpers/store.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const PERIOD = 30_000;
const inTime = <T>(promise: Promise<T>, label: string): Promise<T> =>
  within(systemClock, 8_000, promise, () => {
    throw new Error(`timed out: ${label}`);
  });

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`recurring work on ${backend}`, () => {
    it('runs a shared entry once per period across two replicas, its own entry in each, nothing after stop', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      const logs = captureLogs('info');
      const shared: Array<{ at: number; by: string }> = [];
      const own: Array<{ at: number; by: string }> = [];
      const replicas = ['a', 'b'].map((name) => {
        const runner = new JobRunner({ jobs: store.jobs, clock, logger: logs.logger, owner: name });
        const background = new BackgroundWork(runner, logs.logger, clock);
        background.every({
          name: 'shared',
          every: PERIOD,
          run: async () => {
            shared.push({ at: clock.now(), by: name });
          },
        });
        background.every({
          name: 'own',
          every: PERIOD,
          each: 'process',
          run: async () => {
            own.push({ at: clock.now(), by: name });
          },
        });
        stops.push(() => background.stop(1_000));
        return background;
      });
      /** Every loop waits for its next period: two entries in each replica. */
      const waiting = () => inTime(clock.sleepers(4), 'the entries wait for their next period');

      for (const replica of replicas) replica.start();
      await waiting();
      expect(shared).toEqual([{ at: T0, by: expect.any(String) }]);
      expect(own.map((round) => round.by).sort()).toEqual(['a', 'b']);

      for (let period = 1; period <= 4; period++) {
        clock.advance(PERIOD);
        await inTime(
          (async () => {
            while (shared.length < period + 1 || own.length < 2 * (period + 1))
              await new Promise((resolve) => setImmediate(resolve));
          })(),
          `period ${period}'s rounds`,
        );
        await waiting();
      }
      // One round a period between them; each replica its own rounds.
      expect(shared.map((round) => round.at)).toEqual([0, 1, 2, 3, 4].map((i) => T0 + i * PERIOD));
      expect(own).toHaveLength(10);
      // The entry is one job of the runner, queued for its next period, held by no one.
      expect(await store.jobs.byKey(recurringKey('shared'))).toMatchObject({
        kind: RECURRING_JOB,
        state: 'queued',
        leaseOwner: null,
        runAt: T0 + 5 * PERIOD,
        attempts: 0,
      });

      for (const stop of stops.splice(0)) await stop();
      clock.advance(10 * PERIOD);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(shared).toHaveLength(5);
      expect(own).toHaveLength(10);
      expect(clock.nextWake()).toBeUndefined();
    });

    it('costs the jobs table two statements a replica a period: hold and release, or hold and a look', async () => {
      const clock = new ManualClock(T0);
      const statements: string[] = [];
      const { store } = await testStore(backend, {
        clock,
        onQuery: (event) => {
          if (/\bjobs\b/.test(event.query.sql)) statements.push(event.query.sql);
        },
      });
      const logs = captureLogs('info');
      // Two replicas: each period one runs the round, the other finds it taken and waits.
      const rounds: string[] = [];
      const replicas = ['a', 'b'].map((name) => {
        const runner = new JobRunner({ jobs: store.jobs, clock, logger: logs.logger, owner: name });
        const background = new BackgroundWork(runner, logs.logger, clock);
        background.every({
          name: 'shared',
          every: PERIOD,
          run: async () => {
            rounds.push(name);
          },
        });
        stops.push(() => background.stop(1_000));
        return background;
      });
      for (const replica of replicas) replica.start();
      await inTime(clock.sleepers(2), 'both wait for the next period');
      statements.length = 0;
      for (let period = 1; period <= 4; period++) {
        clock.advance(PERIOD);
        await inTime(
          (async () => {
            while (rounds.length < period + 1) await new Promise((r) => setImmediate(r));
          })(),
          `period ${period}'s round`,
        );
        await inTime(clock.sleepers(2), 'both wait again');
      }
      expect(rounds).toHaveLength(5);
      // A period: the holder's hold and release, the other's hold and its look at the job.
      expect(statements).toHaveLength(4 * 4);
    });

    it('takes over a round whose holder died once its lease has expired', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      const logs = captureLogs('info');
      // A replica that died holding the entry's job: its lease runs out at T0 + 1 s.
      await store.jobs.hold(
        { workspaceId: '', kind: RECURRING_JOB, key: recurringKey('shared'), payload: {} },
        'dead',
        1_000,
      );
      const rounds: number[] = [];
      const runner = new JobRunner({ jobs: store.jobs, clock, logger: logs.logger });
      const background = new BackgroundWork(runner, logs.logger, clock);
      background.every({
        name: 'shared',
        every: PERIOD,
        run: async () => {
          rounds.push(clock.now());
        },
      });
      stops.push(() => background.stop(1_000));
      background.start();
      await inTime(clock.sleepers(1), 'the entry waits');
      expect(rounds).toEqual([]);
      clock.advance(PERIOD);
      await inTime(clock.sleepers(1), 'the entry waits again');
      expect(rounds).toEqual([T0 + PERIOD]);
    });
  });
}

describe("the app's recurring work", () => {
  it('is declared once, each entry with how often it runs', () => {
    const round = async () => undefined;
    const entries = recurringWork({
      approvals: { expireDue: round, recover: round },
      reports: { tick: round },
      watches: { tick: round, intervalMs: 60_000 },
      zoneIndex: { refreshDue: round, refreshMs: 300_000 },
      apiPurges: { recover: round },
      auditExports: { removeLeftovers: round },
      retention: { sweep: round },
    });
    expect(entries.map(({ name, every, each }) => ({ name, every, each }))).toEqual([
      { name: 'approval expiry', every: 30_000, each: undefined },
      { name: 'approved purge recovery', every: 30_000, each: undefined },
      { name: 'reports due', every: 30_000, each: undefined },
      { name: 'watch evaluation', every: 5_000, each: undefined },
      { name: 'zone index refresh', every: 60_000, each: undefined },
      { name: 'api purge recovery', every: 60_000, each: undefined },
      { name: 'audit export leftovers', every: 3_600_000, each: 'process' },
      { name: 'retention', every: 600_000, each: undefined },
    ]);
  });
});
