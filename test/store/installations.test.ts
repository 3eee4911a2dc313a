import type { Installation } from '@slack/bolt';
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { BACKENDS, testStore } from '../helpers/store.js';

const teamInstall: Installation<'v2', false> = {
  team: { id: 'T1', name: 'Acme' },
  enterprise: undefined,
  user: { id: 'U1', token: 'xoxp-user-secret', scopes: ['identify'] },
  bot: { id: 'B1', userId: 'UBOT', token: 'xoxb-bot-secret', scopes: ['commands', 'chat:write'] },
  appId: 'A1',
  tokenType: 'bot',
  isEnterpriseInstall: false,
  authVersion: 'v2',
};

const orgInstall: Installation<'v2', true> = {
  team: undefined,
  enterprise: { id: 'E1', name: 'Acme Org' },
  user: { id: 'U2', token: undefined, scopes: undefined },
  bot: { id: 'B2', userId: 'UBOT2', token: 'xoxb-org-secret', scopes: ['commands'] },
  appId: 'A1',
  tokenType: 'bot',
  isEnterpriseInstall: true,
  authVersion: 'v2',
};

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`installations on ${backend}`, () => {
    it('stores, fetches and deletes team and org-wide installs', async () => {
      const { store } = await testStore(backend);
      await store.installations.storeInstallation(teamInstall);
      await store.installations.storeInstallation(orgInstall);

      expect(
        await store.installations.fetchInstallation({
          teamId: 'T1',
          enterpriseId: undefined,
          isEnterpriseInstall: false,
        }),
      ).toEqual(teamInstall);
      // A workspace inside the org finds the org-wide install.
      expect(
        await store.installations.fetchInstallation({
          teamId: 'T7',
          enterpriseId: 'E1',
          isEnterpriseInstall: true,
        }),
      ).toEqual(orgInstall);

      await store.installations.deleteInstallation({
        teamId: 'T1',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      await expect(
        store.installations.fetchInstallation({
          teamId: 'T1',
          enterpriseId: undefined,
          isEnterpriseInstall: false,
        }),
      ).rejects.toThrow('No installation for T:T1');
    });

    it('replaces an installation on reinstall and keeps tokens sealed', async () => {
      const { store } = await testStore(backend);
      await store.installations.storeInstallation(teamInstall);
      const reinstalled = {
        ...teamInstall,
        bot: { ...teamInstall.bot, token: 'xoxb-new-secret' },
      } as Installation;
      await store.installations.storeInstallation(reinstalled);
      const rows = await store.db.selectFrom('slack_installations').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]?.installation).not.toContain('xoxb');
      const fetched = await store.installations.fetchInstallation({
        teamId: 'T1',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(fetched.bot?.token).toBe('xoxb-new-secret');
    });

    it('updates one caller at a time: a second replica waits, then sees what the first stored', async () => {
      const { store: first, database } = await testStore(backend);
      await first.installations.storeInstallation(orgInstall);
      // A second process on PostgreSQL; SQLite serves one process, whose own queue is the lock.
      const second =
        backend === 'postgres' ? (await testStore(backend, { database })).store : first;
      const q = { teamId: undefined, enterpriseId: 'E1', isEnterpriseInstall: true } as const;
      const seen: string[] = [];
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const one = first.installations.updateLocked(q, async (current) => {
        seen.push(`first saw ${current.bot?.token}`);
        await held;
        return { ...current, bot: { ...current.bot, token: 'xoxb-refreshed' } } as Installation;
      });
      await vi.waitFor(() => expect(seen).toHaveLength(1));
      const two = second.installations.updateLocked(q, async (current) => {
        seen.push(`second saw ${current.bot?.token}`);
        return undefined;
      });
      // The second waits on the row's lock (PostgreSQL) before the first is let go.
      if (backend === 'postgres')
        await vi.waitFor(async () => {
          const { rows } = await sql<{
            waiting: string;
          }>`select count(*) as waiting from pg_locks where not granted`.execute(first.db);
          expect(Number(rows[0]?.waiting)).toBeGreaterThan(0);
        });
      release();
      const [a, b] = await Promise.all([one, two]);
      expect(a.bot?.token).toBe('xoxb-refreshed');
      expect(b.bot?.token).toBe('xoxb-refreshed');
      // On SQLite the second joined the first's update; on PostgreSQL it ran after it.
      expect(seen).toEqual(
        backend === 'postgres'
          ? ['first saw xoxb-org-secret', 'second saw xoxb-refreshed']
          : ['first saw xoxb-org-secret'],
      );
    });
  });
}
