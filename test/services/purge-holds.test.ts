// A purge naming a zone that does not serve some of its URLs, against the CDN sandbox on loopback,
// a real store (SQLite and PostgreSQL) and the real job runner: the URLs set aside name the zone
// serving them, nothing is sent until the requester confirms, and then only the rest, on the zone
// named, once; a cancel, another person, or a lapsed hold sends nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { CdnTransport } from '../../src/cdn/transport.js';
import { startSandbox } from '../../src/dev/sandbox/server.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { createLogger } from '../../src/logger.js';
import type { Caller } from '../../src/services/access.js';
import { AccessService } from '../../src/services/access.js';
import { CdnAccess } from '../../src/services/cdn-access.js';
import { CdnReads } from '../../src/services/cdn-reads.js';
import { type PurgeOutcome, PurgeService } from '../../src/services/purge.js';
import { PURGE_HOLD_JOB, PURGE_HOLD_MS, PurgeHoldService } from '../../src/services/purge-holds.js';
import { parsePurgeArgs } from '../../src/services/purge-targets.js';
import type { ReplyTo } from '../../src/services/reply.js';
import { ZoneIndex } from '../../src/services/zone-index.js';
import { ZoneService } from '../../src/services/zones.js';
import { ManualClock } from '../helpers/clock.js';
import { BACKENDS, type Backend, testStore } from '../helpers/store.js';

