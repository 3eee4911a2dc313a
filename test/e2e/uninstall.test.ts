// Uninstall and token revocation: tokens and the CDN key are deleted, reports and watches wait
// (nothing runs without a key; they are not paused, so a reinstall loses nothing), pending
// purge-everything requests expired (an old Approve button can no longer purge), and it is audited.
// The rest of the workspace's data stays for the grace period (UNINSTALLED_DATA_RETENTION_DAYS),
// then the retention sweep deletes it; a reinstall (over OAuth) within the grace keeps it all.
import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS } from '../../src/blocks/ids.js';
import { DELETED_AT_UNINSTALL, PAGE_PATHS } from '../../src/pages.js';
import { API_TOKEN_PREFIX, hashApiToken } from '../../src/services/api/api-tokens.js';
import {
  everythingRequests,
  installOverOAuth,
  interval,
  OAUTH,
  OAUTH_ENV,
  pendingApprovals,
  requestEverything,
  watching,
} from './flows.js';
import { ADMIN, CDN_KEY, CHANNEL, type Harness, OTHER, startHarness } from './harness.js';

const DAY = 86_400_000;
/** What the workspace keeps besides its keys: settings, default zones, reports, watches, history. */
async function kept(h: Harness) {
  const { store, workspaceId } = h;
  return {
    workspace: (await store.workspaces.get(workspaceId)) !== undefined,
    reports: (await store.schedules.listForWorkspace(workspaceId)).map((s) => s.status),
    watches: (await store.watches.listForWorkspace(workspaceId)).length,
    audit: (await store.audit.recent(workspaceId, { limit: 100 })).length,
  };
}

const BOT_TOKEN = 'xoxb-installed-secret-token';

