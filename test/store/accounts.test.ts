// A workspace's named CDN accounts on both backends: names, keys, and the login account (`default`),
// an account like any other.
import { describe, expect, it } from 'vitest';
import { type AccountCredential, MOVED_KEY_COLUMN } from '../../src/store/accounts.js';
import { LOGIN_ACCOUNT } from '../../src/store/credentials.js';
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

    it('renames an account, refusing a taken name; default renames like any other', async () => {
      const { store } = await testStore(backend);
      const prod = await store.accounts.create('T1', { name: 'prod', by: BY });
      await store.accounts.create('T1', { name: 'staging', by: BY });
      expect((await store.accounts.rename('T1', prod.id, 'Production')).name).toBe('Production');
      expect((await store.accounts.byName('T1', 'production'))?.id).toBe(prod.id);
      await expect(store.accounts.rename('T1', prod.id, 'STAGING')).rejects.toMatchObject({
        code: 'account_name_taken',
      });
      await expect(store.accounts.rename('T1', 'nope', 'qa')).rejects.toMatchObject({
        code: 'account_not_found',
      });

      // The login account is renamed, key and all; the next login makes a new `default`.
      await store.credentials.set('T1', 'sk_default', BY);
      const login = (await store.accounts.byName('T1', LOGIN_ACCOUNT))?.id as string;
      await expect(store.accounts.rename('T1', login, 'Production')).rejects.toMatchObject({
        code: 'account_name_taken',
      });
      expect(await store.accounts.rename('T1', login, 'legacy')).toMatchObject({
        id: login,
        name: 'legacy',
        hasKey: true,
      });
      expect((await store.accounts.credential('T1', login))?.apiKey).toBe('sk_default');
      expect(await store.credentials.get('T1')).toBeUndefined();
      await store.credentials.set('T1', 'sk_new', BY);
      const renewed = await store.accounts.byName('T1', LOGIN_ACCOUNT);
      expect(renewed?.id).not.toBe(login);
      expect((await store.credentials.get('T1'))?.accountId).toBe(renewed?.id);
      // Any account may take the name default while none has it.
      await store.accounts.rename('T1', renewed?.id as string, 'second');
      expect((await store.accounts.rename('T1', prod.id, 'Default')).name).toBe('Default');
      expect((await store.credentials.get('T1'))?.accountId).toBeUndefined();
      await store.credentials.set('T1', 'sk_prod', BY);
      expect((await store.credentials.get('T1'))?.accountId).toBe(prod.id);
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
      await store.credentials.set('T1', 'sk_one', BY, 'https://eu.cdn.example/v1');
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
      expect(credential).toMatchObject({ accountId: id, apiKey: 'sk_one', setBy: 'U1' });
      // The account holds the key, sealed for itself.
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
      // The base URL is the account's own.
      await store.accounts.setBaseUrl('T1', id, 'https://us.cdn.example/v1');
      expect((await store.credentials.get('T1'))?.baseUrl).toBe('https://us.cdn.example/v1');
    });

    it('reads a key still sealed as it was moved onto its account, and seals a new one for it', async () => {
      const { store } = await testStore(backend);
      await store.credentials.set('T1', 'sk_new', BY);
      const id = (await store.accounts.byName('T1', LOGIN_ACCOUNT))?.id as string;
      // A key the migration moved keeps the context it was sealed in (sealed_as 'credentials').
      await store.db
        .updateTable('cdn_accounts')
        .set({
          api_key: store.keyring.encrypt('sk_moved', { workspace: 'T1', column: MOVED_KEY_COLUMN }),
          sealed_as: 'credentials',
        })
        .where('id', '=', id)
        .execute();
      expect(await store.accounts.credential('T1', id)).toMatchObject({ apiKey: 'sk_moved' });
      expect((await store.credentials.get('T1'))?.apiKey).toBe('sk_moved');
      // A sealed key read in the other context does not open.
      await store.db
        .updateTable('cdn_accounts')
        .set({ sealed_as: 'account' })
        .where('id', '=', id)
        .execute();
      await expect(store.accounts.credential('T1', id)).rejects.toMatchObject({
        code: 'secret_rejected',
      });
      // A key set now is sealed for its account.
      await store.credentials.set('T1', 'sk_again', BY);
      const row = await store.db
        .selectFrom('cdn_accounts')
        .select('sealed_as')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.sealed_as).toBe('account');
      expect((await store.credentials.get('T1'))?.apiKey).toBe('sk_again');
    });

    it("drops an account's zone index with its key, and only that account's", async () => {
      const { store } = await testStore(backend);
      await store.credentials.set('T1', 'sk_default', BY);
      const staging = await store.accounts.create('T1', {
        name: 'staging',
        apiKey: 'sk_staging',
        by: BY,
      });
      const login = (await store.credentials.get('T1')) as AccountCredential;
      // The login account's index: three zones.
      const zones = ['a', 'b', 'c'].map((id) => ({
        id,
        name: `${id}.example.com`,
        status: 'active',
        createdAt: '2026-11-01T00:00:00Z',
      }));
      const index = store.zoneIndex.forAccount(login.accountId);
      expect(await index.replace('T1', login.generation, zones, 3)).toMatchObject({
        written: true,
      });
      const zoneCounts = async () =>
        Object.fromEntries((await store.accounts.list('T1')).map((a) => [a.name, a.zoneCount]));
      expect(await zoneCounts()).toEqual({ default: 3, staging: null });

      await store.accounts.setKey('T1', staging.id, 'sk_staging_2', BY);
      expect(await zoneCounts()).toEqual({ default: 3, staging: null });
      await store.credentials.set('T1', 'sk_default_2', BY);
      expect(await zoneCounts()).toEqual({ default: null, staging: null });
      expect(await store.db.selectFrom('zone_index_state').selectAll().execute()).toEqual([]);
      expect(await store.db.selectFrom('zone_index').selectAll().execute()).toEqual([]);
    });

    it('removes an account; removing default, like any other, removes its key (the login key)', async () => {
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
      expect(await rotateSecrets(both.db, both.keyring, { batchSize: 1 })).toEqual({
        'slack_installations.installation': 0,
        'cdn_accounts.api_key': 2,
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
