// The watch repository's edges: an unwatch racing a watch of the same zone from another channel
// never leaves a watch unscheduled; a zone's due interval is taken once, as one keyed job, across
// replicas; alerts that are over are pruned, and go with their workspace.
// (An alert's rate-limit claim is a keyed job now: test/store/jobs.test.ts, `hold`.)

import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { JobRepository } from '../../src/store/jobs.js';
import type { Database } from '../../src/store/schema.js';
import type { WatchAlert } from '../../src/store/watch-alerts.js';
import { type Watch, type WatchedZone, WatchRepository } from '../../src/store/watches.js';
import { ManualClock } from '../helpers/clock.js';
import { BACKENDS, replicaStores, testStore } from '../helpers/store.js';

const T0 = Date.parse('2026-11-24T09:00:00Z');
const DAY = 86_400_000;
const ZONE = { status: 'active', firstRunAt: T0 + 60_000 };
const LIMITS = { watches: 1_000, watchesPerPerson: 1_000 };

/** The zones watched below are of this account (what `/cdn login` makes); none has a key. */
const ACCOUNT = 'default';
const BY = { userId: 'U1', validated: true };

/** The workspace's account `name`, made (without a key) if missing: its id. */
async function accountOf(store: Store, name = ACCOUNT): Promise<string> {
  const found = await store.accounts.byName('T1', name);
  return (found ?? (await store.accounts.create('T1', { name, by: BY }))).id;
}

const WATCH = {
  workspaceId: 'T1',
  zoneId: 'z1',
  zoneName: 'example.com',
  createdBy: 'U1',
  rules: [],
};
const watchIn = async (store: Store, channelId: string, accountId?: string) =>
  store.watches.upsert(
    { ...WATCH, channelId, accountId: accountId ?? (await accountOf(store)) },
    ZONE,
    LIMITS,
  );

/** The watched zone z1 of the account ACCOUNT. */
const zoneOf = async (store: Store) => store.watches.zone('T1', 'z1', await accountOf(store));

/** A zone interval's job, keyed as WatchEvaluation.tick keys it. */
const evalJob = (zone: WatchedZone) => ({
  workspaceId: zone.workspaceId,
  kind: 'watch_eval',
  key: `watch:${zone.workspaceId}:${zone.accountId}:${zone.zoneId}:${zone.nextRunAt}`,
  payload: { zoneId: zone.zoneId, dueAt: zone.nextRunAt },
});
/** The tick's plan for a zone on time: its job, and the next interval a minute later. */
const next = (zone: WatchedZone) => ({ nextRunAt: zone.nextRunAt + 60_000, job: evalJob(zone) });

function alertOf(
  watch: Watch,
  id: string,
  status: WatchAlert['status'],
  resolvedAt = T0 + 60_000,
): Omit<WatchAlert, 'messageTs'> {
  return {
    id,
    workspaceId: 'T1',
    accountId: watch.accountId,
    watchId: watch.id,
    zoneId: 'z1',
    zoneName: 'example.com',
    channelId: 'C1',
    rule: 'spike',
    status,
    startedAt: T0,
    resolvedAt: status === 'resolved' ? resolvedAt : null,
    detail: {},
  };
}

/**
 * The database, but the first statement built by `method(table)` (or transaction) runs `before`
 * (whole) just before it executes: a deterministic interleaving of two callers' statements.
 */
