import type { Installation } from '@slack/bolt';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_KEY_COLUMN, MOVED_KEY_COLUMN } from '../../src/store/accounts.js';
import { Keyring, type SecretContext } from '../../src/store/crypto.js';
import { openStore } from '../../src/store/index.js';
import { rotateSecrets } from '../../src/store/rotate.js';
import { BACKENDS, testKey, testStore } from '../helpers/store.js';

const OLD = testKey('k1', 1);
const NEW = testKey('k2', 2);

const install = (team: string): Installation => ({
  team: { id: team },
  enterprise: undefined,
  user: { id: 'U1', token: undefined, scopes: undefined },
  bot: { id: 'B1', userId: 'UB', token: `xoxb-${team}-secret`, scopes: ['commands'] },
  isEnterpriseInstall: false,
});

/** Fails after `after` decryptions: a rotation that crashes part-way. */
class CrashingKeyring extends Keyring {
  #left: number;
  constructor(keys: ConstructorParameters<typeof Keyring>[0], after: number) {
    super(keys);
    this.#left = after;
  }
  override decrypt(sealed: string, context: SecretContext): string {
    if (this.#left-- <= 0) throw new Error('simulated crash');
    return super.decrypt(sealed, context);
  }
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`key rotation on ${backend}`, () => {
    async function seeded() {
      const fixture = await testStore(backend, { keys: [OLD] });
      for (let i = 1; i <= 7; i++) {
        await fixture.store.credentials.set(`T${i}`, `cdn-key-${i}`, {
          userId: 'U1',
          validated: true,
        });
      }
      for (const team of ['T1', 'T2', 'T3'])
        await fixture.store.installations.storeInstallation(install(team));
      return fixture;
    }

    async function reopen(
      database: Parameters<typeof openStore>[0]['database'],
      keys: (typeof OLD)[],
    ) {
      const store = await openStore({ database, keyring: new Keyring(keys) });
      return store;
    }

    it('re-encrypts every secret under the new key, after which the old key can go', async () => {
      const { store, database } = await seeded();
      await store.close();

      const both = await reopen(database, [NEW, OLD]);
      const report = await rotateSecrets(both.db, both.keyring, { batchSize: 2 });
      expect(report).toEqual({
        'slack_installations.installation': 3,
        'cdn_accounts.api_key': 7,
      });
      expect(await rotateSecrets(both.db, both.keyring)).toEqual({
        'slack_installations.installation': 0,
        'cdn_accounts.api_key': 0,
      });
      const keyIds = await both.db.selectFrom('cdn_accounts').select('key_id').execute();
      expect(new Set(keyIds.map((r) => r.key_id))).toEqual(new Set(['k2']));
      await both.close();

      const newOnly = await reopen(database, [NEW]);
      for (let i = 1; i <= 7; i++) {
        expect((await newOnly.credentials.get(`T${i}`))?.apiKey).toBe(`cdn-key-${i}`);
      }
      const fetched = await newOnly.installations.fetchInstallation({
        teamId: 'T2',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(fetched.bot?.token).toBe('xoxb-T2-secret');
      await newOnly.close();
    });

    it('can be interrupted and run again', async () => {
      const { store, database } = await seeded();
      await store.close();

      // The 3 installations, then 4 of the 7 account keys, before the crash.
      const crashing = await openStore({ database, keyring: new CrashingKeyring([NEW, OLD], 7) });
      await expect(rotateSecrets(crashing.db, crashing.keyring, { batchSize: 3 })).rejects.toThrow(
        'simulated crash',
      );
      const partial = await crashing.db.selectFrom('cdn_accounts').select('key_id').execute();
      expect(partial.filter((r) => r.key_id === 'k2')).toHaveLength(4);
      await crashing.close();

      const both = await reopen(database, [NEW, OLD]);
      const report = await rotateSecrets(both.db, both.keyring);
      expect(report).toEqual({ 'slack_installations.installation': 0, [ACCOUNT_KEY_COLUMN]: 3 });
      await both.close();
      const newOnly = await reopen(database, [NEW]);
      for (let i = 1; i <= 7; i++) {
        expect((await newOnly.credentials.get(`T${i}`))?.apiKey).toBe(`cdn-key-${i}`);
      }
      await newOnly.close();
    });

    it('re-seals for its account a key still sealed as it was moved, even under the primary key', async () => {
      const { store } = await testStore(backend, { keys: [NEW] });
      await store.credentials.set('T1', 'sk_kept', { userId: 'U1', validated: true });
      // As 0034 moved a key: under the primary key already, but sealed for its old column.
      await store.db
        .updateTable('cdn_accounts')
        .set({
          api_key: store.keyring.encrypt('sk_moved', { workspace: 'T1', column: MOVED_KEY_COLUMN }),
          sealed_as: 'credentials',
        })
        .execute();
      expect((await store.credentials.get('T1'))?.apiKey).toBe('sk_moved');
      expect((await rotateSecrets(store.db, store.keyring))[ACCOUNT_KEY_COLUMN]).toBe(1);
      const row = await store.db
        .selectFrom('cdn_accounts')
        .select(['id', 'api_key', 'sealed_as', 'key_id'])
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ sealed_as: 'account', key_id: 'k2' });
      expect(
        store.keyring.decrypt(row.api_key as string, {
          workspace: 'T1',
          column: ACCOUNT_KEY_COLUMN,
          row: row.id,
        }),
      ).toBe('sk_moved');
      expect((await store.credentials.get('T1'))?.apiKey).toBe('sk_moved');
      expect((await rotateSecrets(store.db, store.keyring))[ACCOUNT_KEY_COLUMN]).toBe(0);
    });

    // Needs a synchronous second writer, which only SQLite offers; the SQL is the same on both.
    if (backend === 'sqlite') {
      it('never overwrites a key set while it runs', async () => {
        const { store, database } = await seeded();
        await store.close();
        if (database.kind !== 'sqlite') throw new Error('unreachable');
        const oldReplica = new Keyring([OLD]);
        const raw = new BetterSqlite3(database.path);
        // Between rotation's read of T1 and its write, an old replica (still on k1) sets a new key.
        const racing = new (class extends Keyring {
          override decrypt(sealed: string, context: SecretContext): string {
            if (context.workspace === 'T1' && context.column === ACCOUNT_KEY_COLUMN) {
              raw
                .prepare('update cdn_accounts set api_key = ?, key_id = ? where workspace_id = ?')
                .run(oldReplica.encrypt('set-meanwhile', context), 'k1', 'T1');
            }
            return super.decrypt(sealed, context);
          }
        })([NEW, OLD]);
        const rotating = await openStore({ database, keyring: racing });
        const report = await rotateSecrets(rotating.db, racing);
        raw.close();
        expect(report[ACCOUNT_KEY_COLUMN]).toBe(6);
        await rotating.close();

        const both = await reopen(database, [NEW, OLD]);
        expect((await both.credentials.get('T1'))?.apiKey).toBe('set-meanwhile');
        // The racing write is still under k1; the next run picks it up.
        expect((await rotateSecrets(both.db, both.keyring))[ACCOUNT_KEY_COLUMN]).toBe(1);
        await both.close();
      });
    }
  });
}
