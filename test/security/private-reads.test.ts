// Issue 32, items 1 and 4, over the signed HTTP receiver with the fake Slack: guests and people of
// another organization never read the workspace's records (audit, settings, reports, watches);
// nobody reads what comes from a conversation they are not in; the App Home offers each person
// only what they may do; a chart is posted only where its requester is, and every chart and report
// names who asked for it. The audit export (CSV) withholds what the on-screen audit withholds.
import { describe, expect, it } from 'vitest';
import { ANALYTICS_IDS, HOME_IDS, ZONE_PICKER_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import {
  ADMIN,
  CHANNEL,
  type Harness,
  MEMBER,
  startHarness,
  textOf,
  viewIdOf,
} from '../e2e/harness.js';

const SINGLE = 'USINGLE';
const EXTERNAL = 'UEXTERNAL';
/** A private channel only ADMIN (and the bot) are in. */
const PRIVATE = 'CINCIDENT';
const SECRET = 'the payments outage of ACME';

/** A workspace with records made in a private channel: a purge-everything request, a report, a watch. */
async function withPrivateRecords(): Promise<Harness> {
  const h = await startHarness();
  h.slack.addUser({ id: SINGLE, name: 'sam', isUltraRestricted: true });
  h.slack.addUser({ id: EXTERNAL, name: 'wei', teamId: 'T0PARTNER' });
  h.slack.addChannel({
    id: PRIVATE,
    name: 'incident-acme',
    botMember: true,
    isPrivate: true,
    members: [ADMIN],
  });
  await h.login();
  const accountId = await h.loginAccountId();
  const zone = h.sandbox.state.byName('example.com');
  const made = await h.store.approvals.create({
    workspaceId: h.workspaceId,
    accountId,
    zoneId: zone?.id ?? '',
    zoneName: 'example.com',
    requesterId: ADMIN,
    reason: SECRET,
    channelId: PRIVATE,
    ttlMs: 3_600_000,
  });
  if (!('created' in made)) throw new Error('no approval');
  await h.store.audit.record({
    workspaceId: h.workspaceId,
    actorId: ADMIN,
    action: 'purge.everything.requested',
    zoneId: zone?.id ?? '',
    zoneName: 'example.com',
    accountId,
    outcome: 'ok',
    detail: { approval: made.created.id, reason: SECRET },
  });
  await answerTo(h, ADMIN, () =>
    h.command('report example.com daily', { user: ADMIN, channel: PRIVATE }),
  );
  await answerTo(h, ADMIN, () => h.command('watch example.com', { user: ADMIN, channel: PRIVATE }));
  return h;
}

/** Everything the next answer to `user` after `act` says (text and blocks). */
async function answerTo(h: Harness, user: string, act: () => Promise<unknown>): Promise<string> {
  const mine = (m: Message) =>
    m.ephemeralTo === user || (m.via === 'response_url' && !m.ephemeralTo);
  const before = h.slack.messages.filter(mine).length;
  await act();
  const all = await h.slack.waitForMessages(mine, before + 1);
  const answer = all[before];
  return `${answer?.text ?? ''}\n${textOf(answer?.blocks)}`;
}

const command = (h: Harness, user: string, text: string) =>
  answerTo(h, user, () => h.command(text, { user }));

/** The App Home `user` is shown: its text, and the ids of the buttons it offers. */
async function homeOf(h: Harness, user: string): Promise<{ text: string; buttons: string[] }> {
  const before = h.slack.callsTo('views.publish').length;
  await h.event({ type: 'app_home_opened', user, channel: 'D1', tab: 'home' });
  await h.slack.waitForCalls((c) => c.method === 'views.publish', before + 1);
  const view = h.slack.homes.get(user)?.view;
  const buttons: string[] = [];
  JSON.stringify(view, (_key, value) => {
    if (value && typeof value === 'object' && value.type === 'button')
      buttons.push(value.action_id);
    return value;
  });
  return { text: textOf(view), buttons };
}

describe('a single-channel guest', () => {
  it('reads no audit, settings, reports or watches, even when guests may operate', async () => {
    const h = await withPrivateRecords();
    await command(h, ADMIN, 'config guests operate');
    expect(await command(h, SINGLE, 'audit')).toContain("Guests can't read the audit log");
    expect(await command(h, SINGLE, 'audit example.com')).toContain(
      "Guests can't read the audit log",
    );
    expect(await command(h, SINGLE, 'config')).toContain("Guests can't see the CDN settings");
    expect(await command(h, SINGLE, 'report list')).toContain("Guests can't manage daily reports");
    expect(await command(h, SINGLE, 'watch list')).toContain("Guests can't watch zones");
    const zones = await command(h, SINGLE, 'zones');
    expect(zones).toContain('example.com');
    expect(zones).not.toContain(PRIVATE);
  });

  it('is offered only zones and charts on the App Home, and sees no records there', async () => {
    const h = await withPrivateRecords();
    const home = await homeOf(h, SINGLE);
    expect(home.buttons.sort()).toEqual([HOME_IDS.analytics, HOME_IDS.listZones].sort());
    expect(home.text).not.toContain(PRIVATE);
    expect(home.text).not.toContain(SECRET);
    expect(home.text).not.toContain('Daily reports');
    expect(home.text).not.toContain('Recent activity');
    expect(home.text).not.toContain('Watched zones');
    expect(home.text).not.toContain(`<@${ADMIN}>`);
  });
});

describe('someone of another organization in a shared channel', () => {
  it('reads no audit, settings, reports or watches, and is offered nothing on the App Home', async () => {
    const h = await withPrivateRecords();
    for (const text of ['audit', 'config', 'report list', 'watch list'])
      expect(await command(h, EXTERNAL, text)).toContain('You are from another workspace');
    const home = await homeOf(h, EXTERNAL);
    expect(home.buttons).toEqual([]);
    expect(home.text).not.toContain(PRIVATE);
    expect(home.text).not.toContain('Recent activity');
  });
});

describe('a member who is not in the private channel', () => {
  it('sees the audit without its reason, and no report, watch or channel of that conversation', async () => {
    const h = await withPrivateRecords();
    const audit = await command(h, MEMBER, 'audit');
    expect(audit).toContain('purge.everything.requested');
    expect(audit).not.toContain(SECRET);
    expect(audit).toContain('details withheld: from a conversation you are not in');

    const reports = await command(h, MEMBER, 'report list');
    expect(reports).not.toContain(PRIVATE);
    expect(reports).toContain('1 more in conversations you are not in');
    const watches = await command(h, MEMBER, 'watch list');
    expect(watches).not.toContain(PRIVATE);
    expect(watches).toContain('1 more in conversations you are not in');

    const home = await homeOf(h, MEMBER);
    expect(home.text).not.toContain(PRIVATE);
    expect(home.text).not.toContain(SECRET);
    expect(home.text).toContain('Recent activity');
    // An operator (no operators group is set), not an admin: no key button, no Stop of unseen reports.
    expect(home.buttons).not.toContain(HOME_IDS.login);
    expect(home.buttons).toContain(HOME_IDS.createZone);
    expect(home.buttons.some((id) => id.startsWith(HOME_IDS.stopReport))).toBe(false);
  });
});

/** The CSV of `user`'s next audit export, as the file shared in their DM with the bot holds it. */
async function exportOf(h: Harness, user: string): Promise<string> {
  // A minute on: the upload's pace (a tier 4 method, paced on the injected clock) lets it through.
  h.clock.advance(60_000);
  expect(await command(h, user, 'audit export')).toContain('Making your audit export');
  await h.deps.runner.settled();
  const [file] = [...h.slack.files.values()].filter((f) => f.completed && f.channel === `D${user}`);
  if (!file) throw new Error(`no export in the DM of ${user}`);
  return file.bytes.toString('utf8');
}

describe('the audit export (CSV) keeps to the on-screen rule', () => {
  it('withholds, in the file, the details of conversations the requester is not in', async () => {
    const h = await withPrivateRecords();
    // One entry from a conversation the member is in: its details are theirs to read.
    await h.store.audit.record({
      workspaceId: h.workspaceId,
      actorId: ADMIN,
      action: 'purge.urls',
      zoneId: 'zone_x',
      zoneName: 'example.com',
      accountId: await h.loginAccountId(),
      outcome: 'ok',
      detail: { files: 1, channel: CHANNEL, note: 'seen by all in the channel' },
    });
    const csv = await exportOf(h, MEMBER);
    const rows = csv.split('\r\n').filter((line) => line !== '');
    // action -> the withheld column, for each entry (the cells before `detail` hold no comma;
    // every cell is quoted).
    const withheld = Object.fromEntries(
      rows.slice(1).map((row) => {
        const cells = row.split(',').map((cell) => cell.replace(/^"|"$/g, ''));
        return [cells[3], cells[8]];
      }),
    );
    expect(withheld).toEqual({
      'purge.urls': '',
      'purge.everything.requested': 'yes',
      'report.scheduled': 'yes',
      'watch.added': 'yes',
    });
    expect(csv).not.toContain(SECRET);
    expect(csv).not.toContain(PRIVATE);
    expect(csv).toContain('seen by all in the channel');

    // The admin, who is in the conversation, gets the same entries with their details.
    const admin = await exportOf(h, ADMIN);
    expect(admin).toContain(SECRET);
    expect(admin.split('\r\n').filter((line) => line !== '')).toHaveLength(rows.length);
    expect(admin).not.toMatch(/,ok,yes,/);
  });
});

describe('an admin in the private channel', () => {
  it('sees everything, and is offered every action', async () => {
    const h = await withPrivateRecords();
    expect(await command(h, ADMIN, 'audit')).toContain(SECRET);
    expect(await command(h, ADMIN, 'report list')).toContain(`<#${PRIVATE}>`);
    expect(await command(h, ADMIN, 'watch list')).toContain(`<#${PRIVATE}>`);
    const home = await homeOf(h, ADMIN);
    expect(home.text).toContain(`<#${PRIVATE}>`);
    expect(home.buttons).toEqual(
      expect.arrayContaining([
        HOME_IDS.login,
        HOME_IDS.createZone,
        HOME_IDS.listZones,
        HOME_IDS.analytics,
        `${HOME_IDS.stopReport}_0`,
      ]),
    );
  });
});

describe('charts and reports', () => {
  const submitAnalytics = async (h: Harness, channel: string) => {
    await homeOf(h, MEMBER);
    const opens = h.slack.callsTo('views.open').length;
    await h.clickInView(h.slack.homes.get(MEMBER)?.id ?? '', HOME_IDS.analytics);
    const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', opens + 1);
    const zone = h.sandbox.state.byName('example.com');
    return h.submit(viewIdOf(calls[opens]), {
      [ANALYTICS_IDS.zoneBlock]: {
        [ZONE_PICKER_IDS.action]: { type: 'external_select', selected_option: { value: zone?.id } },
      },
      [ANALYTICS_IDS.rangeBlock]: {
        [ANALYTICS_IDS.rangeInput]: { type: 'static_select', selected_option: { value: '24h' } },
      },
      [ANALYTICS_IDS.channelBlock]: {
        [ANALYTICS_IDS.channelInput]: {
          type: 'conversations_select',
          selected_conversation: channel,
        },
      },
    });
  };

  it('the analytics form posts nothing in a conversation the requester is not in', async () => {
    const h = await withPrivateRecords();
    const answer = JSON.parse((await submitAnalytics(h, PRIVATE)).body) as {
      errors?: Record<string, string>;
    };
    expect(answer.errors?.[ANALYTICS_IDS.channelBlock]).toContain(
      "You are not in that conversation, so I won't post there for you.",
    );
    expect(h.slack.callsTo('files.completeUploadExternal')).toEqual([]);
    expect(h.sandbox.requests.filter((r) => r.path.endsWith('/analytics/traffic'))).toEqual([]);
  });

  it('a chart posted from the form or the command names who asked for it', async () => {
    const h = await withPrivateRecords();
    expect((await submitAnalytics(h, CHANNEL)).body).toBe('');
    const [fromForm] = await h.slack.waitForCalls(
      (c) => c.method === 'files.completeUploadExternal',
    );
    expect(fromForm?.args.channel_id).toBe(CHANNEL);
    expect(String(fromForm?.args.initial_comment)).toContain(`requested by <@${MEMBER}>`);

    await h.command('analytics example.com', { user: ADMIN });
    const [, fromCommand] = await h.slack.waitForCalls(
      (c) => c.method === 'files.completeUploadExternal',
      2,
    );
    expect(String(fromCommand?.args.initial_comment)).toContain(`requested by <@${ADMIN}>`);
  });

  it('a daily report names who set it up', async () => {
    const h = await withPrivateRecords();
    // The report ADMIN set up in the private channel is due at 09:00 in Paris (08:00 UTC).
    h.clock.advance(22 * 3_600_000);
    await h.deps.reports.tick();
    const [posted] = await h.slack.waitForCalls(
      (c) => c.method === 'files.completeUploadExternal' && c.args.channel_id === PRIVATE,
    );
    await h.deps.runner.settled();
    // By name, as plain text: a mention would notify its creator every morning.
    expect(String(posted?.args.initial_comment)).toContain('Report set up by alice');
    expect(String(posted?.args.initial_comment)).not.toContain(`<@${ADMIN}>`);
  });
});
