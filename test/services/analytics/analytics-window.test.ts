// Totals over exactly the window asked, whatever the granularity: the sandbox answers, as a real
// CDN plausibly does, with the whole bucket holding `since` (and, told to, the one starting at
// `until`); the totals must count the window and nothing around it.
import { afterEach, describe, expect, it } from 'vitest';
import { analyticsComment } from '../../../src/blocks/analytics.js';
import type { Zone } from '../../../src/cdn/schemas.js';
import {
  type ChartInput,
  type ChartRenderer,
  chartConfig,
  type TrafficChartInput,
} from '../../../src/charts/traffic-chart.js';
import {
  SANDBOX_DEMO_KEY,
  type Sandbox,
  type SandboxOptions,
} from '../../../src/dev/sandbox/server.js';
import { syntheticTraffic } from '../../../src/dev/sandbox/traffic.js';
import {
  AnalyticsService,
  parseAnalyticsArgs,
  RANGES,
  type RangeKey,
} from '../../../src/services/analytics/analytics.js';
import { DailyReportService } from '../../../src/services/reports/daily-report.js';
import type { Schedule } from '../../../src/store/schedules.js';
import { ManualClock } from '../../helpers/clock.js';
import { captureLogs } from '../../helpers/logs.js';
import { cdnSetup } from '../cdn-setup.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STEP = { minute: MINUTE, '5min': 5 * MINUTE, hour: HOUR, day: DAY } as const;
const WORKSPACE = 'T1';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Draws nothing: keeps what it was asked to draw. */
class RecordingRenderer implements ChartRenderer {
  readonly inputs: TrafficChartInput[] = [];
  async render(input: ChartInput): Promise<Buffer> {
    if (!('kind' in input)) this.inputs.push(input);
    return Buffer.from('png');
  }
}

async function world(now: string, sandboxOptions: SandboxOptions = {}) {
  const clock = new ManualClock(Date.parse(now));
  const { sandbox, transport, store, services } = await cdnSetup({
    clock,
    sandbox: sandboxOptions,
    logger: captureLogs('warn').logger,
    zoneIndex: { limits: { maxPages: 10, operationTimeoutMs: 30_000 } },
  });
  closers.push(
    () => sandbox.close(),
    () => transport.close(),
  );
  await store.credentials.set(WORKSPACE, SANDBOX_DEMO_KEY, { userId: 'U1', validated: true });
  const login = await store.credentials.get(WORKSPACE);
  if (!login) throw new Error('no login key');
  const { cdn, reads, scopes } = services;
  const renderer = new RecordingRenderer();
  return {
    clock,
    sandbox,
    renderer,
    /** The login account's id: the sandbox's zones are its. */
    account: login.accountId,
    analytics: new AnalyticsService(cdn, store, renderer, clock, reads, scopes),
    reports: new DailyReportService(cdn, store, renderer),
  };
}

type World = Awaited<ReturnType<typeof world>>;

/** The sandbox's zone `name`, of the world's login account. */
function zoneOf(w: Pick<World, 'sandbox' | 'account'>, name: string): Zone {
  const zone = w.sandbox.state.byName(name);
  if (!zone) throw new Error(`no zone ${name}`);
  return {
    id: zone.id,
    name,
    status: 'active',
    createdAt: new Date(zone.createdAt).toISOString(),
    accountId: w.account,
  };
}

/**
 * What the zone served in [since, until), straight from the sandbox's model: the minutes that start
 * in it (the current one so far).
 */
function truth(sandbox: Sandbox, name: string, since: number, until: number, now: number) {
  const zone = sandbox.state.byName(name);
  if (!zone) throw new Error(`no zone ${name}`);
  const minutes = syntheticTraffic(
    zone.id,
    { since: Math.ceil(since / MINUTE) * MINUTE, until, granularity: 'minute' },
    { from: zone.createdAt, to: now },
    sandbox.state.shapesOf(zone.id),
  );
  const sum = (key: 'requests' | 'bandwidth' | 'hits') =>
    minutes.reduce((total, m) => total + m[key], 0);
  return {
    requests: sum('requests'),
    bandwidth: sum('bandwidth'),
    hitRate: sum('hits') / sum('requests'),
  };
}

