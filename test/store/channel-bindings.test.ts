// Channel default zones and purge channels on both databases: per workspace and channel, seen by
// every replica, tied to the key generation they were chosen under.
import { describe, expect, it } from 'vitest';
import { BACKENDS, testStore } from '../helpers/store.js';

const SHOP = { id: 'z3', name: 'shop.example.org' };
const EXAMPLE = { id: 'z1', name: 'example.com' };

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`channel bindings on ${backend}`, () => {
    async function keyed() {
      const fixture = await testStore(backend);
      await fixture.store.credentials.set('T1', 'key-one', { userId: 'U1', validated: true });
      const generation = await fixture.store.channelBindings.keyGeneration('T1');
      if (!generation) throw new Error('no key generation');
      return { ...fixture, generation };
    }

    it('keeps one default per workspace and channel, replaced, cleared, and seen by every replica', async () => {
      const { store, database, clock, generation } = await keyed();
      const replica = (await testStore(backend, { database, clock })).store;
      const bindings = store.channelBindings;
      expect(await bindings.view('T1', 'C1')).toEqual({
        keyGeneration: generation,
        binding: undefined,
      });

      await bindings.set('T1', 'C1', SHOP, generation, 'U1');
      await bindings.set('T1', 'C2', EXAMPLE, generation, 'U2');
      await store.workspaces.ensure('T2');
      await bindings.set('T2', 'C1', EXAMPLE, 'other', 'U9');
      expect((await replica.channelBindings.view('T1', 'C1')).binding).toEqual({
        workspaceId: 'T1',
        channelId: 'C1',
        zoneId: 'z3',
        zoneName: 'shop.example.org',
        generation,
        setBy: 'U1',
        setAt: clock.now(),
      });

      // Set again from the other replica: one row, the latest zone.
      await replica.channelBindings.set('T1', 'C1', EXAMPLE, generation, 'U3');
      expect((await bindings.view('T1', 'C1')).binding).toMatchObject({
        zoneId: 'z1',
        setBy: 'U3',
      });
      expect((await bindings.list('T1', generation)).map((b) => [b.channelId, b.zoneName])).toEqual(
        [
          ['C1', 'example.com'],
          ['C2', 'example.com'],
        ],
      );

      expect(await bindings.clear('T1', 'C1')).toBe(true);
      expect(await replica.channelBindings.clear('T1', 'C1')).toBe(false);
      expect((await bindings.view('T1', 'C1')).binding).toBeUndefined();
      // Other workspaces' channels of the same id are their own.
      expect((await bindings.view('T2', 'C1')).binding?.zoneId).toBe('z1');
    });

    it('sees a binding from before a key change as stale, and drops only those', async () => {
      const { store, generation } = await keyed();
      const bindings = store.channelBindings;
      await bindings.set('T1', 'C1', SHOP, generation, 'U1');
      await store.credentials.set('T1', 'key-two', { userId: 'U1', validated: true });
      const next = await bindings.keyGeneration('T1');
      expect(next).toBeDefined();
      expect(next).not.toBe(generation);
      const { keyGeneration, binding } = await bindings.view('T1', 'C1');
      expect(keyGeneration).toBe(next);
      expect(binding?.generation).toBe(generation);
      expect(await bindings.list('T1', next ?? '')).toEqual([]);

      await bindings.set('T1', 'C2', EXAMPLE, next ?? '', 'U1');
      expect(await bindings.dropStale('T1', next ?? '')).toBe(1);
      expect((await bindings.view('T1', 'C1')).binding).toBeUndefined();
      expect((await bindings.view('T1', 'C2')).binding?.zoneId).toBe('z1');

      // No key at all: nothing to match.
      await store.credentials.delete('T1');
      expect((await bindings.view('T1', 'C2')).keyGeneration).toBeUndefined();
    });

    it('replaces the purge channels at once, without duplicates, and clears them', async () => {
      const { store, database, clock } = await keyed();
      const replica = (await testStore(backend, { database, clock })).store;
      const bindings = store.channelBindings;
      expect(await bindings.purgeChannels('T1')).toEqual([]);
      await bindings.setPurgeChannels('T1', ['COPS', 'CINC', 'COPS'], 'U1');
      expect(await replica.channelBindings.purgeChannels('T1')).toEqual(['CINC', 'COPS']);
      await replica.channelBindings.setPurgeChannels('T1', ['CDEV'], 'U2');
      expect(await bindings.purgeChannels('T1')).toEqual(['CDEV']);
      expect(await bindings.purgeChannels('T2')).toEqual([]);
      await bindings.setPurgeChannels('T1', [], 'U1');
      expect(await bindings.purgeChannels('T1')).toEqual([]);
    });
  });
}
