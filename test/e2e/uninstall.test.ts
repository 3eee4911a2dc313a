// Uninstall and token revocation: tokens and the CDN key are deleted, reports paused, pending
// purge-everything requests expired (an old Approve button can no longer purge), and it is audited.
import type { Installation } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS } from '../../src/blocks/ids.js';
import { everythingRequests, requestEverything } from './flows.js';
import { ADMIN, CDN_KEY, type Harness, OTHER, startHarness } from './harness.js';

const BOT_TOKEN = 'xoxb-installed-secret-token';

async function workspaceWithEverything(h: Harness) {
  await h.login();
  await h.store.installations.storeInstallation({
    team: { id: h.workspaceId, name: 'Fake' },
    enterprise: undefined,
    bot: { token: BOT_TOKEN, scopes: ['commands'], id: 'B1', userId: 'UBOT' },
    isEnterpriseInstall: false,
  } as Installation);
  await h.command('report example.com daily 09:00', { user: ADMIN });
  await h.slack.waitForMessages((m) => m.text?.includes('scheduled') ?? false);
  return requestEverything(h);
}

describe('when Slack revokes the app', () => {
  it('app_uninstalled deletes tokens and key, pauses reports, expires approvals, and audits it', async () => {
    const h = await startHarness();
    const request = await workspaceWithEverything(h);

    const answer = await h.event({ type: 'app_uninstalled' });
    expect(answer.status).toBe(200);
    await h.logs.waitFor('workspace access revoked');

    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
    await expect(
      h.store.installations.fetchInstallation({
        teamId: h.workspaceId,
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      }),
    ).rejects.toThrow('No installation');
    const [schedule] = await h.store.schedules.listForWorkspace(h.workspaceId);
    expect(schedule).toMatchObject({
      status: 'paused',
      pausedReason: expect.stringContaining('uninstalled'),
    });
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({
      action: 'app.uninstalled',
      actorId: 'slack',
      detail: { keyDeleted: true, schedulesPaused: 1, approvalsExpired: 1 },
    });
    const everything = JSON.stringify(await h.store.audit.recent(h.workspaceId, { limit: 50 }));
    expect(everything).not.toContain(CDN_KEY);
    expect(everything).not.toContain(BOT_TOKEN);

    // The request's Approve button, still in the channel, no longer leads to a purge.
    await h.click(request, APPROVAL_IDS.approve, { user: OTHER });
    const [refusal] = await h.slack.waitForMessages((m) => m.ephemeralTo === OTHER);
    expect(refusal?.text).toBe('This request has expired.');
    expect(h.slack.callsTo('views.open')).toHaveLength(1);
    expect(everythingRequests(h)).toEqual([]);

    // Delivered twice (Slack retries): nothing more to do, and nothing breaks.
    expect((await h.event({ type: 'app_uninstalled' })).status).toBe(200);
    await h.logs.waitFor('"approvalsExpired":0');
  });

  it('tokens_revoked acts on a revoked bot token, not on user tokens alone', async () => {
    const h = await startHarness();
    await workspaceWithEverything(h);

    await h.event({ type: 'tokens_revoked', tokens: { oauth: ['UOTHER'] } });
    await h.event({ type: 'tokens_revoked', tokens: { oauth: [], bot: ['UBOT'] } });
    await h.logs.waitFor('workspace access revoked');
    const actions = (await h.store.audit.recent(h.workspaceId)).map((e) => e.action);
    expect(actions.filter((a) => a === 'tokens.revoked')).toHaveLength(1);
    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
  });
});
