import { describe, expect, it } from 'vitest';
import { BOT_SCOPES } from '../../src/app.js';
import { OAUTH, OAUTH_ENV } from './flows.js';
import { ADMIN, startHarness } from './harness.js';

describe('installing into another workspace (OAuth)', () => {
  it('completes the install, keeps the tokens encrypted, and serves that workspace with them', async () => {
    const h = await startHarness({ slack: { oauth: OAUTH }, env: OAUTH_ENV });
    const install = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
    expect(install.status).toBe(302);
    const authorize = new URL(install.headers.get('location') ?? '');
    expect(`${authorize.origin}${authorize.pathname}`).toBe('https://slack.com/oauth/v2/authorize');
    expect(authorize.searchParams.get('client_id')).toBe(OAUTH.clientId);
    expect(authorize.searchParams.get('scope')).toBe(BOT_SCOPES.join(','));
    const state = authorize.searchParams.get('state') ?? '';
    const cookie = (install.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

    // Without the state cookie set by /slack/install, the redirect is refused.
    const forged = await fetch(
      `${h.url}/slack/oauth_redirect?code=${h.slack.mintOAuthCode('T0NEW', ADMIN)}&state=${state}`,
    );
    expect(forged.status).not.toBe(200);

    const done = await fetch(
      `${h.url}/slack/oauth_redirect?code=${h.slack.mintOAuthCode('T0NEW', ADMIN)}&state=${state}`,
      {
        headers: { cookie },
      },
    );
    expect(done.status).toBe(200);

    const rows = await h.store.db.selectFrom('slack_installations').selectAll().execute();
    expect(rows).toEqual([
      expect.objectContaining({ id: 'T:T0NEW', team_id: 'T0NEW', bot_user_id: 'UBOTT0NEW' }),
    ]);
    expect(rows[0]?.installation).not.toContain('xoxb-');

    await h.command('login', { user: ADMIN, team: 'T0NEW' });
    const [lookup] = await h.slack.waitForCalls((c) => c.method === 'users.info');
    expect(lookup?.teamId).toBe('T0NEW');
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    expect(opened?.teamId).toBe('T0NEW');
  });
});
