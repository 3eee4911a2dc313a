// Installing over OAuth in HTTP mode, as a browser does it: the install page, Slack's authorize
// page (the fake Slack's), the redirect back with the state cookie, and the page that says what
// to do next; then the new workspace is served with its own token. A cancelled install, a link
// opened elsewhere, and an organization-wide install each get a page of their own.
import { describe, expect, it } from 'vitest';
import { BOT_SCOPES } from '../../src/app.js';
import { answerTo, installThroughBrowser, OAUTH, OAUTH_ENV } from './flows.js';
import { ADMIN, CDN_KEY, startHarness } from './harness.js';

const oauthHarness = () => startHarness({ slack: { oauth: OAUTH }, env: OAUTH_ENV });

describe('installing into another workspace (OAuth)', () => {
  it('from the install page through Slack’s authorize to a working /cdn zones', async () => {
    const h = await oauthHarness();
    const install = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
    expect(install.status).toBe(302);
    const authorize = new URL(install.headers.get('location') ?? '');
    expect(`${authorize.origin}${authorize.pathname}`).toBe(
      new URL('/oauth/v2/authorize', h.slack.apiUrl).toString(),
    );
    expect(authorize.searchParams.get('client_id')).toBe(OAUTH.clientId);
    expect(authorize.searchParams.get('scope')).toBe(BOT_SCOPES.join(','));

    const done = await installThroughBrowser(h, { teamId: 'T0NEW', userId: ADMIN });
    expect(done.status).toBe(200);
    expect(done.html).toContain('Installed');
    expect(done.html).toContain('<code>/cdn login</code>');
    expect(done.html).toContain('https://app.slack.com/client/T0NEW');

    const rows = await h.store.db.selectFrom('slack_installations').selectAll().execute();
    expect(rows).toEqual([
      expect.objectContaining({ id: 'T:T0NEW', team_id: 'T0NEW', bot_user_id: 'UBOTT0NEW' }),
    ]);
    expect(rows[0]?.installation).not.toContain('xoxb-');

    // The admin logs in there; /cdn zones then lists the zones, with that workspace's token.
    await h.store.credentials.set('T0NEW', CDN_KEY, { userId: ADMIN, validated: true });
    const zones = await answerTo(h, ADMIN, () =>
      h.command('zones', { user: ADMIN, team: 'T0NEW' }),
    );
    expect(zones).toContain('example.com');
    const calls = h.slack.calls.filter((c) => c.method !== 'oauth.v2.access');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.teamId === 'T0NEW')).toBe(true);
  });

  it('refuses a redirect without the state cookie of the browser that began, and says so', async () => {
    const h = await oauthHarness();
    const install = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
    const state = new URL(install.headers.get('location') ?? '').searchParams.get('state');
    const code = h.slack.mintOAuthCode('T0NEW', ADMIN);
    const forged = await fetch(`${h.url}/slack/oauth_redirect?code=${code}&state=${state}`);
    expect(forged.status).toBe(400);
    const html = await forged.text();
    expect(html).toContain('This install link cannot be used');
    expect(html).toContain('href="/slack/install"');
    expect(await h.store.db.selectFrom('slack_installations').selectAll().execute()).toEqual([]);
  });

  it('a cancelled install installs nothing and offers to start again', async () => {
    const h = await oauthHarness();
    const done = await installThroughBrowser(h, 'deny');
    expect(done.status).toBe(200);
    expect(done.html).toContain('Install cancelled');
    expect(done.html).toContain('href="/slack/install"');
    expect(h.slack.callsTo('oauth.v2.access')).toEqual([]);
    expect(await h.store.db.selectFrom('slack_installations').selectAll().execute()).toEqual([]);
  });

  it('an organization-wide install is keyed by the organization and says to add it to workspaces', async () => {
    const h = await oauthHarness();
    const done = await installThroughBrowser(h, {
      orgWide: true,
      enterpriseId: 'E0ACME',
      userId: ADMIN,
    });
    expect(done.status).toBe(200);
    expect(done.html).toContain('Installed for your organization');
    expect(done.html).toContain(
      'https://app.slack.com/manage/E0ACME/integrations/profile/A0FAKE/workspaces/add',
    );
    const rows = await h.store.db.selectFrom('slack_installations').selectAll().execute();
    expect(rows).toEqual([
      expect.objectContaining({
        id: 'E:E0ACME',
        team_id: null,
        enterprise_id: 'E0ACME',
        is_enterprise_install: 1,
      }),
    ]);
  });
});
