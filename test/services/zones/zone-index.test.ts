// The zone index against the CDN sandbox on loopback and a real store (SQLite and PostgreSQL):
// built in bounded parallel pages, used without CDN requests, refreshed behind readers, probed for
// a name it lacks, dropped with its key, refreshed by one replica at a time.
import { afterEach, describe, expect, it } from 'vitest';
import type { ZonePage } from '../../../src/cdn/client.js';
import type { Sandbox, SandboxOptions } from '../../../src/dev/sandbox/server.js';
import { AppError } from '../../../src/errors.js';
import { JobRunner } from '../../../src/jobs/runner.js';
import { createLogger } from '../../../src/logger.js';
import type { CdnAccess } from '../../../src/services/accounts/cdn-access.js';
import { ZoneIndex } from '../../../src/services/zones/zone-index.js';
import { ZONE_INDEX_JOB, zoneIndexJobKey } from '../../../src/services/zones/zone-index-builder.js';
import type { Store } from '../../../src/store/index.js';
import { ManualClock } from '../../helpers/clock.js';
import { BACKENDS, type Backend, testDatabase, testStore } from '../../helpers/store.js';
import { cdnSetup } from '../cdn-setup.js';

const KEY = 'sk_index_key_a1';
const OTHER_KEY = 'sk_index_key_b2';
const REFRESH_MS = 300_000;

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/** A gate a test opens when it chooses. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const isList = (r: { method: string; path: string }) => r.method === 'GET' && r.path === '/zones';

async function setup(
  backend: Backend,
  sandboxOptions: SandboxOptions = {},
  options: { maxPages?: number; store?: Store; clock?: ManualClock } = {},
) {
  const clock = options.clock ?? new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const { sandbox, transport, store, services } = await cdnSetup({
    clock,
    backend,
    ...(options.store ? { store: options.store } : {}),
    sandbox: { apiKeys: [KEY], ...sandboxOptions },
    zoneIndex: {
      limits: { maxPages: options.maxPages ?? 100, operationTimeoutMs: 30_000 },
      refreshMs: REFRESH_MS,
      concurrency: 4,
    },
  });
  const { zoneIndex: index, zones } = services;
  open.push(
    () => sandbox.close(),
    () => transport.close(),
    // Nothing of the index may still run once the test's servers and store go.
    () => index.idle(),
  );
  const lists = () => sandbox.requests.filter(isList);
  /** Sets the login account's key; returns that account's id. */
  const login = async (key = KEY) => {
    await store.credentials.set('T1', key, { userId: 'U1', validated: true });
    return loginAccount(store);
  };
  return { clock, sandbox, store, index, zones, lists, login };
}

/** The id of T1's login account (the account `/cdn login` sets the key of). */
async function loginAccount(store: Store): Promise<string> {
  const credential = await store.credentials.get('T1');
  if (!credential) throw new Error('T1 has no login key');
  return credential.accountId;
}

