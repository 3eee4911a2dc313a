import { describe, expect, it } from 'vitest';
import { LOGIN_ACCOUNT } from '../../src/store/credentials.js';
import type { Store } from '../../src/store/index.js';
import type { NewSchedule, Schedule } from '../../src/store/schedules.js';
import { BACKENDS, replicaStores, testDatabase, testStore } from '../helpers/store.js';

const HOUR = 3_600_000;

const BY = { userId: 'U1', validated: true };

/** Schedules run only while their account has a CDN key: T1's and T2's login accounts get one. */
async function keyed(store: Store): Promise<Store> {
  for (const workspaceId of ['T1', 'T2']) await store.credentials.set(workspaceId, 'sk_test', BY);
  return store;
}

/** The workspace's login account (`default`), made without a key if missing: its id. */
async function loginAccount(store: Store, workspaceId: string): Promise<string> {
  const found = await store.accounts.byName(workspaceId, LOGIN_ACCOUNT);
  return (found ?? (await store.accounts.create(workspaceId, { name: LOGIN_ACCOUNT, by: BY }))).id;
}

/** More reports than one person may make by default: the tests set up many at once. */
const LIMITS = { reports: 1_000, reportsPerPerson: 1_000 };

/**
 * Creates a schedule (a new one: each test's reports differ by channel), of its workspace's login
 * account unless it names one.
 */
