// Background work gets a workspace's token the way Bolt hands one to a request: through the App's
// authorize (the InstallProvider's, over the installation store), so an expiring rotating token is
// refreshed first, and a workspace inside an org-wide install finds its organization's token.
import type { Installation } from '@slack/bolt';
import { describe, expect, it, vi } from 'vitest';
import { RATELIMIT_FOLLOW_UP_JOB } from '../../src/services/zones/ratelimit.js';
import { installOverOAuth, OAUTH, OAUTH_ENV } from './flows.js';
import { ADMIN, CHANNEL, type Harness, startHarness } from './harness.js';

/** A background post in `workspaceId`: the rate-limit follow-up job, with no response_url. */
async function followUpIn(h: Harness, workspaceId: string): Promise<void> {
  await h.deps.runner.enqueue({
    workspaceId,
    kind: RATELIMIT_FOLLOW_UP_JOB,
    payload: {
      zone: { id: 'zone_1', name: 'example.com', status: 'active', createdAt: '2026-11-01' },
      enabled: true,
      actorId: ADMIN,
      replyTo: { userId: ADMIN, channelId: CHANNEL, issuedAt: 0, visibility: 'in_channel' },
    },
  });
}

const postsFrom = (h: Harness, teamId: string) =>
  h.slack.waitForCalls(
    (c) => c.method === 'chat.postMessage' && c.teamId === teamId && c.response.ok === true,
  );

function installation(fields: Partial<Installation>): Installation {
  return {
    team: undefined,
    enterprise: undefined,
    user: { id: ADMIN, token: undefined, scopes: undefined },
    appId: 'A0FAKE',
    tokenType: 'bot',
    isEnterpriseInstall: false,
    authVersion: 'v2',
    ...fields,
  } as Installation;
}

describe('tokens for background work, through Bolt’s authorize', () => {
  it('a workspace installed by OAuth: its installation’s token, read by the InstallProvider', async () => {
    const h = await startHarness({ slack: { oauth: OAUTH }, env: OAUTH_ENV });
    await installOverOAuth(h, 'T0NEW');

    const fetched = vi.spyOn(h.store.installations, 'fetchInstallation');
    await followUpIn(h, 'T0NEW');
    const [post] = await postsFrom(h, 'T0NEW');
    expect(post?.args.channel).toBe(CHANNEL);
    // Asked as Bolt asks for a request's token: the source, and the InstallProvider's logger.
    expect(fetched).toHaveBeenCalledWith(
      expect.objectContaining({ teamId: 'T0NEW', isEnterpriseInstall: false }),
      expect.anything(),
    );
  });

  it('an expiring rotating token is refreshed (and stored) before the post', async () => {
    const h = await startHarness({ slack: { oauth: OAUTH }, env: OAUTH_ENV });
    h.slack.addRefreshToken('xoxe-1-seed-refresh', 'T0ROT');
    // Expired a minute ago: the fake Slack no longer knows this token.
    await h.store.installations.storeInstallation(
      installation({
        team: { id: 'T0ROT', name: 'Rotating' },
        bot: {
          id: 'B0ROT',
          userId: 'UBOTT0ROT',
          token: 'xoxe.xoxb-T0ROT-expired',
          refreshToken: 'xoxe-1-seed-refresh',
          expiresAt: Math.floor(h.clock.now() / 1000) - 60,
          scopes: ['chat:write'],
        },
      }),
    );
    await followUpIn(h, 'T0ROT');
    const [post] = await postsFrom(h, 'T0ROT');
    expect(post?.response.ok).toBe(true);
    const refreshes = h.slack.callsTo('oauth.v2.access');
    expect(refreshes.map((c) => c.args.grant_type)).toEqual(['refresh_token']);
    const stored = await h.store.installations.fetchInstallation({
      teamId: 'T0ROT',
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(stored.bot?.token).toBe(refreshes[0]?.response.access_token);
    expect(stored.bot?.refreshToken).toBe(refreshes[0]?.response.refresh_token);
  });

  it('a workspace inside an org-wide install: the organization’s token', async () => {
    const h = await startHarness({
      slack: { oauth: OAUTH, tokens: { 'xoxb-org-wide': { teamId: 'T0GRID', botUserId: 'UB' } } },
      env: OAUTH_ENV,
    });
    await h.store.installations.storeInstallation(
      installation({
        enterprise: { id: 'E0ORG', name: 'Org' },
        isEnterpriseInstall: true,
        bot: { id: 'B0ORG', userId: 'UB', token: 'xoxb-org-wide', scopes: ['chat:write'] },
      }),
    );
    // As first seen: the workspace of the organization.
    await h.store.workspaces.ensure('T0GRID', 'E0ORG');
    await followUpIn(h, 'T0GRID');
    const [post] = await postsFrom(h, 'T0GRID');
    expect(post?.args.channel).toBe(CHANNEL);
  });

  it('single-workspace mode: SLACK_BOT_TOKEN, through the same authorize', async () => {
    const h = await startHarness();
    await followUpIn(h, h.workspaceId);
    const [post] = await postsFrom(h, h.workspaceId);
    expect(post?.args.channel).toBe(CHANNEL);
  });
});