/** Holds GET /zones after the first `pass` until the gate opens; counts the requests held. */
function holdLists(sandbox: Sandbox, pass: number) {
  const release = gate();
  const held: number[] = [];
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  if (pass > 0) {
    sandbox.inject({ kind: 'hold', until: Promise.resolve(), path: '/zones', times: pass });
  }
  sandbox.inject({
    kind: 'hold',
    path: '/zones',
    times: Number.POSITIVE_INFINITY,
    until: release.opened,
    onHeld: () => {
      held.push(held.length + 1);
      for (const w of waiting.splice(0)) {
        if (held.length >= w.count) w.resolve();
        else waiting.push(w);
      }
    },
  });
  return {
    release: release.open,
    /** Resolves once `count` requests are being held. */
    held: (count: number) =>
      held.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.push({ count, resolve })),
  };
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`the zone index (${backend})`, () => {
    it('is built from the first page, the second, then 4 pages at a time; lookups then cost no request', async () => {
      const t = await setup(backend, { demoZones: false, bulkZones: 1_000 });
      const a = await t.login();
      const hold = holdLists(t.sandbox, 2);
      const lookup = t.zones.resolve('T1', 'zone-0500.bulk.test', a);
      // Pages 1 and 2 went one after the other; then exactly 4 of pages 3 to 10 at once.
      await hold.held(4);
      expect(t.sandbox.load.inFlight).toBe(4);
      hold.release();
      const zone = await lookup;
      expect(zone.name).toBe('zone-0500.bulk.test');
      expect(t.sandbox.load.peak).toBeLessThanOrEqual(4);
      const pages = t.lists().map((r) => Number(r.query.page));
      expect(pages.slice(0, 2)).toEqual([1, 2]);
      expect(pages.slice().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(t.lists().every((r) => r.query.per_page === '100')).toBe(true);

      // By name (any case, a trailing dot) or by id, and the picker: no CDN request at all.
      const before = t.sandbox.requests.length;
      expect((await t.zones.resolve('T1', 'ZONE-0001.bulk.test.', a)).name).toBe(
        'zone-0001.bulk.test',
      );
      expect((await t.zones.resolve('T1', zone.id, a)).name).toBe('zone-0500.bulk.test');
      expect((await t.zones.search('T1', 'zone-09', 100, a)).map((z) => z.name)).toHaveLength(100);
      expect(await t.zones.all('T1', a)).toHaveLength(1_000);
      expect(t.sandbox.requests.length).toBe(before);
    });

    it('keeps the client’s bounds: a list longer than CDN_MAX_PAGES, or one that ignores page', async () => {
      const t = await setup(backend, { demoZones: false, bulkZones: 250 }, { maxPages: 2 });
      const a = await t.login();
      await expect(t.zones.resolve('T1', 'zone-001.bulk.test', a)).rejects.toMatchObject({
        code: 'unexpected_response',
        message: 'The CDN lists 250 zones, more than the 200 (2 pages) the bot reads',
      });
      expect(t.lists()).toHaveLength(1);

      const u = await setup(backend, { demoZones: false, bulkZones: 150 });
      const ua = await u.login();
      u.sandbox.inject({ kind: 'ignore-paging', total: 9_000, path: '/zones', times: Infinity });
      await expect(u.zones.resolve('T1', 'zone-001.bulk.test', ua)).rejects.toMatchObject({
        message:
          'The CDN sent the same zones again for page 2 of the zone list: it seems to ignore paging',
      });
      // Caught on page 2, before any page went out in parallel.
      expect(u.lists()).toHaveLength(2);
    });

    it('answers from a stale index at once and refreshes it behind the reader', async () => {
      const t = await setup(backend);
      const a = await t.login();
      await t.zones.resolve('T1', 'example.com', a);
      expect(t.lists()).toHaveLength(1);
      t.sandbox.state.create('later.example.com', 'free');
      t.clock.advance(REFRESH_MS);

      const hold = holdLists(t.sandbox, 0);
      // The refresh is held at the CDN, and the lookup does not wait for it.
      expect((await t.zones.resolve('T1', 'static.example.com', a)).name).toBe(
        'static.example.com',
      );
      await hold.held(1);
      // Another reader meanwhile starts no second refresh.
      await t.zones.search('T1', 'example', 100, a);
      hold.release();
      await t.index.idle();
      expect(t.lists()).toHaveLength(2);
      expect((await t.zones.resolve('T1', 'later.example.com', a)).status).toBe('active');
      expect(t.lists()).toHaveLength(2);
    });

    it('finds a zone created outside the bot after one targeted request, and suggests for a typo', async () => {
      const t = await setup(backend, { bulkZones: 250 });
      const a = await t.login();
      await t.zones.resolve('T1', 'example.com', a);
      expect(t.lists()).toHaveLength(3);
      t.sandbox.state.create('outside.example.com', 'free');

      const zone = await t.zones.resolve('T1', 'outside.example.com', a);
      expect(zone).toMatchObject({ name: 'outside.example.com', status: 'pending' });
      // 259 zones were indexed: the new one is on page 3, and only page 3 was asked for.
      expect(
        t
          .lists()
          .slice(3)
          .map((r) => r.query.page),
      ).toEqual(['3']);

      const error = await t.zones.resolve('T1', 'outsde.example.com', a).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).problem).toEqual({
        code: 'zone_not_found',
        query: 'outsde.example.com',
        suggestions: ['outside.example.com'],
      });
      // One more request for the typo (nothing new there), and the name found needs none.
      expect(t.lists()).toHaveLength(5);
      await t.zones.resolve('T1', 'outside.example.com', a);
      expect(t.lists()).toHaveLength(5);
    });

    it('gives a purge its zone and the zones that may serve its hosts, and no other', async () => {
      const t = await setup(backend, { bulkZones: 250 });
      const a = await t.login();
      await t.zones.resolve('T1', 'example.com', a);
      const lists = t.lists().length;
      const { zone, candidates } = await t.zones.forPurge(
        'T1',
        'example.com',
        ['cdn.static.example.com', 'a.b.example.com'],
        a,
      );
      expect(zone.name).toBe('example.com');
      // Of 257 zones, those named like a host or a name above one (deleted ones too: the plan
      // leaves them out), in the index's order; no request to the CDN.
      expect(candidates.map((z) => z.name)).toEqual(['example.com', 'static.example.com']);
      expect(t.lists()).toHaveLength(lists);
      // Named by its id, as a picker gives it.
      const byId = await t.zones.forPurge('T1', zone.id, ['shop.example.org'], a);
      expect(byId.zone.name).toBe('example.com');
      expect(byId.candidates.map((z) => z.name)).toEqual(['example.com', 'shop.example.org']);
      // A zone the index does not hold yet is looked for at the CDN, as resolve does.
      t.sandbox.state.create('outside.example.com', 'free');
      const outside = await t.zones.forPurge(
        'T1',
        'outside.example.com',
        ['outside.example.com'],
        a,
      );
      expect(outside.zone.name).toBe('outside.example.com');
      expect(outside.candidates.map((z) => z.name)).toEqual(['example.com', 'outside.example.com']);
      await expect(t.zones.forPurge('T1', 'nowhere.example.com', [], a)).rejects.toMatchObject({
        problem: { code: 'zone_not_found' },
      });
    });

    it('lists everything when the CDN’s total says zones changed elsewhere than at the end', async () => {
      const t = await setup(backend);
      const a = await t.login();
      await t.zones.resolve('T1', 'example.com', a);
      t.sandbox.state.create('moved.example.com', 'free');
      // The probe's page has one zone the index lacks, yet the total grew by 5: zones changed
      // where the probe did not look (the order is not creation order), so the whole list is read.
      t.sandbox.inject({ kind: 'ignore-paging', total: 14, path: '/zones', times: 1 });
      expect((await t.zones.resolve('T1', 'moved.example.com', a)).name).toBe('moved.example.com');
      expect(t.lists()).toHaveLength(3);
    });

    it('has a zone the bot created at once, and refreshes in the background after it', async () => {
      const t = await setup(backend, { bulkZones: 250 });
      const a = await t.login();
      await t.zones.resolve('T1', 'example.com', a);
      const listed = t.lists().length;
      const created = await t.zones.create('T1', {
        domain: 'fresh.example.com',
        plan: 'pro',
        actorId: 'U1',
        accountId: a,
      });
      expect(created.kind).toBe('created');
      // The refresh after the create: a whole listing, in the background.
      await t.sandbox.waitFor(isList, listed + 3);
      await t.index.idle();
      const before = t.sandbox.requests.length;
      expect((await t.zones.resolve('T1', 'fresh.example.com', a)).name).toBe('fresh.example.com');
      expect((await t.zones.search('T1', 'fresh', 100, a)).map((z) => z.name)).toEqual([
        'fresh.example.com',
      ]);
      expect(t.sandbox.requests.length).toBe(before);
    });

    it('drops the index with the key: nothing of the old account is used, even mid-refresh', async () => {
      const t = await setup(backend, {
        accounts: { [OTHER_KEY]: { bulkZones: 5 } },
      });
      const a = await t.login(KEY);
      expect((await t.zones.resolve('T1', 'example.com', a)).name).toBe('example.com');

      // A refresh under the old key is under way when the key changes.
      t.clock.advance(REFRESH_MS);
      const hold = holdLists(t.sandbox, 0);
      await t.zones.resolve('T1', 'example.com', a);
      await hold.held(1);
      await t.login(OTHER_KEY);
      t.index.keyChanged('T1', a);
      hold.release();
      await t.index.idle();

      const error = await t.zones.resolve('T1', 'example.com', a).catch((e: unknown) => e);
      expect((error as AppError).problem).toMatchObject({ code: 'zone_not_found' });
      expect((await t.zones.all('T1', a)).map((z) => z.name).sort()).toEqual([
        'zone-1.bulk.test',
        'zone-2.bulk.test',
        'zone-3.bulk.test',
        'zone-4.bulk.test',
        'zone-5.bulk.test',
      ]);
      expect(await t.zones.search('T1', 'example', 100, a)).toEqual([]);

      // Without a key there is no index at all.
      await t.store.credentials.delete('T1');
      await expect(t.zones.resolve('T1', 'zone-1.bulk.test', a)).rejects.toMatchObject({
        problem: { code: 'no_api_key' },
      });
    });

    it('is refreshed by one replica at a time (the job runner’s lease)', async () => {
      const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
      const database = await testDatabase(backend);
      const a = await setup(
        backend,
        {},
        { clock, store: (await testStore(backend, { database, clock })).store },
      );
      const b = await setup(
        backend,
        {},
        { clock, store: (await testStore(backend, { database, clock })).store },
      );
      // Both replicas talk to the same CDN: b's sandbox is not used.
      const acct = await a.login();
      await a.zones.resolve('T1', 'example.com', acct);
      clock.advance(REFRESH_MS);
      const hold = holdLists(a.sandbox, 0);
      a.index.refreshSoon('T1', acct);
      await hold.held(1);
      // a holds the account index's job under the runner's lease.
      expect(await b.store.jobs.byKey(zoneIndexJobKey('T1', acct))).toMatchObject({
        kind: ZONE_INDEX_JOB,
        state: 'running',
        leaseOwner: expect.any(String),
      });
      b.index.refreshSoon('T1', acct);
      await b.index.idle();
      hold.release();
      await a.index.idle();
      expect(a.lists()).toHaveLength(2);
      expect(b.sandbox.requests).toEqual([]);
      const state = (await b.store.zoneIndex.forAccount(acct).view('T1'))?.state;
      expect(state).toMatchObject({ refreshedAt: clock.now() });
      // Held as a job of the runner, back in the queue once done: the next refresh may take it.
      expect(await b.store.jobs.byKey(zoneIndexJobKey('T1', acct))).toMatchObject({
        kind: ZONE_INDEX_JOB,
        state: 'queued',
        leaseOwner: null,
        attempts: 0,
      });
    });

    it('leaves a refresh held elsewhere to its holder until its lease runs out; a reader without an index does not wait for it', async () => {
      const t = await setup(backend);
      const a = await t.login();
      // Another replica holds the index's job (a lease of 15 s), and dies with it.
      const job = {
        workspaceId: 'T1',
        kind: ZONE_INDEX_JOB,
        key: zoneIndexJobKey('T1', a),
        payload: {},
      };
      expect((await t.store.jobs.hold(job, 'dead-replica', 15_000)).held).toBe(true);
      // No index yet: the reader's build lists anyway.
      expect((await t.zones.resolve('T1', 'example.com', a)).name).toBe('example.com');
      expect(t.lists()).toHaveLength(1);
      // Stale, while the lease holds: the background refresh is left to the holder.
      t.clock.advance(REFRESH_MS - 15_000);
      await t.store.jobs.renew(
        (await t.store.jobs.byKey(job.key))?.id ?? '',
        'dead-replica',
        15_000,
      );
      t.clock.advance(15_000);
      t.index.refreshSoon('T1', a);
      await t.index.idle();
      expect(t.lists()).toHaveLength(1);
      // Its lease run out: taken over, and given back once done.
      t.clock.advance(1);
      t.index.refreshSoon('T1', a);
      await t.index.idle();
      expect(t.lists()).toHaveLength(2);
      expect((await t.store.zoneIndex.forAccount(a).view('T1'))?.state?.refreshedAt).toBe(
        t.clock.now(),
      );
      expect(await t.store.jobs.byKey(job.key)).toMatchObject({
        state: 'queued',
        leaseOwner: null,
      });
    });

    it('lets a picker wait for a first build only so long, then offers what it finds', async () => {
      const t = await setup(backend, { bulkZones: 250 });
      const a = await t.login();
      const hold = holdLists(t.sandbox, 0);
      const first = t.zones.search('T1', 'example', 100, a);
      await hold.held(1);
      await t.clock.sleepers(1);
      t.clock.advance(2_000);
      expect(await first).toEqual([]);
      hold.release();
      await t.index.idle();
      expect((await t.zones.search('T1', 'static', 100, a)).map((z) => z.name)).toEqual([
        'static.example.com',
      ]);
    });

    it('builds the known workspaces at start, then refreshes stale ones each round', async () => {
      const t = await setup(backend);
      const a = await t.login();
      // Known but never built (as after the migration): a state without rows.
      const view = await t.store.zoneIndex.forAccount(a).view('T1');
      await t.store.zoneIndex
        .forAccount(a)
        .failed('T1', view?.generation ?? '', 'unavailable: 503');
      t.clock.advance(REFRESH_MS);
      // Rounds of the recurring refresh (src/jobs/recurring.ts).
      const running = new AbortController().signal;
      await t.index.builder.refreshDue(running);
      await t.index.idle();
      expect((await t.store.zoneIndex.forAccount(a).view('T1'))?.state?.zoneCount).toBe(9);
      // Refreshed a moment ago: not due.
      await t.index.builder.refreshDue(running);
      expect(t.lists()).toHaveLength(1);

      t.sandbox.state.create('round.example.com', 'free');
      t.clock.advance(REFRESH_MS);
      await t.index.builder.refreshDue(running);
      await t.index.idle();
      expect(
        await t.store.zoneIndex.forAccount(a).find('T1', '', 'round.example.com'),
      ).toHaveLength(1);
      expect(t.lists()).toHaveLength(2);
    });
  });
}

