import type { Installation } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
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
  });
}
