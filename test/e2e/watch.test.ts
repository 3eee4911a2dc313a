// /cdn watch end to end: the real app, the fake Slack and the sandbox with injected traffic shapes,
// every interval driven by the test's clock (tick, then wait for the jobs it queued).
import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WATCH_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { alerts, interval, openHome, shape, thread, watching } from './flows.js';
import { CHANNEL, type Harness, MEMBER, startHarness, textOf } from './harness.js';

/**
 * The app against a fake Slack that processes files at once: these tests count whole intervals on
 * a standing clock. Slack's processing time, and the alert waiting for it, are
 * test/e2e/chart-delivery.test.ts's.
 */
const start = () => startHarness({ slack: { fileReadyMs: 0 } });

/** Watches example.com and spikes it for `minutes`: its zone, and the alert that fired. */
async function alerted(h: Harness, minutes = 5): Promise<{ zoneId: string; alert: Message }> {
  const zoneId = await watching(h, 'example.com');
  shape(h, zoneId, minutes, 'spike');
  await interval(h, 3);
  const [alert] = alerts(h);
  if (!alert) throw new Error('no alert');
  return { zoneId, alert };
}

/** After `after` minutes, a new five-minute spike, given eight minutes to alert. */
async function spikeAgain(h: Harness, zoneId: string, after = 8): Promise<void> {
  await interval(h, after);
  shape(h, zoneId, 5, 'spike');
  await interval(h, 8);
}

/** Clicks `action` on `alert`; resolves with the first reply in its thread. */
async function press(h: Harness, alert: Message, action: string): Promise<Message | undefined> {
  await h.click(alert, action);
  const [reply] = await h.slack.waitForMessages((m) => m.threadTs === alert.ts);
  return reply;
}

