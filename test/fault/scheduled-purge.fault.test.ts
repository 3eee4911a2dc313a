// A scheduled purge against a real kill -9: asked of one bot process, which dies (SIGKILL) while
// the purge waits; two other processes on the same database (one on SQLite, which one process
// holds) find it when it comes due, and exactly one runs it, once, not before its time. The bots
// run on the system clock: the test brings the purge's time near by moving the job's due time in
// the store (what a clock moved on would do), never by a sleep or a clock of the bot's own.
import { describe, expect, it } from 'vitest';
import { SCHEDULED_PURGE_JOB } from '../../src/services/purge/scheduled-purges.js';
import { BACKENDS } from '../helpers/store.js';
import { MEMBER, REPLICA_ENV, startWorld } from './bot-process.js';
import { auditOf, TEST_TIMEOUT_MS, ZONE } from './flows.js';

const URL = `https://${ZONE}/assets/app.css`;
/** How far ahead the purge is brought once its bot is dead: both replicas are up by then. */
const DUE_IN_MS = 4_000;

describe.each(BACKENDS)('a scheduled purge and kill -9 ($backend)', ({ backend, skip }) => {
  it.skipIf(skip)(
    'survives its replica’s kill -9 and runs exactly once at its time, on another',
    async () => {
      const world = await startWorld({ backend, env: REPLICA_ENV });
      const first = await world.spawnBot();
      expect((await first.command(`purge ${ZONE} ${URL} in 30m`, MEMBER)).status).toBe(200);
      await world.slack.waitForMessages((m) => m.text?.includes('Purge scheduled for') ?? false);
      expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

      const dueAt = Date.now() + DUE_IN_MS;
      const jobs = await world.inspect(async (store) => {
        await store.db
          .updateTable('jobs')
          .set({ run_at: dueAt })
          .where('kind', '=', SCHEDULED_PURGE_JOB)
          .execute();
        return store.db
          .selectFrom('jobs')
          .selectAll()
          .where('kind', '=', SCHEDULED_PURGE_JOB)
          .execute();
      });
      expect(jobs).toEqual([expect.objectContaining({ state: 'queued', attempts: 0 })]);
      // Two replicas where the store takes several processes; SQLite takes one (a process lock).
      const replicas = await Promise.all(
        backend === 'postgres' ? [world.spawnBot(), world.spawnBot()] : [world.spawnBot()],
      );

      const [purge] = await world.sandbox.waitFor((r) => r.path.endsWith('/purge'));
      expect(purge?.body).toEqual({ files: [URL] });
      // The sandbox's clock is the system's, as is the bots'.
      expect(purge?.at).toBeGreaterThanOrEqual(dueAt);
      await world.slack.waitForMessages(
        (m) => m.via === 'api' && (m.text?.startsWith('Purged') ?? false),
      );
      // Claimed once (one attempt), and over: no replica takes it again.
      const ended = await world.inspect((store) =>
        store.db.selectFrom('jobs').selectAll().where('kind', '=', SCHEDULED_PURGE_JOB).execute(),
      );
      expect(ended).toEqual([expect.objectContaining({ state: 'succeeded', attempts: 1 })]);
      for (const bot of replicas)
        expect(await bot.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(world.sandbox.requests.filter((r) => r.path.endsWith('/purge'))).toHaveLength(1);
      const actions = (await auditOf(world)).map((entry) => entry.action);
      expect(actions.filter((action) => action === 'purge.scheduled.ran')).toHaveLength(1);
      expect(actions.filter((action) => action === 'purge.urls')).toHaveLength(1);
      // Which replica ran it: one, and any other logged nothing of it.
      const ran = replicas.filter(
        (bot) =>
          bot.logs((line) => line.msg === 'job finished' && line.kind === SCHEDULED_PURGE_JOB)
            .length > 0,
      );
      expect(ran).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );
});
