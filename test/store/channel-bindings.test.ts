// Channel default zones and purge channels on both databases: per workspace and channel, seen by
// every replica, tied to the key generation of their account they were chosen under.
import { describe, expect, it } from 'vitest';
import { type ChannelBinding, NO_ZONE } from '../../src/store/channel-bindings.js';
import { BACKENDS, testStore } from '../helpers/store.js';

const SHOP = { id: 'z3', name: 'shop.example.org' };
const EXAMPLE = { id: 'z1', name: 'example.com' };
const BY = { userId: 'U1', validated: true };

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`channel bindings on ${backend}`, () => {
    /** A store whose workspace T1 has a login account with a key: its id and key generation. */
    async function keyed() {
      const fixture = await testStore(backend);
      await fixture.store.credentials.set('T1', 'key-one', BY);
      const login = await fixture.store.credentials.get('T1');
      if (!login) throw new Error('no login key');
      const generation = await fixture.store.channelBindings.keyGeneration('T1', login.accountId);
      expect(generation).toBe(login.generation);
      return { ...fixture, account: login.accountId, generation: login.generation };
    }

    it('keeps one default per workspace and channel, replaced, cleared, and seen by every replica', async () => {
      const { store, database, clock, account, generation } = await keyed();
      const replica = (await testStore(backend, { database, clock })).store;
      const bindings = store.channelBindings;
      // No binding: no account, so no key generation to match either.
      expect(await bindings.view('T1', 'C1')).toEqual({
        keyGeneration: undefined,
        binding: undefined,
      });

      await bindings.set('T1', 'C1', SHOP, generation, 'U1', account);
      await bindings.set('T1', 'C2', EXAMPLE, generation, 'U2', account);
      const other = await store.accounts.create('T2', { name: 'default', by: BY });
      await bindings.set('T2', 'C1', EXAMPLE, 'other', 'U9', other.id);
      expect(await replica.channelBindings.view('T1', 'C1')).toEqual({
        keyGeneration: generation,
        binding: {
          workspaceId: 'T1',
          channelId: 'C1',
          zoneId: 'z3',
          zoneName: 'shop.example.org',
          generation,
          setBy: 'U1',
          setAt: clock.now(),
          accountId: account,
        },
      });

      // Set again from the other replica: one row, the latest zone.
      await replica.channelBindings.set('T1', 'C1', EXAMPLE, generation, 'U3', account);
      expect((await bindings.view('T1', 'C1')).binding).toMatchObject({
        zoneId: 'z1',
        setBy: 'U3',
      });
      expect((await bindings.list('T1')).map((b) => [b.channelId, b.zoneName])).toEqual([
        ['C1', 'example.com'],
        ['C2', 'example.com'],
      ]);

      expect(await bindings.clear('T1', 'C1')).toBe(true);
      expect(await replica.channelBindings.clear('T1', 'C1')).toBe(false);
      expect((await bindings.view('T1', 'C1')).binding).toBeUndefined();
      // Other workspaces' channels of the same id are their own.
      expect((await bindings.view('T2', 'C1')).binding?.zoneId).toBe('z1');
    });

    it('sees a binding from before a key change as stale, and drops only those', async () => {
      const { store, account, generation } = await keyed();
      const bindings = store.channelBindings;
      await bindings.set('T1', 'C1', SHOP, generation, 'U1', account);
      await store.credentials.set('T1', 'key-two', BY);
      const next = await bindings.keyGeneration('T1', account);
      expect(next).toBeDefined();
      expect(next).not.toBe(generation);
      const { keyGeneration, binding } = await bindings.view('T1', 'C1');
      expect(keyGeneration).toBe(next);
      expect(binding?.generation).toBe(generation);
      expect(await bindings.list('T1')).toEqual([]);

      await bindings.set('T1', 'C2', EXAMPLE, next ?? '', 'U1', account);
      expect(await bindings.dropStale('T1', next ?? '', account)).toBe(1);
      expect((await bindings.view('T1', 'C1')).binding).toBeUndefined();
      expect((await bindings.view('T1', 'C2')).binding?.zoneId).toBe('z1');

      // No key at all: nothing to match.
      await store.credentials.delete('T1');
      expect((await bindings.view('T1', 'C2')).keyGeneration).toBeUndefined();
      expect(await bindings.list('T1')).toEqual([]);
    });

    it("reads each account's bindings under that account's key only", async () => {
      const { store, account, generation } = await keyed();
      const bindings = store.channelBindings;
      const staging = await store.accounts.create('T1', { name: 'staging', apiKey: 'k2', by: BY });
      const stagingGeneration = staging.generation ?? '';
      // The same zone id in both accounts; one channel bound to staging's account only.
      await bindings.set('T1', 'C1', EXAMPLE, generation, 'U1', account);
      await bindings.set('T1', 'C2', EXAMPLE, stagingGeneration, 'U1', staging.id);
      await bindings.set('T1', 'C3', NO_ZONE, stagingGeneration, 'U1', staging.id);
      const channels = (list: ChannelBinding[]) => list.map((b) => b.channelId);
      expect(channels(await bindings.list('T1'))).toEqual(['C1', 'C2', 'C3']);
      expect(channels(await bindings.list('T1', 2))).toEqual(['C1', 'C2']);
      expect(channels(await bindings.listOfAccount('T1', staging.id))).toEqual(['C2', 'C3']);
      expect(channels(await bindings.forZone('T1', account, 'z1'))).toEqual(['C1']);
      expect(channels(await bindings.forZone('T1', staging.id, 'z1'))).toEqual(['C2']);
      expect((await bindings.view('T1', 'C2')).keyGeneration).toBe(stagingGeneration);

      // Staging's new key makes its bindings stale, not the login account's.
      const renewed = await store.accounts.setKey('T1', staging.id, 'k3', BY);
      expect(channels(await bindings.list('T1'))).toEqual(['C1']);
      expect(channels(await bindings.listOfAccount('T1', account))).toEqual(['C1']);
      expect(await bindings.listOfAccount('T1', staging.id)).toEqual([]);
      expect(await bindings.dropStale('T1', renewed.generation ?? '', staging.id)).toBe(2);
      expect((await bindings.view('T1', 'C1')).binding?.accountId).toBe(account);
      expect((await bindings.view('T1', 'C2')).binding).toBeUndefined();
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