describe('/cdn watch', () => {
  it('fires a spike once after the hold time, with a chart and buttons, and resolves it once in place', async () => {
    const h = await start();
    const zoneId = await watching(h, 'example.com');
    const before = h.sandbox.requests.length;
    shape(h, zoneId, 8, 'spike');
    await interval(h, 2);
    expect(alerts(h)).toEqual([]);
    await interval(h);
    const [alert] = alerts(h);
    if (!alert) throw new Error('no alert');
    expect(alerts(h)).toHaveLength(1);
    expect(alert.text).toBe('Alert: example.com · Requests spike');
    const image = alert.blocks?.find((b) => (b as { type: string }).type === 'image') as {
      slack_file: { id: string };
    };
    const png = h.slack.files.get(image.slack_file.id)?.bytes;
    expect(png?.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(textOf(alert.blocks)).toContain('Snooze 1 h');
    expect(textOf(alert.blocks)).toContain('Mute this alert');
    expect(textOf(alert.blocks)).toContain('Turn rate limiting on');

    // Still spiking: nothing more is posted.
    await interval(h, 4);
    expect(alerts(h)).toHaveLength(1);
    expect(alert.history).toHaveLength(0);
    // Clear for two intervals: not resolved yet; the third resolves it, once.
    await interval(h, 3);
    expect(alert.history).toHaveLength(0);
    await interval(h, 3);
    expect(alert.history).toHaveLength(1);
    expect(alert.text).toBe('Resolved: example.com · Requests spike');
    expect(textOf(alert.blocks)).not.toContain('Snooze 1 h');
    expect(thread(h, alert)).toEqual([expect.stringContaining('Resolved: back within bounds')]);
    // The example in the docs is this alert's chart once resolved: the whole window shaded.
    const resolvedImage = alert.blocks?.find((b) => (b as { type: string }).type === 'image') as {
      slack_file: { id: string };
    };
    const resolvedPng = h.slack.files.get(resolvedImage.slack_file.id)?.bytes;
    expect(resolvedImage.slack_file.id).not.toBe(image.slack_file.id);
    mkdirSync('docs/charts', { recursive: true });
    if (resolvedPng) writeFileSync('docs/charts/alert-example.png', resolvedPng);
    await interval(h, 5);
    expect(alerts(h)).toHaveLength(1);
    expect(alert.history).toHaveLength(1);
    // One analytics request an interval for the zone (18), and one for each chart of its alert.
    const analytics = h.sandbox.requests
      .slice(before)
      .filter((r) => r.path.endsWith('/analytics/traffic'));
    expect(analytics.filter((r) => r.query.granularity === 'minute').length).toBe(18 + 2);
  });

  it('backs off on a 429 from the CDN: the evaluation is delayed, not dropped, and the zone waits too', async () => {
    const h = await start();
    const zoneId = await watching(h, 'example.com');
    h.sandbox.inject({
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '120' },
      path: /\/analytics\/traffic$/,
      times: 1,
    });
    const before = h.sandbox.requests.length;
    await interval(h);
    const delayed = await h.store.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'watch_eval')
      .where('state', '=', 'queued')
      .execute();
    expect(delayed).toHaveLength(1);
    expect(Number(delayed[0]?.run_at)).toBeGreaterThanOrEqual(h.clock.now() + 120_000);
    // The next minute: nothing asked of the CDN (the zone waits for the back-off too).
    await interval(h);
    expect(h.sandbox.requests.slice(before).map((r) => r.status)).toEqual([429]);
    await interval(h, 2);
    const after = h.sandbox.requests.slice(before).filter((r) => r.path.includes(zoneId));
    // The delayed interval, then the zone's own from the end of the back-off on.
    expect(after.map((r) => r.status)).toEqual([429, 200, 200, 200]);
    const done = await h.store.db
      .selectFrom('jobs')
      .select('state')
      .where('id', '=', delayed[0]?.id ?? '')
      .executeTakeFirst();
    expect(done?.state).toBe('succeeded');
  });

  it('survives a restart mid-hold: the alert fires once, on time, and the App Home lists the watch', async () => {
    const h = await start();
    const zoneId = await watching(h, 'example.com');
    shape(h, zoneId, 8, 'spike');
    await interval(h, 2);
    await h.restart();
    await interval(h);
    expect(alerts(h)).toHaveLength(1);
    await interval(h, 3);
    expect(alerts(h)).toHaveLength(1);
    expect(textOf((await openHome(h, MEMBER)).view)).toContain(`*example.com* → <#${CHANNEL}>`);
  });

  it('does not fire for a short blip', async () => {
    const h = await start();
    const zoneId = await watching(h, 'example.com');
    shape(h, zoneId, 2, 'spike');
    await interval(h, 10);
    expect(alerts(h)).toEqual([]);
  });

  it('fires a drop, and a threshold of one’s own', async () => {
    const h = await start();
    const zoneId = await watching(h, 'example.com', ' requests<10/5m');
    shape(h, zoneId, 20, 'drop', 0);
    await interval(h, 10);
    expect(alerts(h).map((m) => textOf(m.text))).toEqual([
      'Alert: example.com · Traffic drop',
      'Alert: example.com · requests<10/5m',
    ]);
    expect(textOf(alerts(h)[0]?.blocks)).not.toContain('Turn rate limiting on');
  });

  it('holds a snooze for an hour and a mute for good', async () => {
    const h = await start();
    const { zoneId, alert: first } = await alerted(h);
    await press(h, first, WATCH_IDS.snooze);
    expect(thread(h, first)[0]).toContain(`<@${MEMBER}> snoozed this alert until`);
    // Resolved, then a new spike within the hour: nothing new.
    await spikeAgain(h, zoneId);
    expect(alerts(h)).toHaveLength(1);
    // After the hour, it fires again.
    await interval(h, 50);
    shape(h, zoneId, 5, 'spike');
    await interval(h, 4);
    const [, second] = alerts(h);
    if (!second) throw new Error('no second alert');
    await press(h, second, WATCH_IDS.mute);
    expect(thread(h, second)[0]).toContain('muted');
    await spikeAgain(h, zoneId, 70);
    expect(alerts(h)).toHaveLength(2);
    const actions = (await h.store.audit.recent(h.workspaceId)).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['watch.snoozed', 'watch.muted']));
  });

  it('unmutes from the muted notice and from /cdn watch list: the next breach alerts again', async () => {
    const h = await start();
    const { zoneId, alert: first } = await alerted(h);
    const notice = await press(h, first, WATCH_IDS.mute);
    if (!notice) throw new Error('no muted notice');
    expect(textOf(notice.blocks)).toContain('Unmute');
    // Muted: a new spike says nothing; the list says what is muted.
    await spikeAgain(h, zoneId);
    expect(alerts(h)).toHaveLength(1);
    await h.command('watch list');
    const [list] = await h.slack.waitForMessages(
      (m) => m.via === 'response_url' && textOf(m.blocks).includes('muted: Requests spike'),
    );
    if (!list) throw new Error('no list');

    // Unmuted from the notice: the notice says so, and the next spike alerts.
    await h.click(notice, WATCH_IDS.unmute);
    await h.slack.waitForMessages((m) => m === notice && textOf(m.text).includes('unmuted'));
    expect(JSON.stringify(notice.blocks)).not.toContain(WATCH_IDS.unmute);
    shape(h, zoneId, 5, 'spike');
    await interval(h, 4);
    const [, second] = alerts(h);
    if (!second) throw new Error('no alert after unmuting');

    // Muted again, then unmuted from the list in the middle of a long spike: it alerts for it.
    await press(h, second, WATCH_IDS.mute);
    await interval(h, 8);
    shape(h, zoneId, 12, 'spike');
    await interval(h, 4);
    expect(alerts(h)).toHaveLength(2);
    const seen = h.slack.messages.filter((m) => m.via === 'response_url').length;
    await h.command('watch list');
    const [, again] = await h.slack.waitForMessages(
      (m) => m.via === 'response_url' && textOf(m.blocks).includes('muted: Requests spike'),
      2,
    );
    if (!again) throw new Error('no second list');
    expect(h.slack.messages.filter((m) => m.via === 'response_url').length).toBe(seen + 1);
    await h.click(again, `${WATCH_IDS.unmuteListed}_0`);
    await h.slack.waitForMessages((m) => m === again && !textOf(m.blocks).includes('muted:'));
    await interval(h, 4);
    expect(alerts(h)).toHaveLength(3);
    const unmutes = (await h.store.audit.recent(h.workspaceId)).filter(
      (e) => e.action === 'watch.unmuted',
    );
    expect(unmutes.map((e) => e.detail)).toEqual([
      { channel: CHANNEL, rule: 'spike' },
      { channel: CHANNEL, rule: 'spike' },
    ]);
  });

  it("turns rate limiting on once for a double click on 'Turn rate limiting on'", async () => {
    const h = await start();
    const { alert } = await alerted(h, 10);
    await Promise.all([h.click(alert, WATCH_IDS.rateLimit), h.click(alert, WATCH_IDS.rateLimit)]);
    await h.slack.waitForMessages((m) => m.threadTs === alert.ts);
    await h.slack.waitForMessages((m) => m.ephemeralTo === MEMBER || m.via === 'response_url');
    const settings = h.sandbox.requests.filter((r) => r.path.endsWith('/settings'));
    expect(settings).toHaveLength(1);
    expect(settings[0]?.body).toEqual({ limits: { enabled: true, mode: 'automatic' } });
    expect(thread(h, alert)).toEqual([expect.stringContaining('turned rate limiting on')]);
    const audit = (await h.store.audit.recent(h.workspaceId)).filter(
      (e) => e.action === 'ratelimit.on',
    );
    expect(audit).toHaveLength(1);
  });

  it('announces pending → active once, offered by /cdn create, and alerts nothing on a zone without history', async () => {
    const h = await start();
    await h.login();
    await h.command('create shop.example.dev');
    const [created] = await h.slack.waitForMessages(
      (m) => m.via === 'response_url' && (m.text?.includes('onboarded') ?? false),
    );
    if (!created) throw new Error('no create answer');
    expect(textOf(created.blocks)).toContain('Tell this channel when it goes live');
    await h.click(created, WATCH_IDS.notifyLive);
    await h.slack.waitForMessages((m) => m.text?.startsWith('Watching') ?? false);
    const zone = h.sandbox.state.byName('shop.example.dev');
    if (!zone) throw new Error('no zone');
    // Still pending (the sandbox activates it after a minute): nothing said yet.
    await interval(h);
    const live = () =>
      h.slack.messages.filter((m) => m.text?.includes('is active: the CNAME is in place'));
    await interval(h, 3);
    expect(live()).toHaveLength(1);
    expect(live()[0]?.text).toContain(
      '*shop.example.dev* is active: the CNAME is in place and the edge is serving it',
    );
    // A brand-new zone has no history: a spike says nothing.
    shape(h, zone.id, 10, 'spike');
    await interval(h, 6);
    expect(live()).toHaveLength(1);
    expect(alerts(h)).toEqual([]);
  });

  it('lists, refuses a bad threshold, and unwatches; a removed key stops the watches', async () => {
    const h = await start();
    await h.login();
    await h.command('watch example.com hitrate<80% requests>50k/5m');
    await h.command('watch shop.example.org');
    await h.command('watch example.com requests>>5');
    await h.command('watch list');
    const replies = await h.slack.waitForMessages((m) => m.via === 'response_url', 4);
    const texts = replies.map((m) => textOf(m.blocks));
    expect(texts.join('\n')).toContain('`requests>>5` is not a threshold');
    expect(texts.join('\n')).toContain('`hitrate<80%`, `requests>50000/5m`');
    expect(texts.join('\n')).toContain(`*shop.example.org* → <#${CHANNEL}>`);
    await h.command('unwatch shop.example.org');
    await h.command('unwatch shop.example.org');
    const [, , , , gone, notWatching] = await h.slack.waitForMessages(
      (m) => m.via === 'response_url',
      6,
    );
    expect(gone?.text).toContain('no longer watches');
    expect(notWatching?.text).toContain('This channel does not watch `shop.example.org`');
    expect((await h.store.watches.listForWorkspace(h.workspaceId)).length).toBe(1);
    // Logging out and deleting (the explicit choice) removes the workspace's watches.
    await h.deps.credentials.remove(
      {
        workspaceId: h.workspaceId,
        userId: 'UADMIN',
        directory: {
          user: async () => ({ isAdmin: true, timeZone: 'UTC' }),
          groupMembers: async () => [],
          inConversation: async () => true,
        },
      },
      { deleteWork: true },
    );
    expect(await h.store.watches.listForWorkspace(h.workspaceId)).toEqual([]);
  });
});
