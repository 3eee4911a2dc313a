// The zone index repository on both databases: tied to the key's generation, replaced atomically,
// searched best match first, a failed refresh recorded.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import type { IndexedZone } from '../../src/store/zone-index.js';
import { BACKENDS, testStore } from '../helpers/store.js';

const zone = (id: string, name: string, status = 'active'): IndexedZone => ({
  id,
  name,
  status,
  createdAt: '2026-11-01T00:00:00Z',
});

const ZONES = [
  zone('z1', 'example.com'),
  zone('z2', 'static.example.com'),
  zone('z3', 'shop.example.org'),
  zone('z4', 'myexample.net'),
  zone('z5', 'old.example.com', 'deleted'),
  zone('z6', 'a_b%c.test'),
  zone('z7', 'axbyc.test'),
];

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`zone index on ${backend}`, () => {
    /** The index of the account `/cdn login` sets the key of, in `workspaceId`. */
    async function loginIndex(store: Store, workspaceId: string, apiKey: string) {
      await store.credentials.set(workspaceId, apiKey, { userId: 'U1', validated: true });
      const login = await store.credentials.get(workspaceId);
      if (!login) throw new Error('no login key');
      return store.zoneIndex.forAccount(login.accountId);
    }

    async function built() {
      const fixture = await testStore(backend);
      const { store } = fixture;
      const index = await loginIndex(store, 'T1', 'key-one');
      const view = await index.view('T1');
      if (!view) throw new Error('no key');
      expect(view.state).toBeUndefined();
      const result = await index.replace('T1', view.generation, ZONES, ZONES.length);
      expect(result).toEqual({ written: true, inserted: 7, updated: 0, deleted: 0 });
      return { ...fixture, index, generation: view.generation };
    }

    it('is built for the key it was listed with, and found by name or id', async () => {
      const { clock, index, generation } = await built();
      expect(await index.view('T9')).toBeUndefined();
      const view = await index.view('T1');
      expect(view?.state).toMatchObject({
        generation,
        refreshedAt: clock.now(),
        cdnTotal: 7,
        zoneCount: 7,
        failedAt: null,
      });
      expect(await index.find('T1', 'x', 'static.example.com')).toEqual([ZONES[1]]);
      expect(await index.find('T1', 'z3', 'z3')).toEqual([ZONES[2]]);
      expect(await index.find('T2', 'z3', 'example.com')).toEqual([]);
      expect((await index.all('T1')).map((z) => z.id).sort()).toEqual(
        ZONES.map((z) => z.id).sort(),
      );
      expect((await index.liveNames('T1')).sort()).not.toContain('old.example.com');
    });

    it("finds a name or id in several accounts' indexes at once, each with its view", async () => {
      const { store, index, generation } = await built();
      const by = { userId: 'U1', validated: true };
      const staging = await store.accounts.create('T1', { name: 'staging', apiKey: 'k2', by });
      const prod = await store.accounts.create('T1', { name: 'prod', apiKey: 'k3', by });
      const keyless = await store.accounts.create('T1', { name: 'keyless', by });
      const stagingIndex = store.zoneIndex.forAccount(staging.id);
      const stagingView = await stagingIndex.view('T1');
      // Staging holds example.com too (live, and a deleted one of that name), and a zone whose
      // id is default's z3; prod's index is not built; another workspace's rows are not read.
      const held = [
        zone('s1', 'Example.COM'),
        zone('s2', 'example.com', 'deleted'),
        zone('z3', 'other.test'),
      ];
      await stagingIndex.replace('T1', stagingView?.generation ?? '', held, 3);
      const prodView = await store.zoneIndex.forAccount(prod.id).view('T1');
      await store.zoneIndex.forAccount(prod.id).failed('T1', prodView?.generation ?? '', 'p');
      const t2Index = await loginIndex(store, 'T2', 'key-two');
      const t2 = await t2Index.view('T2');
      await t2Index.replace('T2', t2?.generation ?? '', [zone('o1', 'example.com')], 1);

      const asked = [staging.id, index.accountId, prod.id, keyless.id, 'no-such-account'];
      const found = await store.zoneIndex.findAcross('T1', asked, 'example.com', 'example.com');
      expect(found.map((matches) => matches.zones.map((z) => z.id).sort())).toEqual([
        ['s1', 's2'],
        ['z1'],
        [],
        [],
        [],
      ]);
      expect(found[0]?.view).toEqual(stagingView && (await stagingIndex.view('T1')));
      expect(found[0]?.view?.state).toMatchObject({ zoneCount: 3, cdnTotal: 3 });
      expect(found[1]?.view).toEqual(await index.view('T1'));
      expect(found[1]?.view?.generation).toBe(generation);
      expect(found[2]?.view).toEqual({
        generation: prodView?.generation,
        state: expect.objectContaining({ refreshedAt: null, error: 'p' }),
      });
      expect(found[3]?.view).toBeUndefined();
      expect(found[4]?.view).toBeUndefined();
      // Each account's matches are those its own index finds, by name or by id.
      for (const [id, key] of [
        ['z3', 'z3'],
        ['x', 'static.example.com'],
        ['s1', 's1'],
      ] as const) {
        const across = await store.zoneIndex.findAcross(
          'T1',
          [index.accountId, staging.id],
          id,
          key,
        );
        expect(across.map((matches) => matches.zones)).toEqual([
          await index.find('T1', id, key),
          await stagingIndex.find('T1', id, key),
        ]);
      }
      // One account only: the same answers.
      expect(
        (await store.zoneIndex.findAcross('T1', [index.accountId], 'z1', 'z1'))[0]?.zones,
      ).toEqual([ZONES[0]]);
      expect(
        (await store.zoneIndex.findAcross('T1', [staging.id], 'x', 'example.com'))[0]?.zones,
      ).toHaveLength(2);
      expect(await store.zoneIndex.findAcross('T1', [], 'x', 'example.com')).toEqual([]);
      // Another workspace's account is not read, nor its zones: no view.
      expect(await store.zoneIndex.findAcross('T3', [index.accountId], 'x', 'example.com')).toEqual(
        [{ view: undefined, zones: [] }],
      );
      expect(await store.zoneIndex.findAcross('T2', [index.accountId], 'o1', 'o1')).toEqual([
        { view: undefined, zones: [] },
      ]);
    });

    it('searches live zones: the name, then prefixes, then labels, then anywhere', async () => {
      const { index } = await built();
      const names = async (needle: string, limit = 100) =>
        (await index.search('T1', needle, needle, limit)).map((z) => z.name);
      expect(await names('example')).toEqual([
        'example.com',
        'shop.example.org',
        'static.example.com',
        'myexample.net',
      ]);
      expect(await names('example.com')).toEqual(['example.com', 'static.example.com']);
      expect(await names('example', 2)).toEqual(['example.com', 'shop.example.org']);
      // LIKE's wildcards in what was typed are plain characters.
      expect(await names('_b%')).toEqual(['a_b%c.test']);
      expect(await names('z4')).toEqual(['myexample.net']);
      expect(await names('old')).toEqual([]);
      expect(await names('')).toHaveLength(6);
    });

    it('replaces the rows in one transaction, writing only what changed', async () => {
      const { clock, index, generation } = await built();
      clock.advance(60_000);
      const next = [
        ...ZONES.filter((z) => z.id !== 'z4').map((z) =>
          z.id === 'z2' ? { ...z, status: 'pending' } : z,
        ),
        zone('z8', 'new.example.com'),
      ];
      expect(await index.replace('T1', generation, next, 8)).toEqual({
        written: true,
        inserted: 1,
        updated: 1,
        deleted: 1,
      });
      expect(await index.find('T1', 'z2', 'z2')).toEqual([{ ...ZONES[1], status: 'pending' }]);
      expect((await index.view('T1'))?.state?.refreshedAt).toBe(clock.now());

      // A replace that fails half-way (a row the database refuses) leaves the index as it was.
      const broken = [...next, { ...zone('z9', 'broken.example.com'), createdAt: null as never }];
      await expect(index.replace('T1', generation, broken, 9)).rejects.toThrow();
      expect((await index.all('T1')).map((z) => z.id).sort()).toEqual(next.map((z) => z.id).sort());
    });

    it('compares thousands of rows a chunk at a time, exactly', async () => {
      const { index, generation } = await built();
      const many = Array.from({ length: 2_500 }, (_, i) =>
        zone(`m${String(i).padStart(4, '0')}`, `z${i}.many.test`),
      );
      expect(await index.replace('T1', generation, many, 2_500)).toMatchObject({
        inserted: 2_500,
        deleted: 7,
      });
      const next = many
        .filter((_, i) => i % 25 !== 0)
        .map((z, i) => (i % 50 === 7 ? { ...z, status: 'pending' } : z))
        .concat(Array.from({ length: 30 }, (_, i) => zone(`n${i}`, `n${i}.many.test`)));
      expect(await index.replace('T1', generation, next, next.length)).toEqual({
        written: true,
        inserted: 30,
        updated: 48,
        deleted: 100,
      });
      const rows = await index.all('T1');
      expect(rows).toHaveLength(next.length);
      const byId = new Map(rows.map((z) => [z.id, z]));
      expect(next.every((z) => JSON.stringify(byId.get(z.id)) === JSON.stringify(z))).toBe(true);
      expect((await index.view('T1'))?.state?.zoneCount).toBe(next.length);
    });

    it('drops the index with a new key or a removed one; an old key’s refresh writes nothing', async () => {
      const { store, index, generation } = await built();
      await store.credentials.set('T1', 'key-two', { userId: 'U1', validated: true });
      const view = await index.view('T1');
      expect(view?.generation).not.toBe(generation);
      expect(view?.state).toBeUndefined();
      expect(await index.all('T1')).toEqual([]);
      // A refresh started with the old key ends after the change: nothing is written.
      expect(await index.replace('T1', generation, ZONES, 7)).toMatchObject({
        written: false,
      });
      expect(await index.upsert('T1', generation, ZONES)).toBe(false);
      await index.failed('T1', generation, 'unavailable: 503');
      expect((await index.view('T1'))?.state).toBeUndefined();
      expect(await index.all('T1')).toEqual([]);

      await index.replace('T1', view?.generation ?? '', ZONES.slice(0, 2), 2);
      expect(await index.all('T1')).toHaveLength(2);
      // Another account's key, set or changed, leaves this account's index alone, and back.
      const by = { userId: 'U1', validated: true };
      const staging = await store.accounts.create('T1', { name: 'staging', apiKey: 'k2', by });
      const stagingIndex = store.zoneIndex.forAccount(staging.id);
      await stagingIndex.replace('T1', staging.generation ?? '', [zone('s1', 'staging.test')], 1);
      await store.accounts.setKey('T1', staging.id, 'k3', by);
      expect(await stagingIndex.all('T1')).toEqual([]);
      expect(await index.all('T1')).toHaveLength(2);
      const stagingNow = await stagingIndex.view('T1');
      await stagingIndex.replace(
        'T1',
        stagingNow?.generation ?? '',
        [zone('s1', 'staging.test')],
        1,
      );

      expect(await store.credentials.delete('T1')).toBe(true);
      expect(await index.view('T1')).toBeUndefined();
      const left = await store.db.selectFrom('zone_index').select('account_id').execute();
      expect(left).toEqual([{ account_id: staging.id }]);
    });

    it('adds zones to a built index only', async () => {
      const { store, index, generation } = await built();
      expect(await index.upsert('T1', generation, [zone('z8', 'new.example.com')], 8)).toBe(true);
      expect(await index.find('T1', 'x', 'new.example.com')).toHaveLength(1);
      expect((await index.view('T1'))?.state).toMatchObject({
        cdnTotal: 8,
        zoneCount: 8,
      });
      expect(await index.has('T1', ['z8', 'z1', 'nope'])).toEqual(new Set(['z8', 'z1']));

      const otherIndex = await loginIndex(store, 'T2', 'key');
      const other = await otherIndex.view('T2');
      expect(await otherIndex.upsert('T2', other?.generation ?? '', [zone('z1', 'a.b')])).toBe(
        false,
      );
    });

    it('records a failed refresh, and lists the indexes that are due', async () => {
      const { store, clock, index, generation } = await built();
      const staleBefore = () => clock.now() - 300_000;
      const retryBefore = () => clock.now() - 60_000;
      const t1 = { workspaceId: 'T1', accountId: index.accountId };
      expect(await store.zoneIndex.due(staleBefore(), retryBefore(), 10)).toEqual([]);
      clock.advance(300_000);
      expect(await store.zoneIndex.due(staleBefore(), retryBefore(), 10)).toEqual([t1]);

      await index.failed('T1', generation, 'unavailable: 503');
      expect((await index.view('T1'))?.state).toMatchObject({
        failedAt: clock.now(),
        error: 'unavailable: 503',
      });
      // A failed refresh is not tried again in the background for a while.
      expect(await store.zoneIndex.due(staleBefore(), retryBefore(), 10)).toEqual([]);
      clock.advance(60_000);
      expect(await store.zoneIndex.due(staleBefore(), retryBefore(), 10)).toEqual([t1]);

      // A failure for a key never indexed creates its state, not built yet: due once retried.
      const otherIndex = await loginIndex(store, 'T2', 'key');
      const other = await otherIndex.view('T2');
      await otherIndex.failed('T2', other?.generation ?? '', 'unavailable: 503');
      expect((await otherIndex.view('T2'))?.state).toMatchObject({ refreshedAt: null });
      clock.advance(60_000);
      const due = await store.zoneIndex.due(staleBefore(), retryBefore(), 10);
      expect(due).toHaveLength(2);
      expect(due).toEqual(
        expect.arrayContaining([t1, { workspaceId: 'T2', accountId: otherIndex.accountId }]),
      );
    });
  });
}
