import { describe, expect, it } from 'vitest';
import { HOME_IDS } from '../../src/blocks/ids.js';
import { SCHEDULED_PURGE_JOB } from '../../src/services/purge/scheduled-purges.js';
import { commandReply, openHome } from './flows.js';
import { ADMIN, CDN_KEY, type Harness, MEMBER, OTHER, startHarness, textOf } from './harness.js';

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

  it('lists scheduled purges (one’s own; an admin’s: all) with a Cancel that cancels as /cdn purge cancel does', async () => {
    const h = await startHarness({ login: true });
    await commandReply(h, 'purge example.com /mine.css in 1h', { user: MEMBER });
    await commandReply(h, 'purge example.com /theirs.css in 2h', { user: OTHER });
    const queued = () => h.store.jobs.queuedOf(h.workspaceId, SCHEDULED_PURGE_JOB, 10);
    const cancel = `${HOME_IDS.cancelScheduled}_0`;

    const mine = textOf((await openHome(h, MEMBER)).view);
    expect(mine).toContain('Your scheduled purges');
    expect(mine).toContain(`1 URL on *example.com* at 2026-11-22 06:00 America/New_York`);
    expect(mine).toContain(`by <@${MEMBER}>`);
    expect(mine).not.toContain(`by <@${OTHER}>`);
    const adminHome = await openHome(h, ADMIN, 'D2');
    const all = textOf(adminHome.view);
    expect(all).toContain('Scheduled purges');
    expect(all).toContain(`by <@${MEMBER}>`);
    expect(all).toContain(`by <@${OTHER}>`);

    // OTHER's own home holds only theirs; a forged click on MEMBER's is refused, in a modal.
    const [first] = await queued();
    if (!first) throw new Error('not scheduled');
    const otherHome = await openHome(h, OTHER, 'D3');
    const refused = await refusal(h, () =>
      h.clickInView(otherHome.id, cancel, { user: OTHER, value: first.id }),
    );
    expect(refused).toContain(
      'Only the person who scheduled this purge, or an admin, can cancel it.',
    );
    expect(await queued()).toHaveLength(2);

    // Its requester cancels it from the home, which is shown again without it.
    const homeId = h.slack.homes.get(MEMBER)?.id ?? '';
    await h.clickInView(homeId, cancel, { user: MEMBER });
    await h.slack.waitForCalls((c) => c.method === 'views.publish' && c.args.user_id === MEMBER, 2);
    expect(textOf(h.slack.homes.get(MEMBER)?.view)).not.toContain('Your scheduled purges');
    expect((await queued()).map((job) => job.id)).not.toContain(first.id);
    const [entry] = await h.store.audit.recent(h.workspaceId);
    expect(entry).toMatchObject({ action: 'purge.scheduled.cancelled', actorId: MEMBER });

    // The admin's home, not refreshed since, still offers it: the stale button says so.
    const stale = await refusal(h, () => h.clickInView(adminHome.id, cancel, { user: ADMIN }));
    expect(stale).toContain('That scheduled purge is over');
    // The admin cancels OTHER's.
    await h.clickInView(h.slack.homes.get(ADMIN)?.id ?? '', cancel, { user: ADMIN });
    await h.slack.waitForCalls((c) => c.method === 'views.publish' && c.args.user_id === ADMIN, 3);
    expect(await queued()).toEqual([]);
    expect(textOf(h.slack.homes.get(ADMIN)?.view)).toContain('None. Add `at 02:00`');
  });
});

/** Runs `act`; resolves with the text of the modal it opens (how a refusal is said there). */
async function refusal(h: Harness, act: () => Promise<unknown>): Promise<string> {
  const before = h.slack.callsTo('views.open').length;
  await act();
  const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', before + 1);
  return textOf(calls[before]?.args.view);
}
