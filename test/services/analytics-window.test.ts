// Totals over exactly the window asked, whatever the granularity: the sandbox answers, as a real
// CDN plausibly does, with the whole bucket holding `since` (and, told to, the one starting at
// `until`); the totals must count the window and nothing around it.
import { afterEach, describe, expect, it } from 'vitest';
import type { Zone } from '../../src/cdn/schemas.js';
import type {
  ChartInput,
  ChartRenderer,
  TrafficChartInput,
} from '../../src/charts/traffic-chart.js';
import {
  SANDBOX_DEMO_KEY,
  type Sandbox,
  type SandboxOptions,
} from '../../src/dev/sandbox/server.js';
import { syntheticTraffic } from '../../src/dev/sandbox/traffic.js';
import { AnalyticsService, RANGES, type RangeKey } from '../../src/services/analytics.js';
import { DailyReportService } from '../../src/services/daily-report.js';
import type { Schedule } from '../../src/store/schedules.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import { cdnSetup } from './cdn-setup.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
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
  const { cdn, reads, zones } = services;
  const renderer = new RecordingRenderer();
  return {
    clock,
    sandbox,
    renderer,
    analytics: new AnalyticsService(cdn, store, renderer, clock, zones, reads),
    reports: new DailyReportService(cdn, store, renderer),
  };
}

type World = Awaited<ReturnType<typeof world>>;

function zoneOf(sandbox: Sandbox, name: string): Zone {
  const zone = sandbox.state.byName(name);
  if (!zone) throw new Error(`no zone ${name}`);
  return { id: zone.id, name, status: 'active', createdAt: new Date(zone.createdAt).toISOString() };
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
  const step = { minute: MINUTE, hour: HOUR, day: 24 * HOUR } as Record<string, number>;
  return sandbox.requests
    .filter((r) => r.path.endsWith('/analytics/traffic'))
    .every((r) => Date.parse(r.query.since ?? '') % (step[r.query.granularity ?? ''] ?? 1) === 0);
}

describe('analytics totals count exactly the window', () => {
  // 15:21:37 UTC: no bucket of any size starts at now − range.
  const NOW = '2026-11-22T15:21:37Z';
  const now = Date.parse(NOW);

  it.each<[RangeKey, 'minute' | 'hour' | 'day', number]>([
    // Hours over a day: the CDN's whole 15:00 hour held `since`.
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
      zoneOf(w.sandbox, 'example.com'),
      { range, granularity },
      'Asia/Kolkata',
    );
    const exact = truth(w.sandbox, 'example.com', report.range.since, report.range.until, now);
    const { totals, series } = report.traffic;
    expect([totals.requests, totals.bandwidth]).toEqual([exact.requests, exact.bandwidth]);
    // The window: from the minute holding now − range, to now.
    const span = RANGES[range];
    expect(report.range.since).toBe(Math.floor((now - span) / MINUTE) * MINUTE);
    expect(report.range.until).toBe(now);
    // The sandbox rounds each answer's rate to 4 places.
    expect(totals.cacheHitRate).toBeCloseTo(exact.hitRate, 3);
    // The series is what the totals sum, one point a bucket, the cut one marked.
    expect(series.reduce((t, p) => t + p.requests, 0)).toBe(totals.requests);
    expect(series).toHaveLength(points);
    if (report.range.since % { minute: MINUTE, hour: HOUR, day: 24 * HOUR }[granularity] !== 0)
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
      zoneOf(w.sandbox, 'example.com'),
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

describe('a daily report counts exactly its day', () => {
  const schedule = (sandbox: Sandbox, timeZone: string): Schedule => ({
    id: 's1',
    workspaceId: WORKSPACE,
    zoneId: zoneOf(sandbox, 'example.com').id,
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
    const report = await w.reports.build(schedule(w.sandbox, 'Asia/Kolkata'), at);
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
  });

  it('when the CDN also answers the bucket starting at `until` (and counts it)', async () => {
    // 09:00 UTC on Sunday 22 Nov: yesterday is 21 Nov, whole hours.
    const at = Date.parse('2026-11-22T09:00:00Z');
    const w = await world('2026-11-22T09:00:05Z', { analyticsUntil: 'inclusive' });
    const report = await w.reports.build(schedule(w.sandbox, 'UTC'), at);
    const day = served(w, '2026-11-21T00:00:00Z', '2026-11-22T00:00:00Z');
    expect([report.yesterday.requests, report.yesterday.bandwidth]).toEqual([
      day.requests,
      day.bandwidth,
    ]);
    expect(w.renderer.inputs[0]?.traffic.series).toHaveLength(24);
  });
});