/** The workspace's Slack installation (its tokens) is gone. */
async function expectNoInstallation(h: Harness): Promise<void> {
  await expect(
    h.store.installations.fetchInstallation({
      teamId: h.workspaceId,
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    }),
  ).rejects.toThrow('No installation');
}

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
  it('app_uninstalled deletes tokens and key, expires approvals, leaves reports waiting, and audits it', async () => {
    const h = await startHarness();
    const request = await workspaceWithEverything(h);

    const answer = await h.event({ type: 'app_uninstalled' });
    expect(answer.status).toBe(200);
    await h.logs.waitFor('workspace access revoked');

    expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
    await expectNoInstallation(h);
    const [schedule] = await h.store.schedules.listForWorkspace(h.workspaceId);
    // Not paused (nothing would resume it after a reinstall): without a key, it waits.
    expect(schedule).toMatchObject({ status: 'active', pausedReason: null });
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({
      action: 'app.uninstalled',
      actorId: 'slack',
      detail: { keyDeleted: true, approvalsExpired: 1, reportsWaiting: 1, watchesWaiting: 0 },
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

  it('keeps the rest of the workspace through the grace period, and a later sweep deletes it', async () => {
    const h = await startHarness();
    await watching(h, 'example.com');
    await workspaceWithEverything(h);

    await h.event({ type: 'app_uninstalled' });
    await h.logs.waitFor('workspace access revoked');
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit?.detail).toMatchObject({
      dataDeletedAfter: new Date(h.clock.now() + 30 * DAY).toISOString(),
    });
    // Nothing is polled for the workspace meanwhile: its watch waits, as without a key.
    const evaluations = h.sandbox.requests.length;
    await interval(h, 3);
    expect(h.sandbox.requests.length).toBe(evaluations);

    h.clock.advance(29 * DAY);
    // Its report, past its time every day, waits too.
    expect(await h.deps.reports.tick()).toEqual({ queued: 0, skipped: 0 });
    await h.deps.retention.sweep();
    const during = await kept(h);
    expect(during).toMatchObject({ workspace: true, reports: ['active'], watches: 1 });
    expect(during.audit).toBeGreaterThan(1);

    h.clock.advance(DAY + 1);
    expect((await h.deps.retention.sweep()).uninstalled).toBeGreaterThan(0);
    expect(await kept(h)).toEqual({ workspace: false, reports: [], watches: 0, audit: 0 });
    await h.logs.waitFor("uninstalled workspace's data deleted");
  });

  it('a reinstall within the grace period loses nothing: log in again and the watch resumes', async () => {
    const h = await startHarness({ slack: { oauth: OAUTH }, env: OAUTH_ENV });
    await installOverOAuth(h);
    await watching(h, 'example.com');
    await h.command('report example.com daily 09:00', { user: ADMIN });
    await h.slack.waitForMessages((m) => m.text?.includes('scheduled') ?? false);
    await h.event({ type: 'app_uninstalled' });
    await h.logs.waitFor('workspace access revoked');
    const before = await kept(h);

    h.clock.advance(20 * DAY);
    await installOverOAuth(h);
    h.clock.advance(20 * DAY);
    await h.deps.retention.sweep();
    expect(await kept(h)).toEqual(before);
    expect(before).toMatchObject({ watches: 1, reports: ['active'] });
    // Without a key nothing ran meanwhile.
    expect(await h.deps.reports.tick()).toEqual({ queued: 0, skipped: 0 });

    // The key was deleted at the uninstall: once an admin logs in again, the watch polls again
    // and the report runs again, by themselves.
    const evaluations = h.sandbox.requests.length;
    await h.login();
    await interval(h, 2);
    expect(h.sandbox.requests.length).toBeGreaterThan(evaluations);
    const caughtUp = await h.deps.reports.tick();
    expect(caughtUp.queued + caughtUp.skipped).toBe(1);
    h.clock.advance(DAY);
    expect(await h.deps.reports.tick()).toEqual({ queued: 1, skipped: 0 });
  });

  it('keeps the privacy page: what it says goes at once goes, and the rest after the grace it names', async () => {
    const h = await startHarness({ login: true });
    await workspaceWithEverything(h);
    const secret = `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    await h.store.apiTokens.create({
      workspaceId: h.workspaceId,
      name: 'ci',
      hash: hashApiToken(secret),
      hint: secret.slice(0, 9),
      accountId: null,
      allAccounts: true,
      zones: null,
      kinds: ['urls_tags'],
      channelId: CHANNEL,
      createdBy: ADMIN,
    });
    await h.command('zones', { user: ADMIN });
    await h.slack.waitForMessages((m) => m.text?.includes('example.com') ?? false);
    // Something of each promise exists before: the checks below could fail.
    const loginAccount = await h.loginAccountId();
    expect(
      (await h.store.zoneIndex.forAccount(loginAccount).all(h.workspaceId)).length,
    ).toBeGreaterThan(0);
    expect(await pendingApprovals(h)).toHaveLength(1);
    const page = await (await fetch(`${h.url}${PAGE_PATHS.privacy}`)).text();

    await h.event({ type: 'app_uninstalled' });
    await h.logs.waitFor('workspace access revoked');
    /** One check for each promise the page makes: a new promise fails here until it has one. */
    const checks: Record<keyof typeof DELETED_AT_UNINSTALL, () => Promise<void>> = {
      slackTokens: () => expectNoInstallation(h),
      cdnKeys: async () => {
        expect(await h.store.credentials.get(h.workspaceId)).toBeUndefined();
        for (const account of await h.store.accounts.list(h.workspaceId)) {
          expect(await h.store.accounts.credential(h.workspaceId, account.id)).toBeUndefined();
        }
        expect(await h.store.zoneIndex.forAccount(loginAccount).all(h.workspaceId)).toEqual([]);
      },
      apiTokens: async () => {
        const tokens = await h.store.apiTokens.list(h.workspaceId);
        expect(tokens.map((token) => token.revokedAt !== null)).toEqual([true]);
      },
      approvals: async () => {
        expect(await pendingApprovals(h)).toEqual([]);
      },
    };
    expect(Object.keys(checks)).toEqual(Object.keys(DELETED_AT_UNINSTALL));
    for (const [key, check] of Object.entries(checks)) {
      expect(page, key).toContain(DELETED_AT_UNINSTALL[key as keyof typeof checks]);
      await check();
    }

    // "30 days later, everything else of the workspace is deleted" (the harness's default grace).
    expect(page).toContain('30 days later, everything else of the workspace is deleted');
    h.clock.advance(30 * DAY - 1);
    await h.deps.retention.sweep();
    expect((await kept(h)).workspace).toBe(true);
    h.clock.advance(2);
    await h.deps.retention.sweep();
    expect(await kept(h)).toEqual({ workspace: false, reports: [], watches: 0, audit: 0 });
    expect(await h.store.apiTokens.list(h.workspaceId)).toEqual([]);
    expect(await h.store.accounts.list(h.workspaceId)).toEqual([]);
  });
});
