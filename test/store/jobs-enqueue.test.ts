// A job and its steps are stored together (issue 30: every API purge enqueues one): on PostgreSQL
// in ONE statement, a round trip each (begin, the job, its steps, commit were four); on SQLite in
// one transaction. Either way a key already used stores neither a second job nor its steps.
import type { LogEvent } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { BACKENDS, testStore } from '../helpers/store.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`enqueue on ${backend}`, () => {
    it('stores the job and its steps in one round trip on PostgreSQL, in order, once per key', async () => {
      let statements: string[] | undefined;
      const { store } = await testStore(backend, {
        clock: new ManualClock(T0),
        onQuery: (event: LogEvent) => statements?.push(event.query.sql),
      });
      const steps = Array.from({ length: 7 }, (_, n) => ({ batch: n, urls: [`/p/${n}`] }));
      const input = { workspaceId: 'T1', kind: 'purge', key: 'api-purge:1', payload: {}, steps };
      statements = [];
      const first = await store.jobs.enqueue(input);
      const firstStatements = statements;
      statements = [];
      const again = await store.jobs.enqueue({ ...input, steps: [{ other: true }] });
      const againStatements = statements;
      statements = undefined;
      expect(first.created).toBe(true);
      expect(again).toEqual({ job: first.job, created: false });
      if (backend === 'postgres') expect(firstStatements).toHaveLength(1);
      else expect(firstStatements.filter((sql) => /^insert/i.test(sql))).toHaveLength(2);
      // The key used: nothing stored, then the job that holds it read.
      expect(againStatements.filter((sql) => /^(insert|with)/i.test(sql))).toHaveLength(1);
      const stored = await store.jobs.steps(first.job.id);
      expect(stored).toEqual(steps.map((step, idx) => ({ idx, input: step, result: undefined })));
      expect(
        (await store.db.selectFrom('job_steps').select('idx').execute()).map((r) => r.idx),
      ).toHaveLength(7);
    });

    it('stores a job with no steps, and one with many', async () => {
      const { store } = await testStore(backend, { clock: new ManualClock(T0) });
      const bare = await store.jobs.enqueue({ workspaceId: 'T1', kind: 'report', payload: {} });
      expect(await store.jobs.steps(bare.job.id)).toEqual([]);
      const many = Array.from({ length: 1_500 }, (_, n) => ({ n, text: `it's "${n}"\\,{}` }));
      const big = await store.jobs.enqueue({
        workspaceId: 'T1',
        kind: 'p',
        payload: {},
        steps: many,
      });
      expect((await store.jobs.steps(big.job.id)).map((s) => s.input)).toEqual(many);
    });
  });
}
