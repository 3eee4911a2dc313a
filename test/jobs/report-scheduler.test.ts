import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { CdnTransport } from '../../src/cdn/transport.js';
import { TrafficChartRenderer } from '../../src/charts/traffic-chart.js';
import type { DatabaseConfig } from '../../src/config.js';
import { type FakeSlack, startFakeSlack } from '../../src/dev/fake-slack/server.js';
import { SANDBOX_DEMO_KEY, type Sandbox, startSandbox } from '../../src/dev/sandbox/server.js';
import { ReportScheduler } from '../../src/jobs/report-scheduler.js';
import { CdnAccess } from '../../src/services/cdn-access.js';
import { DailyReportService } from '../../src/services/daily-report.js';
import { ChannelPacer, SlackReportPoster } from '../../src/slack/report-poster.js';
import { WorkspaceClients } from '../../src/slack/workspace-clients.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import { BACKENDS, testDatabase, testStore } from '../helpers/store.js';

const HOUR = 3_600_000;
const renderer = new TrafficChartRenderer();
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface World {
  clock: ManualClock;
  slack: FakeSlack;
  sandbox: Sandbox;
  database: DatabaseConfig;
}

async function world(backend: 'sqlite' | 'postgres'): Promise<World> {
  // Sunday 22 Nov 2026, 09:00 in Paris.
  const clock = new ManualClock(Date.parse('2026-11-22T08:00:00Z'));
  const slack = await startFakeSlack({ clock });
  slack.addUser({ id: 'UCREATOR', name: 'creator' });
  slack.addChannel({ id: 'CREPORTS', name: 'reports', botMember: true });
  slack.addChannel({ id: 'CGONE', name: 'gone', botMember: false });
  const sandbox = await startSandbox({ clock });
  closers.push(
    () => slack.close(),
    () => sandbox.close(),
  );
  return { clock, slack, sandbox, database: await testDatabase(backend) };
}

/** One bot process: its own store connection, client and scheduler, on the shared database. */
async function replica(backend: 'sqlite' | 'postgres', w: World) {
  const { store } = await testStore(backend, { database: w.database, clock: w.clock });
  const logger = captureLogs('warn').logger;
  const transport = new CdnTransport();
  closers.push(() => transport.close());
  const cdn = new CdnAccess({
    store,
    transport,
    defaultBaseUrl: w.sandbox.baseUrl,
    clock: w.clock,
    logger,
  });
  const clients = new WorkspaceClients(
    new WebClient(undefined, { slackApiUrl: w.slack.apiUrl, retryConfig: { retries: 0 } }),
    {
      botToken: w.slack.botToken,
      installations: store.installations,
    },
  );
  const scheduler = new ReportScheduler({
    store,
    reports: new DailyReportService(cdn, store, renderer),
    poster: new SlackReportPoster(clients, new ChannelPacer(0)),
    clock: w.clock,
    logger,
  });
  return { store, scheduler };
}

async function schedule(
  store: Awaited<ReturnType<typeof replica>>['store'],
  w: World,
  zone: string,
  nextRunAt: number,
  channelId = 'CREPORTS',
) {
  const found = w.sandbox.state.byName(zone);
  return store.schedules.create({
    workspaceId: w.slack.teamId,
    zoneId: found?.id ?? '',
    zoneName: zone,
    channelId,
    createdBy: 'UCREATOR',
    timeOfDay: '09:00',
    timeZone: 'Europe/Paris',
    nextRunAt,
  });
}

const uploads = (slack: FakeSlack) =>
  slack.callsTo('files.completeUploadExternal').filter((c) => c.response.ok);

