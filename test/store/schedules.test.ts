import { describe, expect, it } from 'vitest';
import type { NewSchedule } from '../../src/store/schedules.js';
import { BACKENDS, testDatabase, testStore } from '../helpers/store.js';

const HOUR = 3_600_000;

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`schedules on ${backend}`, () => {
    const daily = (nextRunAt: number): NewSchedule => ({
      workspaceId: 'T1',
      zoneId: 'zone_1',
      zoneName: 'example.com',
      channelId: 'C1',
      createdBy: 'U1',
      timeOfDay: '09:00',
      timeZone: 'Europe/Paris',
      nextRunAt,
    });

    it('lists due schedules and claims each occurrence once', async () => {
      const { store, clock } = await testStore(backend);
      const due = await store.schedules.create(daily(clock.now() - HOUR));
      await store.schedules.create(daily(clock.now() + HOUR));
      expect((await store.schedules.due(10)).map((s) => s.id)).toEqual([due.id]);

      expect(await store.schedules.claim(due.id, due.nextRunAt, due.nextRunAt + 24 * HOUR)).toBe(
        true,
      );
      expect(await store.schedules.claim(due.id, due.nextRunAt, due.nextRunAt + 24 * HOUR)).toBe(
        false,
      );
      expect(await store.schedules.get(due.id)).toMatchObject({
        nextRunAt: due.nextRunAt + 24 * HOUR,
        lastRunAt: due.nextRunAt,
      });
      expect(await store.schedules.due(10)).toEqual([]);
    });

    it('lets exactly one of 50 concurrent claims win, across three replicas', async () => {
      const database = await testDatabase(backend);
      const replicas = await Promise.all(
        [1, 2, 3].map(() => testStore(backend, { database, poolSize: 10 })),
      );
      const [first] = replicas;
      if (!first) throw new Error('no replica');
      const schedule = await first.store.schedules.create(daily(first.clock.now()));
      const claims = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          replicas[i % 3]?.store.schedules.claim(
            schedule.id,
            schedule.nextRunAt,
            schedule.nextRunAt + 24 * HOUR,
          ),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('takes due occurrences in batches: replicas at once take each one once, with its job', async () => {
      const database = await testDatabase(backend);
      // SQLite is one process's (see process-lock.ts): several replicas are PostgreSQL's.
      const replicas = await Promise.all(
        (backend === 'postgres' ? ['a', 'b', 'c'] : ['a']).map((idPrefix) =>
          testStore(backend, { database, poolSize: 4, idPrefix }),
        ),
      );
      const [first] = replicas;
      if (!first) throw new Error('no replica');
      const now = first.clock.now();
      for (let i = 0; i < 60; i++) await first.store.schedules.create(daily(now - i));
      await first.store.schedules.create(daily(now + HOUR));
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
      expect(await first.store.schedules.due(100)).toEqual([]);
      const jobs = await first.store.db.selectFrom('jobs').select('key').execute();
      expect(jobs).toHaveLength(60);
      // Moved on, each to its own next time.
      const moved = await first.store.schedules.get(taken[0] ?? '');
      expect(moved?.nextRunAt).toBe((moved?.lastRunAt ?? 0) + 24 * HOUR);
    });

    it('stores nothing of a batch when its transaction fails', async () => {
      const { store, clock } = await testStore(backend);
      await store.schedules.create(daily(clock.now()));
      await store.schedules.create(daily(clock.now()));
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
      expect(await store.schedules.due(10)).toHaveLength(2);
      expect(await store.audit.recent('T1')).toEqual([]);
    });

    it('pauses, resumes and stops; paused and stopped schedules are never due', async () => {
      const { store, clock } = await testStore(backend);
      const s = await store.schedules.create(daily(clock.now()));
      expect(await store.schedules.pause(s.id, 'bot removed from channel')).toBe(true);
      expect(await store.schedules.pause(s.id, 'again')).toBe(false);
      expect(await store.schedules.claim(s.id, s.nextRunAt, s.nextRunAt + 1)).toBe(false);
      expect(await store.schedules.due(10)).toEqual([]);
      expect((await store.schedules.get(s.id))?.pausedReason).toBe('bot removed from channel');

      expect(await store.schedules.resume(s.id, clock.now())).toBe(true);
      expect((await store.schedules.due(10)).map((x) => x.id)).toEqual([s.id]);
      expect(await store.schedules.stop(s.id, 'T2')).toBe(false);
      expect(await store.schedules.stop(s.id, 'T1')).toBe(true);
      expect(await store.schedules.stop(s.id, 'T1')).toBe(false);
      expect(await store.schedules.listForWorkspace('T1')).toEqual([]);
    });

    it('pauses every active schedule of a workspace', async () => {
      const { store, clock } = await testStore(backend);
      await store.schedules.create(daily(clock.now()));
      await store.schedules.create(daily(clock.now()));
      await store.schedules.create({ ...daily(clock.now()), workspaceId: 'T2' });
      expect(await store.schedules.pauseAll('T1', 'app uninstalled')).toBe(2);
      expect((await store.schedules.listForWorkspace('T1')).map((s) => s.status)).toEqual([
        'paused',
        'paused',
      ]);
      expect(await store.schedules.due(10)).toHaveLength(1);
    });
  });
}
