import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { CdnTransport } from '../../../src/cdn/transport.js';
import { TrafficChartRenderer } from '../../../src/charts/traffic-chart.js';
import type { DatabaseConfig } from '../../../src/config.js';
import { type FakeSlack, startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { SANDBOX_DEMO_KEY, type Sandbox, startSandbox } from '../../../src/dev/sandbox/server.js';
import { AppError } from '../../../src/errors.js';
import { JobRunner } from '../../../src/jobs/runner.js';
import { CdnAccess } from '../../../src/services/accounts/cdn-access.js';
import { DailyReportService } from '../../../src/services/reports/daily-report.js';
import {
  REPORT_JOB,
  ReportDelivery,
  type ReportPoster,
} from '../../../src/services/reports/report-delivery.js';
import { GroupMembersCache } from '../../../src/slack/directory.js';
import { SlackReportPoster } from '../../../src/slack/report-poster.js';
import { WorkspaceClients } from '../../../src/slack/workspace-clients.js';
import { LOGIN_ACCOUNT } from '../../../src/store/credentials.js';
import { DEFAULT_LIMITS } from '../../../src/store/workspaces.js';
import { CallPace } from '../../../src/throttles/call-pace.js';
import { ManualClock } from '../../helpers/clock.js';
import { captureLogs } from '../../helpers/logs.js';
import { BACKENDS, testDatabase, testStore } from '../../helpers/store.js';

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

let replicas = 0;

/** One bot process: its own store connection, client, runner and delivery, on the shared database. */
async function replica(
  backend: 'sqlite' | 'postgres',
  w: World,
  wrap: (poster: ReportPoster) => ReportPoster = (poster) => poster,
) {
  const { store } = await testStore(backend, {
    database: w.database,
    clock: w.clock,
    idPrefix: `r${++replicas}-`,
  });
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
    },
  );
  const runner = new JobRunner({ jobs: store.jobs, clock: w.clock, logger, leaseMs: 60_000 });
  const delivery = new ReportDelivery({
    store,
    reports: new DailyReportService(cdn, store, renderer),
    // Slack's pacing is tested on its own (test/throttles/call-pace.test.ts): here every slot is now.
    poster: wrap(
      new SlackReportPoster(
        clients,
        new CallPace({ take: async () => 0 }, w.clock),
        new GroupMembersCache(w.clock),
      ),
    ),
    runner,
    clock: w.clock,
    logger,
  });
  runner.register(REPORT_JOB, delivery.job);
  /** One tick, then every job it queued (or any other due) run to its end. */
  const tick = async () => {
    const result = await delivery.tick();
    await runner.settled();
    return result;
  };
  return { store, delivery, runner, tick };
}

async function schedule(
  store: Awaited<ReturnType<typeof replica>>['store'],
  w: World,
  zone: string,
  nextRunAt: number,
  channelId = 'CREPORTS',
) {
  const found = w.sandbox.state.byName(zone);
  // The sandbox's zones are the login account's (the account `/cdn login` set the key of).
  const login = await store.accounts.byName(w.slack.teamId, LOGIN_ACCOUNT);
  if (!login) throw new Error('no login account: set the key first');
  const { schedule } = await store.schedules.create(
    {
      workspaceId: w.slack.teamId,
      accountId: login.id,
      zoneId: found?.id ?? '',
      zoneName: zone,
      channelId,
      createdBy: 'UCREATOR',
      timeOfDay: '09:00',
      timeZone: 'Europe/Paris',
      nextRunAt,
    },
    DEFAULT_LIMITS,
  );
  return schedule;
}

const uploads = (slack: FakeSlack) =>
  slack.callsTo('files.completeUploadExternal').filter((c) => c.response.ok);

const posted = (slack: FakeSlack) =>
  slack.messages.filter((m) => m.channel === 'CREPORTS' && !m.deleted).length +
  [...slack.files.values()].filter((f) => f.channel === 'CREPORTS').length;

async function withKey(
  store: Awaited<ReturnType<typeof replica>>['store'],
  w: World,
  key = SANDBOX_DEMO_KEY,
) {
  await store.credentials.set(w.slack.teamId, key, { userId: 'UCREATOR', validated: true });
}

/** A Web API failure that passes by itself (as the client throws it for a 503). */
const slackHiccup = () =>
  Object.assign(new Error('An HTTP protocol error occurred: statusCode = 503'), {
    code: 'slack_webapi_http_error',
  });

/** The workspace's key set, and a report of example.com due now (in CREPORTS). */
async function reportDueNow(store: Awaited<ReturnType<typeof replica>>['store'], w: World) {
  await withKey(store, w);
  return schedule(store, w, 'example.com', w.clock.now());
}