/** What example.com served from `since` to `until` (ISO times), up to the world's now. */
function served(w: World, since: string, until: string) {
  return truth(w.sandbox, 'example.com', Date.parse(since), Date.parse(until), w.clock.now());
}

/** Every request the sandbox got starts on a boundary of its granularity: no bucket is cut. */
function requestsAligned(sandbox: Sandbox) {
  const step = STEP as Record<string, number>;
  return sandbox.requests
    .filter((r) => r.path.endsWith('/analytics/traffic'))
    .every((r) => Date.parse(r.query.since ?? '') % (step[r.query.granularity ?? ''] ?? 1) === 0);
}

describe('analytics totals count exactly the window', () => {
  // 15:21:37 UTC: no bucket of any size starts at now − range.
  const NOW = '2026-11-22T15:21:37Z';
  const now = Date.parse(NOW);

  it.each<[RangeKey, 'minute' | 'hour' | 'day', number]>([
    // Hours over a day: from 15:00 yesterday, 24 whole hours and the current one so far.
    ['24h', 'hour', 25],
    // A day's bucket over a day: yesterday from midnight, and today so far (two days).
    ['24h', 'day', 2],
    // A day's bucket over an hour: today since midnight, 15 times the hour.
    ['1h', 'day', 1],
    ['6h', 'hour', 7],
    ['1h', 'minute', 61],
    ['7d', 'day', 8],
  ])('%s by %s', async (range, granularity, points) => {
    const w = await world(NOW);
    const report = await w.analytics.report(
      WORKSPACE,
      zoneOf(w, 'example.com'),
      { range, granularity },
      'Asia/Kolkata',
    );
    const exact = truth(w.sandbox, 'example.com', report.range.since, report.range.until, now);
    const { totals, series } = report.traffic;
    expect([totals.requests, totals.bandwidth]).toEqual([exact.requests, exact.bandwidth]);
    // The window: from the start of the bucket holding now − range (of the minute, when the range
    // is one bucket or less), to now.
    const span = RANGES[range];
    const bucket = STEP[granularity];
    const start = span > bucket ? bucket : MINUTE;
    expect(report.range.since).toBe(Math.floor((now - span) / start) * start);
    expect(report.range.until).toBe(now);
    // The sandbox rounds each answer's rate to 4 places.
    expect(totals.cacheHitRate).toBeCloseTo(exact.hitRate, 3);
    // The series is what the totals sum, one point a bucket, the cut one marked.
    expect(series.reduce((t, p) => t + p.requests, 0)).toBe(totals.requests);
    expect(series).toHaveLength(points);
    if (report.range.since % bucket !== 0)
      expect(series[0]?.clipped).toEqual({ since: report.range.since, until: expect.any(Number) });
    expect(requestsAligned(w.sandbox)).toBe(true);
    // The chart says what it covers.
    expect(w.renderer.inputs[0]?.subtitle).toMatch(
      new RegExp(
        `^\\w{3} \\d+ \\w{3} \\d\\d:\\d\\d – Sun 22 Nov 20:51 \\(Asia/Kolkata\\) · by ${granularity}$`,
      ),
    );
  });

  it('1 h by day: the hour, not the day so far', async () => {
    const w = await world(NOW);
    const report = await w.analytics.report(
      WORKSPACE,
      zoneOf(w, 'example.com'),
      { range: '1h', granularity: 'day' },
      'UTC',
    );
    const hour = truth(w.sandbox, 'example.com', now - HOUR - 37_000, now, now);
    expect(report.traffic.totals.requests).toBe(hour.requests);
    expect(w.renderer.inputs[0]?.subtitle).toBe(
      'Sun 22 Nov 14:21 – Sun 22 Nov 15:21 (UTC) · by day',
    );
  });
});