describe('a build’s page requests', () => {
  it('never has more than `concurrency` pages in flight after the first two', async () => {
    const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
    const { store } = await testStore('sqlite', { clock });
    await store.credentials.set('T1', KEY, { userId: 'U1', validated: true });
    const account = await loginAccount(store);
    const pending: Array<{ page: number; answer: () => void }> = [];
    const calls: number[] = [];
    const page = (n: number): ZonePage => ({
      zones: Array.from({ length: n === 10 ? 50 : 100 }, (_, i) => ({
        id: `z${n}-${i}`,
        name: `z${i}.p${n}.test`,
        status: 'active',
        createdAt: '2026-11-01T00:00:00Z',
      })),
      page: n,
      perPage: 100,
      total: 950,
      pages: 10,
    });
    const client = {
      listZones: (params: { page: number }) => {
        calls.push(params.page);
        return new Promise<ZonePage>((resolve) =>
          pending.push({ page: params.page, answer: () => resolve(page(params.page)) }),
        );
      },
    };
    const cdn = { clientWith: () => client } as unknown as CdnAccess;
    const index = new ZoneIndex({
      store,
      cdn,
      clock,
      logger: createLogger({ level: 'silent' }),
      runner: new JobRunner({ jobs: store.jobs, clock, logger: createLogger({ level: 'silent' }) }),
      limits: { maxPages: 100, operationTimeoutMs: 30_000 },
      concurrency: 3,
    });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    const answer = async (n: number) => {
      const at = pending.findIndex((p) => p.page === n);
      pending.splice(at, 1)[0]?.answer();
      await settle();
    };
    const built = index.all('T1', account);
    while (calls.length < 1) await settle();
    await answer(1);
    // Page 2 alone: the server must honour paging before pages go out in parallel.
    expect(calls).toEqual([1, 2]);
    await answer(2);
    expect(calls).toEqual([1, 2, 3, 4, 5]);
    await answer(4);
    expect(calls).toEqual([1, 2, 3, 4, 5, 6]);
    for (const n of [3, 5, 6, 7, 8, 9, 10]) {
      expect(pending.length).toBeLessThanOrEqual(3);
      await answer(n);
    }
    expect(await built).toHaveLength(950);
    expect(calls.slice().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});
