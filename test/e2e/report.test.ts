import { describe, expect, it } from 'vitest';
import { HOME_IDS } from '../../src/blocks/ids.js';
import { commandReply, openHome } from './flows.js';
import { CHANNEL, MEMBER, startHarness, textOf } from './harness.js';

describe('/cdn report', () => {
  it('schedules at 09:00 in the requester’s time zone in this channel, lists, and stops', async () => {
    const h = await startHarness({ login: true });
    const scheduled = await commandReply(h, 'report example.com daily');
    expect(textOf(scheduled?.blocks)).toContain(`<#${CHANNEL}> at 09:00 America/New_York`);
    const [schedule] = await h.store.schedules.listForWorkspace(h.workspaceId);
    // The harness clock reads 2026-11-22 10:00 UTC, 05:00 in New York: 09:00 there is 14:00 UTC.
    expect(schedule).toMatchObject({
      zoneName: 'example.com',
      channelId: CHANNEL,
      timeOfDay: '09:00',
      timeZone: 'America/New_York',
      nextRunAt: Date.parse('2026-11-22T14:00:00Z'),
    });

    h.slack.addChannel({ id: 'CREPORTS', name: 'reports', botMember: true });
    await h.command('report shop.example.org daily 7:30 #reports');
    await h.slack.waitForMessages((m) => m.via === 'response_url', 2);
    await h.command('report list');
    const [, , list] = await h.slack.waitForMessages((m) => m.via === 'response_url', 3);
    expect(textOf(list?.blocks)).toContain(
      '*shop.example.org* → <#CREPORTS> daily at 07:30 (America/New_York)',
    );

    await h.command(`report stop ${schedule?.id.slice(0, 8)}`);
    const [, , , stopped] = await h.slack.waitForMessages((m) => m.via === 'response_url', 4);
    expect(stopped?.text).toContain('stopped');
    expect(
      (await h.store.schedules.listForWorkspace(h.workspaceId)).map((s) => s.zoneName),
    ).toEqual(['shop.example.org']);
    const actions = (await h.store.audit.recent(h.workspaceId)).map((e) => e.action);
    expect(actions.slice(0, 3)).toEqual(['report.stopped', 'report.scheduled', 'report.scheduled']);
  });

  it('the same report twice: the second answers that it exists, with its id, and makes nothing', async () => {
    const h = await startHarness({ login: true });
    h.slack.addChannel({ id: 'CREPORTS', name: 'reports', botMember: true });
    await h.command('report example.com daily 07:30 #reports');
    await h.slack.waitForMessages((m) => m.via === 'response_url');
    await h.command('report example.com daily 7:30 #reports');
    const [, again] = await h.slack.waitForMessages((m) => m.via === 'response_url', 2);
    const schedules = await h.store.schedules.listForWorkspace(h.workspaceId);
    expect(schedules).toHaveLength(1);
    expect(textOf(again?.blocks)).toContain('That report exists already');
    expect(textOf(again?.blocks)).toContain(`\`${schedules[0]?.id.slice(0, 8)}\``);
    const actions = (await h.store.audit.recent(h.workspaceId)).map((e) => e.action);
    expect(actions.filter((a) => a === 'report.scheduled')).toHaveLength(1);
  });

  it('refuses a bad time without scheduling anything', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'report example.com daily 25:00');
    expect(reply?.text).toContain('`25:00` is not a time (HH:MM) or a #channel');
    expect(await h.store.schedules.listForWorkspace(h.workspaceId)).toEqual([]);
  });

  it('stops a report from its button in the App Home', async () => {
    const h = await startHarness({ login: true });
    await h.command('report example.com daily');
    await h.slack.waitForMessages((m) => m.via === 'response_url');
    const home = await openHome(h, MEMBER);
    const homeId = home.id;
    expect(textOf(home.view)).toContain('*example.com* →');
    await h.clickInView(homeId, `${HOME_IDS.stopReport}_0`);
    await h.slack.waitForCalls((c) => c.method === 'views.publish', 2);
    expect(await h.store.schedules.listForWorkspace(h.workspaceId)).toEqual([]);
    expect(textOf(h.slack.homes.get(MEMBER)?.view)).toContain('No daily reports scheduled.');
  });

  it('falls back to UTC when Slack gives a time zone nobody knows', async () => {
    const h = await startHarness({ login: true });
    h.slack.addUser({ id: 'UODD', name: 'odd', tz: 'Mars/Olympus_Mons' });
    await h.command('report example.com daily', { user: 'UODD' });
    await h.slack.waitForMessages((m) => m.via === 'response_url');
    const [schedule] = await h.store.schedules.listForWorkspace(h.workspaceId);
    expect(schedule).toMatchObject({
      timeZone: 'UTC',
      nextRunAt: Date.parse('2026-11-23T09:00:00Z'),
    });
  });
});