/** The points the chart joins with its lines, and the lighter ones it draws apart. */
function drawn(input: TrafficChartInput | undefined) {
  if (!input) throw new Error('no chart drawn');
  const config = chartConfig(input);
  const points = (label: string) =>
    config.data.datasets.find((d) => d.label === label)?.data.map((p) => ({ x: p.x, y: p.y })) ??
    [];
  return {
    line: points('Requests'),
    soFar: points('Requests so far'),
    partial: points('Requests partial'),
    title: String(config.options?.plugins?.title?.text),
    subtitle: [config.options?.plugins?.subtitle?.text ?? []].flat().join('\n'),
  };
}

describe('charts never draw a cut bucket as a drop', () => {
  // 15:21:37 UTC: now − 7 days and now − 30 days fall inside an hour and a day.
  const NOW = '2026-11-22T15:21:37Z';
  const now = Date.parse(NOW);

  /** The chart a person gets asking for `range`, its granularity left to the bot. */
  async function asked(w: World, range: RangeKey) {
    const args = parseAnalyticsArgs([range]);
    if (!args.ok) throw new Error(`not a range: ${range}`);
    const report = await w.analytics.report(
      WORKSPACE,
      zoneOf(w, 'example.com'),
      { range, granularity: args.granularity },
      'Europe/Paris',
    );
    return { report, input: w.renderer.inputs[0] };
  }

  it.each<[RangeKey, number, number]>([
    ['7d', HOUR, 7 * 24],
    ['30d', DAY, 30],
  ])(
    '%s: the window starts on a bucket; only the current one is partial, drawn "so far"',
    async (range, bucket, whole) => {
      const w = await world(NOW);
      const { report, input } = await asked(w, range);
      const { since, until } = report.range;
      expect(since % bucket).toBe(0);
      expect(until).toBe(now);
      const { line, soFar, partial, subtitle } = drawn(input);
      // Every point the line joins is a whole bucket inside the window, at its whole count: none is
      // a part of one drawn as if traffic had fallen.
      expect(line).toHaveLength(whole);
      for (const point of line) {
        expect(point.x).toBeGreaterThanOrEqual(since);
        expect(point.x + bucket).toBeLessThanOrEqual(until);
      }
      const exact = (from: number, to: number) => truth(w.sandbox, 'example.com', from, to, now);
      for (const point of [line[0], line[1], line.at(-1)])
        expect(point?.y).toBe(exact(point?.x ?? 0, (point?.x ?? 0) + bucket).requests);
      // The current bucket, apart and lighter, and said so.
      const current = Math.floor(now / bucket) * bucket;
      expect(soFar).toEqual([{ x: current, y: exact(current, now).requests }]);
      expect(partial).toEqual([]);
      expect(subtitle).toContain('so far (lighter)');
      // The totals are the window's, as the chart says it.
      expect(report.traffic.totals.requests).toBe(exact(since, until).requests);
    },
  );

  it('6 h: 5-minute buckets summed from minutes, 72 and the current one, said in words', async () => {
    const w = await world(NOW);
    const { report, input } = await asked(w, '6h');
    expect(report.range.granularity).toBe('5min');
    const { since, until } = report.range;
    expect(since % (5 * MINUTE)).toBe(0);
    const { series, totals } = report.traffic;
    // Readable: not 360 noisy minutes.
    expect(series.length).toBeLessThanOrEqual(100);
    expect(series).toHaveLength(73);
    const exact = (from: number, to: number) => truth(w.sandbox, 'example.com', from, to, now);
    expect(series[0]?.requests).toBe(exact(since, since + 5 * MINUTE).requests);
    expect(totals.requests).toBe(exact(since, until).requests);
    expect(requestsAligned(w.sandbox)).toBe(true);
    const { line, soFar, title } = drawn(input);
    expect(line).toHaveLength(72);
    expect(soFar).toHaveLength(1);
    expect(title).toBe('example.com · last 6 h by 5 minutes · Europe/Paris');
    expect(input?.subtitle).toMatch(/ · by 5 minutes$/);
    expect(analyticsComment(report).text).toContain('last 6 h by 5 minutes (Europe/Paris)');
  });

  it('a range of one bucket (24 h by day): yesterday’s part and today so far, both apart', async () => {
    const w = await world(NOW);
    const report = await w.analytics.report(
      WORKSPACE,
      zoneOf(w, 'example.com'),
      { range: '24h', granularity: 'day' },
      'UTC',
    );
    const { line, soFar, partial, subtitle } = drawn(w.renderer.inputs[0]);
    expect(report.range.since).toBe(now - DAY - 37_000);
    expect(line).toEqual([]);
    expect(partial.map((p) => p.x)).toEqual([Date.parse('2026-11-21T00:00:00Z')]);
    expect(soFar.map((p) => p.x)).toEqual([Date.parse('2026-11-22T00:00:00Z')]);
    expect(subtitle).toContain('only part of the first day, the current day so far (lighter)');
  });
});

