// WorkspaceClients asks Bolt's authorize for a workspace's token, as a request from it would: the
// workspace's own install, else its organization's (as a request showed it, or as stored).
import type { Authorize } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { describe, expect, it, vi } from 'vitest';
import { WorkspaceClients } from '../../src/slack/workspace-clients.js';

const client = new WebClient();

/** An authorize that knows team T1's install and organization E1's org-wide one. */
function installs() {
  return vi.fn<Authorize<boolean>>(async (source) => {
    if (source.isEnterpriseInstall && source.enterpriseId === 'E1')
      return { botToken: 'xoxb-org', isEnterpriseInstall: true };
    if (!source.isEnterpriseInstall && source.teamId === 'T1')
      return { botToken: 'xoxb-t1', isEnterpriseInstall: false };
    throw new Error(`No installation for ${source.teamId}`);
  });
}

describe('WorkspaceClients.tokenFor', () => {
  it('asks authorize for the workspace’s own install', async () => {
    const authorize = installs();
    const clients = new WorkspaceClients(client, { authorize });
    expect(await clients.tokenFor('T1')).toBe('xoxb-t1');
    expect(authorize).toHaveBeenCalledExactlyOnceWith({
      teamId: 'T1',
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
  });

  it('falls back to the organization’s install, by the enterprise stored for the workspace', async () => {
    const authorize = installs();
    const clients = new WorkspaceClients(client, {
      authorize,
      enterpriseOf: async (id) => (id === 'T7' ? 'E1' : undefined),
    });
    expect(await clients.tokenFor('T7')).toBe('xoxb-org');
    expect(authorize.mock.calls.map(([source]) => source.isEnterpriseInstall)).toEqual([
      false,
      true,
    ]);
  });

  it('reads the stored enterprise once per workspace, not once per call', async () => {
    const authorize = installs();
    const enterpriseOf = vi.fn(async (id: string) => (id === 'T7' ? 'E1' : undefined));
    const clients = new WorkspaceClients(client, { authorize, enterpriseOf });
    for (let i = 0; i < 3; i++) {
      expect(await clients.tokenFor('T7')).toBe('xoxb-org');
      expect(await clients.tokenFor('T1')).toBe('xoxb-t1');
    }
    expect(enterpriseOf.mock.calls).toEqual([['T7'], ['T1']]);
  });

  it('asks straight for the org-wide install a request showed', async () => {
    const authorize = installs();
    const clients = new WorkspaceClients(client, { authorize });
    clients.remember('T8', { enterpriseId: 'E1', isEnterpriseInstall: true });
    expect(await clients.tokenFor('T8')).toBe('xoxb-org');
    expect(authorize).toHaveBeenCalledOnce();
  });

  it('fails naming the workspace, never a token, when nothing is installed', async () => {
    const clients = new WorkspaceClients(client, { authorize: installs() });
    await expect(clients.tokenFor('T9')).rejects.toThrow(/^no bot token for workspace T9$/);
  });

  it('uses the one token without authorize (single workspace, benchmarks)', async () => {
    const clients = new WorkspaceClients(client, { botToken: 'xoxb-single' });
    expect(await clients.tokenFor('ANY')).toBe('xoxb-single');
    expect(() => new WorkspaceClients(client, {})).toThrow('needs Bolt’s authorize or a bot token');
  });
});
