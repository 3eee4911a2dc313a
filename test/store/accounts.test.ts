// A workspace's named CDN accounts (issue 29) on both backends: names, keys, the account `default`.
import { describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNT } from '../../src/store/accounts.js';
import { Keyring } from '../../src/store/crypto.js';
import { openStore } from '../../src/store/index.js';
import { rotateSecrets } from '../../src/store/rotate.js';
import { BACKENDS, testKey, testStore } from '../helpers/store.js';

const BY = { userId: 'U1', validated: true };

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`CDN accounts on ${backend}`, () => {
    it('creates accounts with slug names, unique per workspace in any case', async () => {
      const { store } = await testStore(backend);
      const prod = await store.accounts.create('T1', { name: 'prod', apiKey: 'sk_prod', by: BY });
      const staging = await store.accounts.create('T1', {
        name: 'Staging',
        baseUrl: 'https://staging.cdn.example/v1',
        by: BY,
      });
      // Another workspace may use the same name.
      await store.accounts.create('T2', { name: 'prod', by: BY });

      expect(prod).toMatchObject({ name: 'prod', hasKey: true, setBy: 'U1', zoneCount: null });
      expect(staging).toMatchObject({
        name: 'Staging',
        hasKey: false,
        baseUrl: 'https://staging.cdn.example/v1',
        generation: null,
      });
      expect((await store.accounts.list('T1')).map((a) => a.name)).toEqual(['prod', 'Staging']);
      expect((await store.accounts.byName('T1', 'STAGING'))?.id).toBe(staging.id);
      expect(await store.accounts.byName('T1', 'qa')).toBeUndefined();
      expect(await store.accounts.byName('T1', '../prod')).toBeUndefined();
      expect(await store.accounts.get('T2', prod.id)).toBeUndefined();

      await expect(store.accounts.create('T1', { name: 'PROD', by: BY })).rejects.toMatchObject({
        code: 'account_name_taken',
      });
      for (const bad of ['', '-prod', 'prod-', 'pr od', 'a'.repeat(33), 'prød', 'prod/eu']) {
        await expect(store.accounts.create('T1', { name: bad, by: BY })).rejects.toMatchObject({
          code: 'account_name_invalid',
        });
      }
      expect(await store.accounts.list('T1')).toHaveLength(2);
    });

    it('renames an account, refusing a taken name and the name default', async () => {
      const { store } = await testStore(backend);
      const prod = await store.accounts.create('T1', { name: 'prod', by: BY });
      await store.accounts.create('T1', { name: 'staging', by: BY });
      expect((await store.accounts.rename('T1', prod.id, 'Production')).name).toBe('Production');
      expect((await store.accounts.byName('T1', 'production'))?.id).toBe(prod.id);
      await expect(store.accounts.rename('T1', prod.id, 'STAGING')).rejects.toMatchObject({
        code: 'account_name_taken',
      });
      await expect(store.accounts.rename('T1', prod.id, 'Default')).rejects.toMatchObject({
        code: 'account_default_reserved',
      });
      await store.credentials.set('T1', 'sk_default', BY);
      const fallback = (await store.accounts.byName('T1', DEFAULT_ACCOUNT))?.id as string;
      await expect(store.accounts.rename('T1', fallback, 'legacy')).rejects.toMatchObject({
        code: 'account_default_reserved',
      });
      await expect(store.accounts.rename('T1', 'nope', 'qa')).rejects.toMatchObject({
        code: 'account_not_found',
      });
    });

    it('keeps each key sealed for its own account, under a new generation each time', async () => {
      const { store } = await testStore(backend);
      const prod = await store.accounts.create('T1', { name: 'prod', apiKey: 'sk_prod', by: BY });
      const staging = await store.accounts.create('T1', {
        name: 'staging',
        baseUrl: 'https://staging.cdn.example/v1',
        apiKey: 'sk_staging',
        by: BY,
      });
      const first = await store.accounts.credential('T1', staging.id);
      expect(first).toMatchObject({
        apiKey: 'sk_staging',
        baseUrl: 'https://staging.cdn.example/v1',
        name: 'staging',
      });
      const rekeyed = await store.accounts.setKey('T1', staging.id, 'sk_staging_2', {
        userId: 'U2',
        validated: false,
      });
      expect(rekeyed).toMatchObject({ setBy: 'U2', lastValidatedAt: null });
      expect(rekeyed.generation).not.toBe(first?.generation);
      expect((await store.accounts.credential('T1', staging.id))?.apiKey).toBe('sk_staging_2');
      expect((await store.accounts.credential('T1', prod.id))?.apiKey).toBe('sk_prod');
      await store.accounts.markValidated('T1', staging.id, rekeyed.generation as string);
      expect((await store.accounts.get('T1', staging.id))?.lastValidatedAt).not.toBeNull();

      // Nothing stored is the key; a key moved to another account does not open.
      const rows = await store.db.selectFrom('cdn_accounts').select(['id', 'api_key']).execute();
      expect(JSON.stringify(rows)).not.toContain('sk_');
      const prodKey = rows.find((r) => r.id === prod.id)?.api_key as string;
      await store.db
        .updateTable('cdn_accounts')
        .set({ api_key: prodKey })
        .where('id', '=', staging.id)
        .execute();
      await expect(store.accounts.credential('T1', staging.id)).rejects.toMatchObject({
        code: 'secret_rejected',
      });
      // No account of another workspace is reached by its id.
      expect(await store.accounts.credential('T2', prod.id)).toBeUndefined();
    });

    it('is the account default that /cdn login and logout set, and it keeps its id', async () => {
      const { store } = await testStore(backend);
      await store.workspaces.update('T1', { cdnBaseUrl: 'https://eu.cdn.example/v1' });
      await store.credentials.set('T1', 'sk_one', BY);
      const [account] = await store.accounts.list('T1');
      const credential = await store.credentials.get('T1');
      expect(account).toMatchObject({
        name: 'default',
        hasKey: true,
        baseUrl: 'https://eu.cdn.example/v1',
        generation: credential?.generation,
      });
      const id = account?.id as string;
      expect(await store.accounts.credential('T1', id)).toMatchObject({
        apiKey: 'sk_one',
        baseUrl: 'https://eu.cdn.example/v1',
        generation: credential?.generation,
      });
      // The account holds the key too (cdn_credentials is its copy for older replicas).
      const row = await store.db
        .selectFrom('cdn_accounts')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ generation: credential?.generation, sealed_as: 'account' });
      expect(
        store.keyring.decrypt(row.api_key as string, {
          workspace: 'T1',
          column: 'cdn_accounts.api_key',
          row: id,
        }),
      ).toBe('sk_one');

      expect(await store.credentials.delete('T1')).toBe(true);
      expect(await store.credentials.get('T1')).toBeUndefined();
      expect(await store.accounts.get('T1', id)).toMatchObject({ hasKey: false, generation: null });
      expect(await store.accounts.credential('T1', id)).toBeUndefined();
      expect(await store.credentials.delete('T1')).toBe(false);

      await store.credentials.set('T1', 'sk_two', BY);
      expect((await store.accounts.list('T1')).map((a) => a.id)).toEqual([id]);
      expect((await store.accounts.credential('T1', id))?.apiKey).toBe('sk_two');
      // The account's base URL is the workspace's (`/cdn login` sets both).
      await store.accounts.setBaseUrl('T1', id, null);
      expect((await store.workspaces.get('T1'))?.cdnBaseUrl).toBeNull();
    });

    it('reads default where an older replica writes it, during a rolling upgrade', async () => {
      const { store } = await testStore(backend);
      await store.credentials.set('T1', 'sk_new_code', BY);
      const id = (await store.accounts.byName('T1', 'default'))?.id as string;
      // An older replica's /cdn login writes cdn_credentials and workspaces only.
      await store.db
        .updateTable('cdn_credentials')
        .set({
          api_key: store.keyring.encrypt('sk_old_code', {
            workspace: 'T1',
            column: 'cdn_credentials.api_key',
          }),
          generation: 'gen-old-replica',
        })
        .where('workspace_id', '=', 'T1')
        .execute();
      await store.db
        .updateTable('workspaces')
        .set({ cdn_base_url: 'https://old.cdn.example/v1' })
        .execute();
      expect(await store.accounts.credential('T1', id)).toMatchObject({
        apiKey: 'sk_old_code',
        generation: 'gen-old-replica',
        baseUrl: 'https://old.cdn.example/v1',
      });
      expect(await store.accounts.get('T1', id)).toMatchObject({ generation: 'gen-old-replica' });
      // Its /cdn logout: no key, for every reader.
      await store.db.deleteFrom('cdn_credentials').execute();
      expect(await store.accounts.credential('T1', id)).toBeUndefined();
      expect(await store.accounts.get('T1', id)).toMatchObject({ hasKey: false });
    });

    it("drops an account's zone index with its key, and only that account's", async () => {
      const { store, clock } = await testStore(backend);
      await store.credentials.set('T1', 'sk_default', BY);
      const staging = await store.accounts.create('T1', {
        name: 'staging',
        apiKey: 'sk_staging',
        by: BY,
      });
      const generation = (await store.credentials.get('T1'))?.generation as string;
      // Today's index: one per workspace, the default account's, written without an account id.
      await store.db
        .insertInto('zone_index_state')
        .values({
          workspace_id: 'T1',
          account_id: null,
          generation,
          refreshed_at: clock.now(),
          cdn_total: 3,
          zone_count: 3,
          lease_owner: null,
          lease_until: null,
          failed_at: null,
          error: null,
          updated_at: clock.now(),
        })
        .execute();
      const zoneCounts = async () =>
        Object.fromEntries((await store.accounts.list('T1')).map((a) => [a.name, a.zoneCount]));
      expect(await zoneCounts()).toEqual({ default: 3, staging: null });

      await store.accounts.setKey('T1', staging.id, 'sk_staging_2', BY);
      expect(await zoneCounts()).toEqual({ default: 3, staging: null });
      await store.credentials.set('T1', 'sk_default_2', BY);
      expect(await zoneCounts()).toEqual({ default: null, staging: null });
      expect(await store.db.selectFrom('zone_index_state').selectAll().execute()).toEqual([]);
    });

    it('removes an account; removing default removes the single key too', async () => {
      const { store } = await testStore(backend);
      await store.credentials.set('T1', 'sk_default', BY);
      const staging = await store.accounts.create('T1', { name: 'staging', by: BY });
      expect(await store.accounts.remove('T1', staging.id)).toBe(true);
      expect(await store.accounts.remove('T1', staging.id)).toBe(false);
      const fallback = (await store.accounts.byName('T1', 'default'))?.id as string;
      expect(await store.accounts.remove('T1', fallback)).toBe(true);
      expect(await store.credentials.get('T1')).toBeUndefined();
      expect(await store.accounts.list('T1')).toEqual([]);
    });

    it('rotation re-seals every account key under the primary key', async () => {
      const OLD = testKey('k1', 1);
      const NEW = testKey('k2', 2);
      const { store, database } = await testStore(backend, { keys: [OLD] });
      await store.credentials.set('T1', 'sk_default', BY);
      const staging = await store.accounts.create('T1', {
        name: 'staging',
        apiKey: 'sk_staging',
        by: BY,
      });
      await store.close();

      const both = await openStore({ database, keyring: new Keyring([NEW, OLD]) });
      expect(await rotateSecrets(both.db, both.keyring, { batchSize: 1 })).toMatchObject({
        'cdn_accounts.api_key': 2,
        'cdn_credentials.api_key': 1,
      });
      await both.close();
      const newOnly = await openStore({ database, keyring: new Keyring([NEW]) });
      try {
        expect((await newOnly.accounts.credential('T1', staging.id))?.apiKey).toBe('sk_staging');
        expect((await newOnly.credentials.get('T1'))?.apiKey).toBe('sk_default');
        const keyIds = await newOnly.db.selectFrom('cdn_accounts').select('key_id').execute();
        expect(keyIds.map((r) => r.key_id)).toEqual(['k2', 'k2']);
      } finally {
        await newOnly.close();
      }
    });
  });
}