describe('a daily report counts exactly its day', () => {
  const schedule = (w: World, timeZone: string): Schedule => ({
    id: 's1',
    workspaceId: WORKSPACE,
    accountId: w.account,
    zoneId: zoneOf(w, 'example.com').id,
    zoneName: 'example.com',
    channelId: 'C1',
    createdBy: 'U1',
    timeOfDay: '09:00',
    timeZone,
    status: 'active',
    nextRunAt: 0,
    lastRunAt: null,
    pausedReason: null,
    createdAt: 0,
    updatedAt: 0,
  });

  it('in a time zone whose hours start at half past (the CDN’s hours are cut at both ends)', async () => {
    // 09:00 in Kolkata on Sunday 22 Nov: yesterday is 20 Nov 18:30 – 21 Nov 18:30 UTC.
    const at = Date.parse('2026-11-22T03:30:00Z');
    const w = await world('2026-11-22T03:30:05Z');
    const report = await w.reports.build(schedule(w, 'Asia/Kolkata'), at);
    const day = served(w, '2026-11-20T18:30:00Z', '2026-11-21T18:30:00Z');
    const before = served(w, '2026-11-19T18:30:00Z', '2026-11-20T18:30:00Z');
    expect([report.yesterday.requests, report.yesterday.bandwidth]).toEqual([
      day.requests,
      day.bandwidth,
    ]);
    expect(report.dayBefore.requests).toBe(before.requests);
    expect(requestsAligned(w.sandbox)).toBe(true);
    const input = w.renderer.inputs[0];
    expect(input?.traffic.series).toHaveLength(25);
    expect(input?.subtitle).toBe('Sat 21 Nov 00:00 – Sun 22 Nov 00:00 (Asia/Kolkata) · by hour');
    // Its first and last hours are halves of the CDN's (from 18:30, to 18:30): drawn apart as
    // parts, never joined to the whole hours as a drop.
    const { line, soFar, partial, subtitle } = drawn(input);
    expect(line).toHaveLength(23);
    expect(soFar).toEqual([]);
    expect(partial.map((p) => p.x)).toEqual([
      Date.parse('2026-11-20T18:00:00Z'),
      Date.parse('2026-11-21T18:00:00Z'),
    ]);
    expect(subtitle).toContain('only part of the first hour, only part of the last hour (lighter)');
  });

  it('when the CDN also answers the bucket starting at `until` (and counts it)', async () => {
    // 09:00 UTC on Sunday 22 Nov: yesterday is 21 Nov, whole hours.
    const at = Date.parse('2026-11-22T09:00:00Z');
    const w = await world('2026-11-22T09:00:05Z', { analyticsUntil: 'inclusive' });
    const report = await w.reports.build(schedule(w, 'UTC'), at);
    const day = served(w, '2026-11-21T00:00:00Z', '2026-11-22T00:00:00Z');
    expect([report.yesterday.requests, report.yesterday.bandwidth]).toEqual([
      day.requests,
      day.bandwidth,
    ]);
    expect(w.renderer.inputs[0]?.traffic.series).toHaveLength(24);
  });
});