async function create(
  store: Store,
  input: Omit<NewSchedule, 'accountId'> & { accountId?: string },
): Promise<Schedule> {
  const accountId = input.accountId ?? (await loginAccount(store, input.workspaceId));
  const { schedule, created } = await store.schedules.create({ ...input, accountId }, LIMITS);
  if (!created) throw new Error('the same report exists');
  return schedule;
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`schedules on ${backend}`, () => {
    let channels = 0;
    const daily = (nextRunAt: number): Omit<NewSchedule, 'accountId'> => ({
      workspaceId: 'T1',
      zoneId: 'zone_1',
      zoneName: 'example.com',
      channelId: `C${++channels}`,
      createdBy: 'U1',
      timeOfDay: '09:00',
      timeZone: 'Europe/Paris',
      nextRunAt,
    });

    /** The plan a daily report's tick gives: each occurrence a job, keyed by it; the next day. */
    const toJobs = (due: Schedule[]) =>
      due.map((s) => ({
        nextRunAt: s.nextRunAt + 24 * HOUR,
        job: {
          workspaceId: s.workspaceId,
          kind: 'daily_report',
          key: `report:${s.id}:${s.nextRunAt}`,
          payload: {},
        },
      }));

    it('lists due schedules and takes each occurrence once', async () => {
      const { store, clock } = await testStore(backend);
      await keyed(store);
      const due = await create(store, daily(clock.now() - HOUR));
      await create(store, daily(clock.now() + HOUR));
      expect((await store.schedules.takeDue(10, toJobs)).map((t) => t.schedule.id)).toEqual([
        due.id,
      ]);
      expect(await store.schedules.takeDue(10, toJobs)).toEqual([]);
      expect(await store.schedules.get(due.id)).toMatchObject({
        nextRunAt: due.nextRunAt + 24 * HOUR,
        lastRunAt: due.nextRunAt,
      });
    });

    it('lets exactly one of 50 concurrent takes have an occurrence, across the replicas', async () => {
      const replicas = await replicaStores(backend, 10);
      const [first] = replicas;
      await keyed(first.store);
      await create(first.store, daily(first.clock.now()));
      const takes = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          replicas[i % replicas.length]?.store.schedules.takeDue(10, toJobs),
        ),
      );
      expect(takes.filter((taken) => taken?.length)).toHaveLength(1);
      expect(await first.store.db.selectFrom('jobs').select('key').execute()).toHaveLength(1);
    });

    it('takes due occurrences in batches: replicas at once take each one once, with its job', async () => {
      const replicas = await replicaStores(backend, 4);
      const [first] = replicas;
      await keyed(first.store);
      const now = first.clock.now();
      for (let i = 0; i < 60; i++) await create(first.store, daily(now - i));
      await create(first.store, daily(now + HOUR));
      const plan = (due: Array<{ id: string; nextRunAt: number }>) =>
        due.map((s) => ({
          nextRunAt: s.nextRunAt + 24 * HOUR,
          job: { workspaceId: 'T1', kind: 'daily_report', key: `report:${s.id}`, payload: {} },
        }));
      // Each replica takes batches of 7 until none is left, all three at once.
      const takeAll = async (store: (typeof replicas)[number]['store']) => {
        const ids: string[] = [];
        for (;;) {
          const taken = await store.schedules.takeDue(7, plan);
          ids.push(...taken.map((t) => t.schedule.id));
          if (taken.length < 7) return ids;
        }
      };
      const taken = (await Promise.all(replicas.map((r) => takeAll(r.store)))).flat();
      expect(taken).toHaveLength(60);
      expect(new Set(taken).size).toBe(60);
      expect(await first.store.schedules.takeDue(100, toJobs)).toEqual([]);
      const jobs = await first.store.db.selectFrom('jobs').select('key').execute();
      expect(jobs).toHaveLength(60);
      // Moved on, each to its own next time.
      const moved = await first.store.schedules.get(taken[0] ?? '');
      expect(moved?.nextRunAt).toBe((moved?.lastRunAt ?? 0) + 24 * HOUR);
    });

    it('stores nothing of a batch when its transaction fails', async () => {
      const { store, clock } = await testStore(backend);
      await keyed(store);
      await create(store, daily(clock.now()));
      await create(store, daily(clock.now()));
      await expect(
        store.schedules.takeDue(10, (due) =>
          due.map((_, i) =>
            i === 0
              ? {
                  nextRunAt: clock.now() + HOUR,
                  // Skipped, its audit entry written before the jobs in the same transaction.
                  audit: { workspaceId: 'T1', actorId: 'system', action: 'x', outcome: 'skipped' },
                }
              : {
                  nextRunAt: clock.now() + HOUR,
                  // A job with steps cannot be stored in a batch: the whole batch is refused.
                  job: { workspaceId: 'T1', kind: 'x', payload: {}, steps: [1] },
                },
          ),
        ),
      ).rejects.toThrow('without steps');
      expect(await store.audit.recent('T1')).toEqual([]);
      expect(await store.schedules.takeDue(10, toJobs)).toHaveLength(2);
    });

    it('pauses and stops; paused and stopped schedules are never due', async () => {
      const { store, clock } = await testStore(backend);
      await keyed(store);
      const s = await create(store, daily(clock.now()));
      expect(await store.schedules.pause(s.id, 'bot removed from channel')).toBe(true);
      expect(await store.schedules.pause(s.id, 'again')).toBe(false);
      expect(await store.schedules.takeDue(10, toJobs)).toEqual([]);
      expect((await store.schedules.get(s.id))?.pausedReason).toBe('bot removed from channel');
      expect(await store.schedules.stop(s.id, 'T2')).toBe(false);
      expect(await store.schedules.stop(s.id, 'T1')).toBe(true);
      expect(await store.schedules.stop(s.id, 'T1')).toBe(false);
      expect(await store.schedules.listForWorkspace('T1')).toEqual([]);
    });

    it('pauses every active schedule of a workspace', async () => {
      const { store, clock } = await testStore(backend);
      await keyed(store);
      await create(store, daily(clock.now()));
      await create(store, daily(clock.now()));
      await create(store, { ...daily(clock.now()), workspaceId: 'T2' });
      expect(await store.schedules.pauseAll('T1', 'app uninstalled')).toBe(2);
      expect((await store.schedules.listForWorkspace('T1')).map((s) => s.status)).toEqual([
        'paused',
        'paused',
      ]);
      expect(
        (await store.schedules.takeDue(10, toJobs)).map((t) => t.schedule.workspaceId),
      ).toEqual(['T2']);
    });

    it('makes one report of identical creates at once, on any replica', async () => {
      const database = await testDatabase(backend);
      const replicas = await Promise.all(
        (backend === 'postgres' ? ['a', 'b'] : ['a']).map((idPrefix) =>
          testStore(backend, { database, poolSize: 4, idPrefix }),
        ),
      );
      const same = { ...daily(Date.now()), accountId: 'account-1' };
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          replicas[i % replicas.length]?.store.schedules.create(same, LIMITS),
        ),
      );
      expect(results.filter((r) => r?.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r?.schedule.id)).size).toBe(1);
      const [first] = replicas;
      const rows = await first?.store.db.selectFrom('schedules').select('id').execute();
      expect(rows).toHaveLength(1);
    });

    it('waits while its workspace has no CDN key, and is due again once one is set', async () => {
      const { store, clock } = await testStore(backend);
      const s = await create(store, daily(clock.now() - HOUR));
      const plan = (due: Schedule[]) => due.map((x) => ({ nextRunAt: x.nextRunAt + 24 * HOUR }));
      expect(await store.schedules.takeDue(10, plan)).toEqual([]);
      // Another account's key is not the schedule's account's.
      await store.accounts.create('T1', { name: 'staging', apiKey: 'sk_other', by: BY });
      expect(await store.schedules.takeDue(10, plan)).toEqual([]);
      await keyed(store);
      expect((await store.schedules.takeDue(10, plan)).map((x) => x.schedule.id)).toEqual([s.id]);
      await store.credentials.delete('T1');
      clock.advance(24 * HOUR);
      expect(await store.schedules.takeDue(10, plan)).toEqual([]);
      expect((await store.schedules.get(s.id))?.status).toBe('active');
    });

    it('stops every live schedule of a workspace', async () => {
      const { store, clock } = await testStore(backend);
      const a = await create(store, daily(clock.now()));
      const b = await create(store, daily(clock.now()));
      await create(store, { ...daily(clock.now()), workspaceId: 'T2' });
      await store.schedules.pause(b.id, 'bot removed');
      await store.schedules.stop(a.id, 'T1');
      expect(await store.schedules.stopAll('T1')).toBe(1);
      expect(await store.schedules.listForWorkspace('T1')).toEqual([]);
      expect(await store.schedules.listForWorkspace('T2')).toHaveLength(1);
    });
  });
}