function pausedBefore(
  db: Kysely<Database>,
  method: 'deleteFrom' | 'insertInto' | 'transaction',
  table: string | undefined,
  before: () => Promise<unknown>,
): Kysely<Database> {
  let pending = true;
  const pause = async () => {
    if (!pending) return;
    pending = false;
    await before();
  };
  const wrap = <T extends object>(builder: T): T =>
    new Proxy(builder, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (typeof property === 'string' && property.startsWith('execute'))
          return async (...args: unknown[]) => {
            await pause();
            return value.apply(target, args);
          };
        return (...args: unknown[]) => {
          const result = value.apply(target, args);
          return result && typeof result === 'object' ? wrap(result) : result;
        };
      },
    });
  return new Proxy(db, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== method) return typeof value === 'function' ? value.bind(target) : value;
      return (name?: string) => {
        const builder = value.call(target, name);
        return name === table ? wrap(builder) : builder;
      };
    },
  });
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`watches on ${backend}`, () => {
    it('has no zone due while its workspace has no CDN key', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      await watchIn(store, 'C1');
      clock.advance(120_000);
      // A plan that leaves the zone where it is: what is due is looked at again below.
      const stay = (zone: WatchedZone) => ({ nextRunAt: zone.nextRunAt, job: evalJob(zone) });
      expect(await store.watches.takeDue(10, stay)).toEqual([]);
      // Another account's key is not the zone's account's.
      await store.accounts.create('T1', { name: 'staging', apiKey: 'sk_other', by: BY });
      expect(await store.watches.takeDue(10, stay)).toEqual([]);
      await store.credentials.set('T1', 'sk_test', { userId: 'U1', validated: true });
      expect((await store.watches.takeDue(10, stay)).map((t) => t.zone.zoneId)).toEqual(['z1']);
      await store.credentials.delete('T1');
      expect(await store.watches.takeDue(10, stay)).toEqual([]);
    });

    it("takes a zone's due interval once: its job, keyed by it, and the zone moved on", async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      await store.credentials.set('T1', 'sk_test', { userId: 'U1', validated: true });
      await watchIn(store, 'C1');
      clock.advance(60_000);
      const taken = await store.watches.takeDue(10, next);
      expect(taken.map((t) => [t.zone.zoneId, t.nextRunAt])).toEqual([['z1', T0 + 120_000]]);
      expect(await store.watches.takeDue(10, next)).toEqual([]);
      expect(await zoneOf(store)).toMatchObject({ nextRunAt: T0 + 120_000 });
      const account = await accountOf(store);
      expect(await store.jobs.byKey(`watch:T1:${account}:z1:${T0 + 60_000}`)).toMatchObject({
        kind: 'watch_eval',
        state: 'queued',
      });
      // A failure inside the take (here its jobs' insert) leaves the zone due, and no job.
      clock.advance(60_000);
      const failing = (zone: WatchedZone) => ({
        nextRunAt: zone.nextRunAt + 60_000,
        job: { ...evalJob(zone), steps: [{}] },
      });
      await expect(store.watches.takeDue(10, failing)).rejects.toThrow(/without steps/);
      expect(await zoneOf(store)).toMatchObject({ nextRunAt: T0 + 120_000 });
      expect(await store.jobs.byKey(`watch:T1:${account}:z1:${T0 + 120_000}`)).toBeUndefined();
    });

    it("lets exactly one of 50 concurrent takes have a zone's interval, across the replicas", async () => {
      const replicas = await replicaStores(backend, 10);
      const [first] = replicas;
      await first.store.credentials.set('T1', 'sk_test', { userId: 'U1', validated: true });
      await first.store.watches.upsert(
        { ...WATCH, channelId: 'C1', accountId: await accountOf(first.store) },
        { status: 'active', firstRunAt: first.clock.now() },
        LIMITS,
      );
      const takes = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          replicas[i % replicas.length]?.store.watches.takeDue(10, next),
        ),
      );
      expect(takes.filter((taken) => taken?.length)).toHaveLength(1);
      expect(await first.store.db.selectFrom('jobs').select('key').execute()).toHaveLength(1);
    });

    it('unmutes once; a step read while muted is refused after it, and a quiet breach is forgotten', async () => {
      const { store } = await testStore(backend);
      const { watch } = await watchIn(store, 'C1');
      await store.watchRules.mute(watch.id, 'spike');
      // Fired while muted: firing, with no alert.
      const quiet = { firing: true, streak: 0, alertId: null };
      expect(
        await store.watchRules.applyRuleState(watch.id, 'spike', { from: 0, to: 1 }, quiet, true),
      ).toBe(true);
      expect(await store.watchRules.unmute(watch.id, 'spike')).toBe(true);
      expect(await store.watchRules.unmute(watch.id, 'spike')).toBe(false);
      const [state] = await store.watchRules.ruleStates([watch.id], 'spike');
      expect(state).toMatchObject({ muted: false, firing: false, streak: 0, lastInterval: 1 });
      // An evaluation that read the state muted writes nothing now: it reads again.
      expect(
        await store.watchRules.applyRuleState(watch.id, 'spike', { from: 1, to: 2 }, quiet, true),
      ).toBe(false);
      // A rule muted while its alert fires keeps firing: its resolution updates that alert.
      await store.watchRules.applyRuleState(
        watch.id,
        'drop',
        { from: 0, to: 1 },
        { firing: true, streak: 0, alertId: 'al1' },
      );
      await store.watchRules.mute(watch.id, 'drop');
      await store.watchRules.unmute(watch.id, 'drop');
      expect((await store.watchRules.ruleStates([watch.id], 'drop'))[0]).toMatchObject({
        firing: true,
        alertId: 'al1',
      });
    });

    it('keeps the zone scheduled while any channel watches it, and drops it with the last', async () => {
      const { store } = await testStore(backend);
      const { watch: one } = await watchIn(store, 'C1');
      const { watch: two } = await watchIn(store, 'C2');
      // The same zone id in another account is another zone: scheduled and dropped on its own.
      const staging = await accountOf(store, 'staging');
      const { watch: elsewhere } = await watchIn(store, 'C1', staging);
      await store.watches.remove(one);
      expect(await zoneOf(store)).toBeDefined();
      await store.watches.remove(two);
      expect(await zoneOf(store)).toBeUndefined();
      expect(await store.watches.zone('T1', 'z1', staging)).toMatchObject({ accountId: staging });
      await store.watches.remove(elsewhere);
      expect(await store.watches.zone('T1', 'z1', staging)).toBeUndefined();
    });

    it('an unwatch racing a watch of the zone from another channel leaves it scheduled', async () => {
      const { store, clock } = await testStore(backend);
      const repository = (db: Kysely<Database>) =>
        new WatchRepository(db, backend, clock, new JobRepository(db, backend, clock));
      // The watch from C2 runs whole just before the unwatch deletes the schedule: the unwatch
      // sees the new watch and keeps it.
      const { watch: one } = await watchIn(store, 'C1');
      // (On PostgreSQL the unwatch locks the schedule's row first, in a transaction: just before it.)
      const racing =
        backend === 'postgres'
          ? pausedBefore(store.db, 'transaction', undefined, () => watchIn(store, 'C2'))
          : pausedBefore(store.db, 'deleteFrom', 'watch_zones', () => watchIn(store, 'C2'));
      await repository(racing).remove(one);
      expect(await zoneOf(store)).toBeDefined();

      // The unwatch of C2 runs whole just before the watch from C3 stores its watch: the
      // schedule it deleted is put back.
      const two = await store.watches.find('T1', 'z1', 'C2', await accountOf(store));
      if (!two) throw new Error('no watch from C2');
      const watching = pausedBefore(store.db, 'insertInto', 'watches', async () => {
        await store.watches.remove(two);
        expect(await zoneOf(store)).toBeUndefined();
      });
      await repository(watching).upsert(
        { ...two, channelId: 'C3', createdBy: 'U3', rules: [] },
        ZONE,
        LIMITS,
      );
      expect(await zoneOf(store)).toMatchObject({ nextRunAt: ZONE.firstRunAt });
    });

    it('prunes alerts resolved, or of a watch gone, before the time given; and all with the workspace', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      const { watch } = await watchIn(store, 'C1');
      const { watch: gone } = await watchIn(store, 'C2');
      await store.watchAlerts.createAlert(alertOf(watch, 'resolved', 'resolved'));
      await store.watchAlerts.createAlert(alertOf(watch, 'firing', 'firing'));
      await store.watchAlerts.createAlert(alertOf(gone, 'orphan', 'firing'));
      await store.watchAlerts.createAlert(alertOf(watch, 'long', 'firing'));
      await store.watches.remove(gone);
      clock.advance(30 * DAY);
      // Fired 30 days ago, resolved just now: its resolution is still to be posted.
      await store.watchAlerts.resolveAlert('long', clock.now(), {});
      await store.watchAlerts.createAlert(alertOf(watch, 'recent', 'resolved', clock.now()));
      const ids = async () => {
        const all = ['resolved', 'firing', 'orphan', 'long', 'recent'];
        const left = await Promise.all(all.map((id) => store.watchAlerts.alert(id)));
        return left.flatMap((alert) => (alert ? [alert.id] : []));
      };

      expect(await store.watchAlerts.pruneAlerts(T0, 1_000)).toBe(0);
      expect(await store.watchAlerts.pruneAlerts(clock.now() - 1, 1_000)).toBe(2);
      expect(await ids()).toEqual(['firing', 'long', 'recent']);
      expect(await store.watches.removeWorkspace('T1')).toBe(1);
      expect(await ids()).toEqual([]);
    });

    it.skipIf(backend !== 'postgres')(
      'an unwatch that waits for a lock on the schedule judges the watches left after the wait',
      async () => {
        const { store, database, clock } = await testStore(backend);
        const other = (await testStore(backend, { database, clock })).store;
        const { watch: one } = await watchIn(store, 'C1');
        // Another transaction holds the schedule's row (as a tick's claim would, for a moment).
        let release = () => {};
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        let holding = (_pid: number) => {};
        const held = new Promise<number>((resolve) => {
          holding = resolve;
        });
        const holder = other.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await trx
            .selectFrom('watch_zones')
            .select('zone_id')
            .where('zone_id', '=', 'z1')
            .forUpdate()
            .execute();
          holding(rows[0]?.pid ?? 0);
          await released;
        });
        const holderPid = await held;
        const removing = store.watches.remove(one);
        // Until the unwatch waits on that lock (a backend blocked by the holder).
        for (;;) {
          const { rows } = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
            where ${holderPid} = any(pg_blocking_pids(pid))`.execute(other.db);
          if ((rows[0]?.n ?? 0) > 0) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
        // Meanwhile C2 watches the zone: its schedule is there, so its puts change nothing.
        await watchIn(store, 'C2');
        release();
        await holder;
        await removing;
        expect(await zoneOf(store)).toBeDefined();
      },
    );
  });
}