describe('daily reports', () => {
  it('posts yesterday against the day before, with the chart, and moves to tomorrow', async () => {
    const w = await world('sqlite');
    const { store, scheduler } = await replica('sqlite', w);
    await store.credentials.set(w.slack.teamId, SANDBOX_DEMO_KEY, {
      userId: 'UCREATOR',
      validated: true,
    });
    const s = await schedule(store, w, 'example.com', w.clock.now());
    expect(await scheduler.tick()).toEqual({ posted: 1, skipped: 0, paused: 0, lost: 0 });
    const [upload] = uploads(w.slack);
    expect(upload?.args.channel_id).toBe('CREPORTS');
    const comment = String(upload?.args.initial_comment);
    expect(comment).toContain(':sunrise: *example.com* · Sat 21 Nov 2026 (Europe/Paris)');
    expect(comment).toMatch(
      /requests \([+−±][\d.]+ % on the day before\) · \*[\d.]+ (MB|GB)\* \([+−±][\d.]+ %\) · cache hit rate \*[\d.]+ %\* \([+−][\d.]+ pts\)/,
    );
    expect((await store.schedules.get(s.id))?.nextRunAt).toBe(Date.parse('2026-11-23T08:00:00Z'));
    // The analytics asked for were Saturday and Friday, midnight to midnight in Paris.
    const sinces = w.sandbox.requests
      .filter((r) => r.path.endsWith('/traffic'))
      .map((r) => r.query.since)
      .sort();
    expect(sinces).toEqual(['2026-11-19T23:00:00Z', '2026-11-20T23:00:00Z']);
    expect(await scheduler.tick()).toEqual({ posted: 0, skipped: 0, paused: 0, lost: 0 });
  });

  it('catches up an occurrence missed by less than 6 h, and skips one missed by more', async () => {
    const w = await world('sqlite');
    const { store, scheduler } = await replica('sqlite', w);
    await store.credentials.set(w.slack.teamId, SANDBOX_DEMO_KEY, {
      userId: 'UCREATOR',
      validated: true,
    });
    const recent = await schedule(store, w, 'example.com', w.clock.now() - 5 * HOUR);
    const old = await schedule(store, w, 'shop.example.org', w.clock.now() - 7 * HOUR);
    expect(await scheduler.tick()).toEqual({ posted: 1, skipped: 1, paused: 0, lost: 0 });
    expect(uploads(w.slack)).toHaveLength(1);
    expect((await store.schedules.get(recent.id))?.nextRunAt).toBe(
      Date.parse('2026-11-22T08:00:00Z'),
    );
    expect((await store.schedules.get(old.id))?.nextRunAt).toBe(Date.parse('2026-11-23T08:00:00Z'));
    const actions = (await store.audit.recent(w.slack.teamId)).map((e) => [e.action, e.zoneName]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ['report.skipped', 'shop.example.org'],
        ['report.posted', 'example.com'],
      ]),
    );
  });

  it('pauses a schedule that cannot post, tells its creator once, and records it', async () => {
    const w = await world('sqlite');
    const { store, scheduler } = await replica('sqlite', w);
    await store.credentials.set(w.slack.teamId, SANDBOX_DEMO_KEY, {
      userId: 'UCREATOR',
      validated: true,
    });
    const s = await schedule(store, w, 'example.com', w.clock.now(), 'CGONE');
    expect(await scheduler.tick()).toEqual({ posted: 0, skipped: 0, paused: 1, lost: 0 });
    expect(await store.schedules.get(s.id)).toMatchObject({
      status: 'paused',
      pausedReason: expect.stringContaining('Invite me with `/invite @cdn`'),
    });
    const [notice] = w.slack.messages.filter((m) => m.channel === 'UCREATOR');
    expect(notice?.text).toContain('Your daily report of *example.com* for <#CGONE> is paused');
    const [audit] = await store.audit.recent(w.slack.teamId);
    expect(audit).toMatchObject({ action: 'report.failed', outcome: 'paused' });
    // Paused: tomorrow brings no new failure.
    w.clock.advance(24 * HOUR);
    expect(await scheduler.tick()).toEqual({ posted: 0, skipped: 0, paused: 0, lost: 0 });
  });

  it('pauses when the CDN key is revoked', async () => {
    const w = await world('sqlite');
    const { store, scheduler } = await replica('sqlite', w);
    await store.credentials.set(w.slack.teamId, 'sk_revoked', {
      userId: 'UCREATOR',
      validated: true,
    });
    const s = await schedule(store, w, 'example.com', w.clock.now());
    expect((await scheduler.tick()).paused).toBe(1);
    expect((await store.schedules.get(s.id))?.pausedReason).toContain(
      "The CDN rejected this workspace's API key",
    );
  });

  for (const { backend, skip } of BACKENDS.filter((b) => b.backend === 'postgres')) {
    it.skipIf(skip)(
      `posts each occurrence once with three schedulers on one ${backend}`,
      async () => {
        const w = await world(backend);
        const replicas = await Promise.all([1, 2, 3].map(() => replica(backend, w)));
        const [first] = replicas;
        if (!first) throw new Error('no replica');
        await first.store.credentials.set(w.slack.teamId, SANDBOX_DEMO_KEY, {
          userId: 'UCREATOR',
          validated: true,
        });
        const zones = [
          'example.com',
          'static.example.com',
          'shop.example.org',
          'blog.example.net',
          'api.example.io',
        ];
        for (const zone of zones) await schedule(first.store, w, zone, w.clock.now());
        const results = await Promise.all(replicas.map((r) => r.scheduler.tick()));
        expect(results.reduce((sum, r) => sum + r.posted, 0)).toBe(5);
        expect(uploads(w.slack)).toHaveLength(5);
        expect(
          new Set(uploads(w.slack).map((c) => String(c.args.initial_comment).split('*')[1])),
        ).toEqual(new Set(zones));
        // The next day, once more each.
        w.clock.advance(24 * HOUR);
        await Promise.all(replicas.map((r) => r.scheduler.tick()));
        expect(uploads(w.slack)).toHaveLength(10);
      },
    );
  }
});