const KEY = 'sk_hold_key_c3';
const REQUESTER: Caller = { workspaceId: 'T1', userId: 'U1' } as Caller;
const OTHER: Caller = { workspaceId: 'T1', userId: 'U2' } as Caller;
const REPLY: ReplyTo = { userId: 'U1', channelId: 'C1', issuedAt: 0, visibility: 'in_channel' };

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function setup(backend: Backend) {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const sandbox = await startSandbox({ apiKeys: [KEY], clock });
  const transport = new CdnTransport();
  const { store } = await testStore(backend, { clock });
  const logger = createLogger({ level: 'silent' });
  const cdn = new CdnAccess({ store, transport, defaultBaseUrl: sandbox.baseUrl, clock, logger });
  const index = new ZoneIndex({
    store,
    cdn,
    clock,
    logger,
    limits: { maxPages: 100, operationTimeoutMs: 30_000 },
    refreshMs: 300_000,
    concurrency: 4,
  });
  // Unbounded reads: these tests are about other things.
  const reads = new CdnReads(store.rateSlots, new AccessService(store.workspaces), {
    person: 0,
    workspace: 0,
  });
  const zones = new ZoneService({ cdn, audit: store.audit, index, reads });
  const runner = new JobRunner({ jobs: store.jobs, clock, logger, pollMs: 20 });
  const finished: PurgeOutcome[] = [];
  const purges = new PurgeService({
    cdn,
    zones,
    store,
    runner,
    views: () => ({
      started: async () => undefined,
      progressed: async () => undefined,
      paused: async () => undefined,
      finished: async (outcome) => {
        finished.push(outcome);
      },
    }),
    onViewError: (error) => {
      throw error;
    },
  });
  const holds = new PurgeHoldService({ store, runner, purges, clock });
  runner.register('purge', purges.job);
  runner.register(PURGE_HOLD_JOB, holds.job);
  runner.start();
  open.push(
    () => sandbox.close(),
    () => transport.close(),
    () => index.idle(),
    () => runner.stop(),
  );
  await store.credentials.set('T1', KEY, { userId: 'U1', validated: true });
  const purgeRequests = () =>
    sandbox.requests
      .filter((r) => r.path.endsWith('/purge'))
      .map((r) => ({
        zone: sandbox.state.byId(r.path.split('/')[2] ?? '')?.name,
        files: (r.body as { files?: string[] }).files,
      }));
  /** Plans `/cdn purge <words>` and holds it, as the command does when URLs are set aside. */
  const hold = async (words: string) => {
    const parsed = parsePurgeArgs(words.split(' '));
    if (parsed.kind !== 'items') throw new Error('not a purge of items');
    const plan = await purges.plan('T1', parsed);
    expect(plan.rejected).toEqual([]);
    return { plan, held: await holds.hold('T1', plan, REQUESTER.userId) };
  };
  return { clock, store, runner, holds, finished, purgeRequests, hold };
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(
    `a purge held for the URLs the zone named does not serve (${backend})`,
    () => {
      it('names the zone serving each URL set aside, sends nothing, then on confirm only the rest on the zone named, once', async () => {
        const t = await setup(backend);
        const { plan, held } = await t.hold(
          'example.com https://static.example.com/a.css https://example.com/b.css https://a.static.example.com/c.css https://nowhere.test/d https://www.example.com/e.js',
        );
        expect(plan.elsewhere).toEqual([
          {
            item: 'https://static.example.com/a.css',
            host: 'static.example.com',
            servedBy: 'static.example.com',
          },
          // The longest zone name wins: static.example.com, not example.com.
          {
            item: 'https://a.static.example.com/c.css',
            host: 'a.static.example.com',
            servedBy: 'static.example.com',
          },
          { item: 'https://nowhere.test/d', host: 'nowhere.test' },
        ]);
        expect(held).toMatchObject({ actorId: 'U1', zoneName: 'example.com', count: 2 });
        await t.runner.settled();
        expect(t.purgeRequests()).toEqual([]);

        // Another person may not decide it, even with the id.
        await expect(t.holds.confirm(OTHER, held.id, REPLY)).rejects.toMatchObject({
          code: 'not_purge_requester',
        });
        await expect(t.holds.cancel(OTHER, held.id)).rejects.toMatchObject({
          code: 'not_purge_requester',
        });

        // Two clicks at once (or a retried delivery): one purge.
        const clicks = await Promise.allSettled([
          t.holds.confirm(REQUESTER, held.id, REPLY),
          t.holds.confirm(REQUESTER, held.id, REPLY),
        ]);
        expect(clicks.filter((c) => c.status === 'fulfilled')).toHaveLength(1);
        await t.runner.settled();
        await expect(t.holds.confirm(REQUESTER, held.id, REPLY)).rejects.toMatchObject({
          problem: { code: 'purge_hold_closed', status: 'confirmed' },
        });
        await expect(t.holds.cancel(REQUESTER, held.id)).rejects.toMatchObject({
          problem: { code: 'purge_hold_closed', status: 'confirmed' },
        });
        await t.runner.settled();
        expect(t.purgeRequests()).toEqual([
          {
            zone: 'example.com',
            files: ['https://example.com/b.css', 'https://www.example.com/e.js'],
          },
        ]);
        expect(t.finished).toHaveLength(1);
        expect(t.finished[0]?.runs.map((r) => r.job.zoneName)).toEqual(['example.com']);
      });

      it('purges nothing once cancelled, nor when confirmed after', async () => {
        const t = await setup(backend);
        const { held } = await t.hold(
          'example.com https://example.com/a https://static.example.com/b',
        );
        await t.holds.cancel(REQUESTER, held.id);
        await expect(t.holds.confirm(REQUESTER, held.id, REPLY)).rejects.toMatchObject({
          problem: { code: 'purge_hold_closed', status: 'cancelled' },
        });
        await t.runner.settled();
        expect(t.purgeRequests()).toEqual([]);
      });

      it('lapses: a confirm after the hold’s time sends nothing', async () => {
        const t = await setup(backend);
        const { held } = await t.hold(
          'example.com https://example.com/a https://static.example.com/b',
        );
        t.clock.advance(PURGE_HOLD_MS);
        await expect(t.holds.confirm(REQUESTER, held.id, REPLY)).rejects.toMatchObject({
          problem: { code: 'purge_hold_closed', status: 'expired' },
        });
        await expect(t.holds.confirm(REQUESTER, 'no-such-hold', REPLY)).rejects.toMatchObject({
          code: 'purge_hold_unknown',
        });
        await t.runner.settled();
        expect(t.purgeRequests()).toEqual([]);
      });
    },
  );
}
