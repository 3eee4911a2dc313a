// Workspaces' settings, and the login key (`/cdn login`): the key of the workspace's account
// LOGIN_ACCOUNT, sealed for its workspace and account.
import { describe, expect, it } from 'vitest';
import { LOGIN_ACCOUNT } from '../../src/store/credentials.js';
import { BACKENDS, testStore } from '../helpers/store.js';

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`workspaces and credentials on ${backend}`, () => {
    it('creates a workspace with defaults once and updates its settings', async () => {
      const { store, clock } = await testStore(backend);
      const created = await store.workspaces.ensure('T1', 'E1');
      expect(created).toMatchObject({
        id: 'T1',
        enterpriseId: 'E1',
        approvalTtlMinutes: 30,
        guestAccess: 'read',
        reportTimeOfDay: '09:00',
      });
      clock.advance(1_000);
      expect(await store.workspaces.ensure('T1')).toEqual(created);
      const updated = await store.workspaces.update('T1', {
        approverGroupId: 'S123',
        approvalTtlMinutes: 15,
        guestAccess: 'operate',
        reportTimeOfDay: '07:30',
      });
      expect(updated).toMatchObject({
        approverGroupId: 'S123',
        approvalTtlMinutes: 15,
        guestAccess: 'operate',
        operatorGroupId: null,
      });
      expect(updated.updatedAt).toBe(created.createdAt + 1_000);
      expect(await store.workspaces.get('T9')).toBeUndefined();
    });

    it('keeps one login key per workspace: set, read, replace, status without the key, delete', async () => {
      const { store, clock } = await testStore(backend);
      await store.credentials.set('T1', 'key-one', { userId: 'U1', validated: true });
      await store.credentials.set('T2', 'key-two', { userId: 'U2', validated: false });
      clock.advance(5_000);
      await store.credentials.set('T1', 'key-one-b', { userId: 'U3', validated: true });

      expect(await store.credentials.get('T1')).toMatchObject({ apiKey: 'key-one-b', setBy: 'U3' });
      expect((await store.credentials.get('T2'))?.apiKey).toBe('key-two');
      const status = await store.credentials.status('T2');
      expect(status).toEqual({
        workspaceId: 'T2',
        setBy: 'U2',
        setAt: expect.any(Number),
        lastValidatedAt: null,
      });
      expect(JSON.stringify(status)).not.toContain('key-two');
      // A key saved as checked carries when it was: T1's, replaced 5 s in.
      expect((await store.credentials.status('T1'))?.lastValidatedAt).toBe(clock.now());

      expect(await store.credentials.delete('T1')).toBe(true);
      expect(await store.credentials.delete('T1')).toBe(false);
      expect(await store.credentials.get('T1')).toBeUndefined();
    });

    it('reads the login key with its account’s base URL, as a CDN client needs them', async () => {
      const { store } = await testStore(backend);
      await store.credentials.set('T1', 'key-one', { userId: 'U1', validated: true });
      const account = await store.accounts.byName('T1', LOGIN_ACCOUNT);
      expect(await store.credentials.get('T1')).toMatchObject({
        accountId: account?.id,
        apiKey: 'key-one',
        baseUrl: null,
        generation: account?.generation,
      });
      await store.accounts.setBaseUrl('T1', account?.id as string, 'https://cdn.example.net/v1');
      expect(await store.credentials.get('T1')).toMatchObject({
        apiKey: 'key-one',
        baseUrl: 'https://cdn.example.net/v1',
      });
      // A login with a base URL sets the account's.
      await store.credentials.set(
        'T1',
        'key-two',
        { userId: 'U1', validated: true },
        'https://eu.cdn.example.net/v1',
      );
      expect(await store.credentials.get('T1')).toMatchObject({
        accountId: account?.id,
        apiKey: 'key-two',
        baseUrl: 'https://eu.cdn.example.net/v1',
      });
      expect(await store.credentials.get('T2')).toBeUndefined();
      await store.credentials.delete('T1');
      expect(await store.credentials.get('T1')).toBeUndefined();
      // Another account's key is not the login key.
      await store.accounts.create('T2', {
        name: 'staging',
        apiKey: 'key-staging',
        by: { userId: 'U1', validated: true },
      });
      expect(await store.credentials.get('T2')).toBeUndefined();
      expect(await store.credentials.status('T2')).toBeUndefined();
      expect(await store.credentials.delete('T2')).toBe(false);
    });

    it('refuses a key row moved to another workspace', async () => {
      const { store } = await testStore(backend);
      await store.credentials.set('T1', 'key-one', { userId: 'U1', validated: true });
      await store.workspaces.ensure('T2');
      // The login account's row, moved as it is to T2: its key was sealed for T1.
      await store.db.updateTable('cdn_accounts').set({ workspace_id: 'T2' }).execute();
      expect(await store.credentials.get('T1')).toBeUndefined();
      await expect(store.credentials.get('T2')).rejects.toMatchObject({ code: 'secret_rejected' });
    });
  });
}
