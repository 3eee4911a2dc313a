import { describe, expect, it } from 'vitest';
import { HOME_IDS } from '../../src/blocks/ids.js';
import { openHome } from './flows.js';
import { ADMIN, CDN_KEY, MEMBER, startHarness, textOf } from './harness.js';

describe('App Home', () => {
  it('shows whether a key is set (by whom, never the key) and recent activity', async () => {
    const h = await startHarness();
    expect(textOf((await openHome(h, MEMBER)).view)).toContain('No CDN API key yet');

    await h.login();
    await h.store.audit.record({
      workspaceId: h.workspaceId,
      actorId: ADMIN,
      action: 'credentials.set',
      outcome: 'ok',
    });
    await h.event({ type: 'app_home_opened', user: MEMBER, channel: 'D1', tab: 'home' });
    await h.slack.waitForCalls((c) => c.method === 'views.publish', 2);
    const home = textOf(h.slack.homes.get(MEMBER)?.view);
    expect(home).toContain(`CDN API key set by <@${ADMIN}>`);
    expect(home).toContain('credentials.set');
    expect(home).not.toContain(CDN_KEY);
  });

  it('says how long the history is kept, and the data after an uninstall, as configured', async () => {
    const h = await startHarness({
      env: { AUDIT_RETENTION_DAYS: '90', UNINSTALLED_DATA_RETENTION_DAYS: '14' },
    });
    expect(textOf((await openHome(h, MEMBER)).view)).toContain(
      "Activity history is kept 90 days. If the app is uninstalled, its keys are deleted at once and the rest of this workspace's data 14 days later.",
    );
  });

  it('lists zones in the DM and refuses the key form to a non-admin, in a modal', async () => {
    const h = await startHarness({ login: true });
    const homeId = (await openHome(h, MEMBER)).id;

    await h.clickInView(homeId, HOME_IDS.listZones);
    const [dm] = await h.slack.waitForMessages((m) => m.channel === MEMBER);
    expect(textOf(dm?.blocks)).toContain('9 zones · page 1 of 1');

    // The key button is not offered to a member; pressed anyway (a forged payload), it is refused.
    expect(JSON.stringify(h.slack.homes.get(MEMBER)?.view)).not.toContain(HOME_IDS.login);
    await h.event({ type: 'app_home_opened', user: ADMIN, channel: 'D2', tab: 'home' });
    await h.slack.waitForCalls((c) => c.method === 'views.publish', 2);
    const adminHome = h.slack.homes.get(ADMIN)?.id ?? '';
    await h.clickInView(adminHome, HOME_IDS.login);
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    expect(textOf(opened?.args.view)).toContain(
      'Only workspace admins and owners can set the CDN API key.',
    );

    await h.clickInView(adminHome, HOME_IDS.login, { user: ADMIN });
    const [, form] = await h.slack.waitForCalls((c) => c.method === 'views.open', 2);
    expect(form?.args.view).toMatchObject({ callback_id: 'login_modal' });
  });
});