/** A wrapper whose publish fails with `error()` the first `times` times, then posts as it does. */
function publishFailing(times: number, error: () => unknown) {
  return (poster: ReportPoster): ReportPoster => {
    let left = times;
    return {
      ...bind(poster),
      publish: async (...args) => {
        if (left-- > 0) throw error();
        return poster.publish(...args);
      },
    };
  };
}

describe('daily reports', () => {
  it('posts yesterday against the day before, with the chart, and moves to tomorrow', async () => {
    const w = await world('sqlite');
    const { store, tick } = await replica('sqlite', w);
    const s = await reportDueNow(store, w);
    expect(await tick()).toEqual({ queued: 1, skipped: 0 });
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
    // The post is audited with the message that shows it (the share's ts, as files.info gives it).
    const [entry] = await store.audit.recent(w.slack.teamId);
    const shareTs = [...w.slack.files.values()][0]?.shareTs;
    expect(shareTs).toBeDefined();
    expect(entry).toMatchObject({ action: 'report.posted', outcome: 'ok' });
    expect(entry?.detail).toMatchObject({ schedule: s.id, ts: shareTs });
    expect(await tick()).toEqual({ queued: 0, skipped: 0 });
  });

  it('names its creator as plain text, never with a mention (which would notify them daily)', async () => {
    const w = await world('sqlite');
    w.slack.addUser({ id: 'UCREATOR', name: 'Ana <b> & co' });
    const { store, tick } = await replica('sqlite', w);
    await reportDueNow(store, w);
    await tick();
    const comment = String(uploads(w.slack)[0]?.args.initial_comment);
    expect(comment).not.toContain('<@');
    expect(comment).toContain('_Report set up by Ana &lt;b&gt; &amp; co._');
    // Slack not saying who they are (once the name kept a minute is gone): the report still goes,
    // crediting "a workspace member".
    w.clock.advance(2 * 60_000);
    w.slack.inject({ method: 'users.info', kind: 'status', status: 500, times: 5 });
    await schedule(store, w, 'shop.example.org', w.clock.now());
    await tick();
    const second = String(uploads(w.slack)[1]?.args.initial_comment);
    expect(second).not.toContain('<@');
    expect(second).toContain('_Report set up by a workspace member._');
  });

  it('an occurrence queued just before the key was removed is dropped; the schedule waits, not paused', async () => {
    const w = await world('sqlite');
    const { store, delivery, runner } = await replica('sqlite', w);
    const s = await reportDueNow(store, w);
    expect(await delivery.tick()).toEqual({ queued: 1, skipped: 0 });
    await store.credentials.delete(w.slack.teamId);
    await runner.settled();
    expect(posted(w.slack)).toBe(0);
    expect(await store.schedules.get(s.id)).toMatchObject({ status: 'active', pausedReason: null });
    expect(w.slack.messages).toEqual([]);
  });

  it('says "no traffic" in a message, with its ts, when the day had none', async () => {
    const w = await world('sqlite');
    const { store, tick } = await replica('sqlite', w);
    const s = await reportDueNow(store, w);
    w.sandbox.inject({
      kind: 'status',
      status: 200,
      path: /\/traffic$/,
      times: 2,
      body: {
        success: true,
        data: { totals: { requests: 0, bandwidth: 0, cache_hit_rate: 0 }, timeseries: [] },
      },
    });
    await tick();
    expect(uploads(w.slack)).toHaveLength(0);
    const [message] = w.slack.messages.filter((m) => m.channel === 'CREPORTS');
    expect(message?.text).toContain('No traffic that day.');
    const [entry] = await store.audit.recent(w.slack.teamId);
    expect(entry?.detail).toMatchObject({ schedule: s.id, ts: message?.ts });
  });

  it('catches up an occurrence missed by less than 6 h, and skips one missed by more', async () => {
    const w = await world('sqlite');
    const { store, tick } = await replica('sqlite', w);
    await withKey(store, w);
    const recent = await schedule(store, w, 'example.com', w.clock.now() - 5 * HOUR);
    const old = await schedule(store, w, 'shop.example.org', w.clock.now() - 7 * HOUR);
    expect(await tick()).toEqual({ queued: 1, skipped: 1 });
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
    const { store, tick } = await replica('sqlite', w);
    await withKey(store, w);
    const s = await schedule(store, w, 'example.com', w.clock.now(), 'CGONE');
    expect(await tick()).toEqual({ queued: 1, skipped: 0 });
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
    expect(await tick()).toEqual({ queued: 0, skipped: 0 });
    expect(w.slack.messages.filter((m) => m.channel === 'UCREATOR')).toHaveLength(1);
  });

  it('pauses once a private channel removed the bot: its creator told to invite it, no retries', async () => {
    const w = await world('sqlite');
    const { store, tick } = await replica('sqlite', w);
    await withKey(store, w);
    const team = w.slack.addChannel({
      id: 'GTEAM',
      name: 'team',
      botMember: true,
      isPrivate: true,
    });
    const s = await schedule(store, w, 'example.com', w.clock.now(), 'GTEAM');
    await tick();
    expect(w.slack.files.size).toBe(1);
    // Removed from the private channel: to the bot it no longer exists.
    team.botMember = false;
    w.clock.advance(24 * HOUR);
    await tick();
    expect(await store.schedules.get(s.id)).toMatchObject({
      status: 'paused',
      pausedReason:
        'The report could not be posted: I can’t see that channel. Invite me with `/invite @cdn`.',
    });
    const dms = () => w.slack.messages.filter((m) => m.channel === 'UCREATOR');
    expect(dms()).toHaveLength(1);
    expect(dms()[0]?.text).toContain('<#GTEAM> is paused');
    // One refused share, not retried; the next days try nothing.
    const refused = () =>
      w.slack.callsTo('files.completeUploadExternal').filter((c) => !c.response.ok);
    expect(refused().map((c) => c.response.error)).toEqual(['channel_not_found']);
    w.clock.advance(48 * HOUR);
    await tick();
    expect(refused()).toHaveLength(1);
    expect(dms()).toHaveLength(1);
  });

  it('pauses when the CDN key is revoked', async () => {
    const w = await world('sqlite');
    const { store, tick } = await replica('sqlite', w);
    await withKey(store, w, 'sk_revoked');
    const s = await schedule(store, w, 'example.com', w.clock.now());
    await tick();
    expect((await store.schedules.get(s.id))?.pausedReason).toContain(
      "The CDN rejected this workspace's API key",
    );
  });

  it('tries a passing failure again later instead of pausing, then posts once', async () => {
    const w = await world('sqlite');
    const { store, tick, runner } = await replica('sqlite', w, publishFailing(2, slackHiccup));
    const s = await reportDueNow(store, w);
    await tick();
    expect(uploads(w.slack)).toHaveLength(0);
    expect((await store.schedules.get(s.id))?.status).toBe('active');
    // 5 s, then 10 s later: the backoff of the job, on the injected clock.
    w.clock.advance(5_000);
    await runner.settled();
    expect(uploads(w.slack)).toHaveLength(0);
    w.clock.advance(10_000);
    await runner.settled();
    expect(uploads(w.slack)).toHaveLength(1);
    // The same upload, staged once: the retries published it, never uploaded it anew.
    expect(w.slack.callsTo('files.getUploadURLExternal')).toHaveLength(1);
    expect((await store.audit.recent(w.slack.teamId)).map((e) => e.action)).toEqual([
      'report.posted',
    ]);
  });

  it('tries again when the database was away, instead of pausing the schedule', async () => {
    const w = await world('sqlite');
    const { store, tick, runner } = await replica(
      'sqlite',
      w,
      publishFailing(1, () => new AppError({ code: 'storage_unavailable' })),
    );
    const s = await reportDueNow(store, w);
    await tick();
    expect((await store.schedules.get(s.id))?.status).toBe('active');
    w.clock.advance(5_000);
    await runner.settled();
    expect(uploads(w.slack)).toHaveLength(1);
    expect(w.slack.messages.filter((m) => m.channel === 'UCREATOR')).toHaveLength(0);
  });

  it('waits as long as a 429 asks before trying again', async () => {
    const w = await world('sqlite');
    const rateLimited = () =>
      Object.assign(
        new Error(
          'A rate limit was exceeded (url: files.completeUploadExternal, retry-after: 120)',
        ),
        { code: 'slack_webapi_rate_limited_error', retryAfter: 120 },
      );
    const { store, tick, runner } = await replica('sqlite', w, publishFailing(1, rateLimited));
    await reportDueNow(store, w);
    await tick();
    // Past the job's own backoff (5 s) but not Slack's 120 s: still waiting.
    w.clock.advance(60_000);
    await runner.settled();
    expect(uploads(w.slack)).toHaveLength(0);
    w.clock.advance(60_000);
    await runner.settled();
    expect(uploads(w.slack)).toHaveLength(1);
  });

  it('gives up after five attempts: the schedule pauses and its creator is told once', async () => {
    const w = await world('sqlite');
    const { store, tick, runner } = await replica(
      'sqlite',
      w,
      publishFailing(Number.POSITIVE_INFINITY, slackHiccup),
    );
    const s = await reportDueNow(store, w);
    await tick();
    for (let i = 0; i < 6; i++) {
      w.clock.advance(300_000);
      await runner.settled();
    }
    const paused = await store.schedules.get(s.id);
    expect(paused?.status).toBe('paused');
    // The last try's reason, in words (as the user's DM says it), not an error's class name.
    expect(paused?.pausedReason).toBe(
      'Slack did not answer in time, so I stopped waiting. Try again in a minute.',
    );
    expect(w.slack.messages.filter((m) => m.channel === 'UCREATOR')).toHaveLength(1);
    expect((await store.audit.recent(w.slack.teamId)).map((e) => e.action)).toEqual([
      'report.failed',
    ]);
  });

  it('a resumed job whose post already landed records it instead of posting again', async () => {
    const w = await world('sqlite');
    // The share reaches Slack, then the attempt dies before recording it.
    let crash = true;
    const { store, tick, runner } = await replica('sqlite', w, (poster) => ({
      ...bind(poster),
      publish: async (...args) => {
        const shown = await poster.publish(...args);
        if (crash) {
          crash = false;
          throw slackHiccup();
        }
        return shown;
      },
    }));
    await reportDueNow(store, w);
    await tick();
    expect(uploads(w.slack)).toHaveLength(1);
    w.clock.advance(5_000);
    await runner.settled();
    expect(uploads(w.slack)).toHaveLength(1);
    // One read for the ts after publishing, one by the resumed job, which found the share.
    expect(w.slack.callsTo('files.info').map((c) => c.response.ok)).toEqual([true, true]);
    const [entry] = await store.audit.recent(w.slack.teamId);
    expect(entry).toMatchObject({ action: 'report.posted' });
    expect(entry?.detail).toMatchObject({ ts: [...w.slack.files.values()][0]?.shareTs });
    expect(posted(w.slack)).toBe(1);
  });

  it('a resumed job whose post never left publishes the file it staged', async () => {
    const w = await world('sqlite');
    const { store, tick, runner } = await replica('sqlite', w, publishFailing(1, slackHiccup));
    await reportDueNow(store, w);
    await tick();
    w.clock.advance(5_000);
    await runner.settled();
    // The resumed job asked first (no such file yet: never completed), then read the new share's ts.
    expect(w.slack.callsTo('files.info').map((c) => c.response.error ?? 'ok')).toEqual([
      'file_not_found',
      'ok',
    ]);
    expect(w.slack.callsTo('files.getUploadURLExternal')).toHaveLength(1);
    expect(uploads(w.slack)).toHaveLength(1);
    expect(posted(w.slack)).toBe(1);
  });

  it('posts nothing for an occurrence whose schedule was stopped after it fell due', async () => {
    const w = await world('sqlite');
    const { store, delivery, runner } = await replica('sqlite', w);
    const s = await reportDueNow(store, w);
    await delivery.tick();
    await store.schedules.stop(s.id, w.slack.teamId);
    await runner.settled();
    expect(uploads(w.slack)).toHaveLength(0);
    expect(await store.audit.recent(w.slack.teamId)).toEqual([]);
  });

  for (const { backend, skip } of BACKENDS.filter((b) => b.backend === 'postgres')) {
    it.skipIf(skip)(
      `posts each occurrence once with three replicas on one ${backend}`,
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
        const results = await Promise.all(replicas.map((r) => r.tick()));
        expect(results.reduce((sum, r) => sum + r.queued, 0)).toBe(5);
        await Promise.all(replicas.map((r) => r.runner.settled()));
        expect(uploads(w.slack)).toHaveLength(5);
        expect(
          new Set(uploads(w.slack).map((c) => String(c.args.initial_comment).split('*')[1])),
        ).toEqual(new Set(zones));
        // The next day, once more each.
        w.clock.advance(24 * HOUR);
        await Promise.all(replicas.map((r) => r.tick()));
        await Promise.all(replicas.map((r) => r.runner.settled()));
        expect(uploads(w.slack)).toHaveLength(10);
        const actions = (await first.store.audit.recent(w.slack.teamId)).map((e) => e.action);
        expect(actions.filter((a) => a === 'report.posted')).toHaveLength(10);
      },
    );
  }
});

/** The poster's methods bound to it, to spread into a wrapper that replaces one or two. */
function bind(poster: ReportPoster): ReportPoster {
  return {
    stage: poster.stage.bind(poster),
    publish: poster.publish.bind(poster),
    published: poster.published.bind(poster),
    transient: poster.transient.bind(poster),
    retryAfterMs: poster.retryAfterMs.bind(poster),
    reasonFor: poster.reasonFor.bind(poster),
    paused: poster.paused.bind(poster),
  };
}
