// `npm run charts:docs`: draws the example charts in docs/charts/ from the sandbox's synthetic
// traffic (the same numbers every run), through the windows and chart builders the bot uses: an
// alert on the cache hit rate, a day by hour with the current hour so far and changes marked, 6 h
// by 5 minutes, 30 days by day, and a range with no traffic. test/charts/docs-charts.test.ts draws
// them too.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Granularity, TrafficAnalytics } from '../cdn/schemas.js';
import type { ChartInput, ChartMarker, TrafficChartInput } from '../charts/traffic-chart.js';
import { TrafficChartRenderer } from '../charts/traffic-chart.js';
import { type ChartGranularity, windowText } from '../charts/window.js';
import { trafficOver, windowEndingAt } from '../services/analytics/traffic-window.js';
import { alertChart, HITRATE_STEP_MS } from '../services/watches/watch-chart.js';
import type { WatchAlert } from '../store/watch-alerts.js';
import { syntheticTraffic, type TrafficShape } from './sandbox/traffic.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** "Now" in every example: a Monday, 10:21 UTC. */
const NOW = Date.parse('2026-11-23T10:21:00Z');
const ZONE = 'shop.example.com';

function traffic(
  range: { since: number; until: number; granularity: Granularity },
  shapes: TrafficShape[] = [],
  zoneId = ZONE,
): TrafficAnalytics {
  const buckets = syntheticTraffic(zoneId, range, { from: 0, to: NOW }, shapes);
  const requests = buckets.reduce((sum, b) => sum + b.requests, 0);
  const hits = buckets.reduce((sum, b) => sum + b.hits, 0);
  return {
    totals: {
      requests,
      bandwidth: buckets.reduce((sum, b) => sum + b.bandwidth, 0),
      cacheHitRate: requests === 0 ? 0 : hits / requests,
    },
    series: buckets.map((b) => ({
      timestamp: new Date(b.start).toISOString(),
      time: b.start,
      requests: b.requests,
      bandwidth: b.bandwidth,
    })),
  };
}

/**
 * The last `span` by `granularity` as a chart asked for at NOW gets it: its window from the start
 * of a bucket, its traffic read as the bot reads the CDN's (traffic-window.ts), from the sandbox's.
 */
async function endingNow(
  span: number,
  granularity: ChartGranularity,
  chart: { label: string; timeZone: string; markers: ChartMarker[] },
  shapes: TrafficShape[] = [],
  zoneName = ZONE,
): Promise<TrafficChartInput> {
  const { since, until } = windowEndingAt(NOW, span, granularity);
  const client = {
    trafficAnalytics: async (
      zoneId: string,
      asked: { since: Date; until: Date; granularity: Granularity },
    ) =>
      traffic(
        {
          since: asked.since.getTime(),
          until: asked.until.getTime(),
          granularity: asked.granularity,
        },
        shapes,
        zoneId,
      ),
  };
  const range = { since, until, granularity, label: chart.label, endsNow: true };
  return {
    zoneName,
    traffic: await trafficOver(client, zoneName, { since, until, granularity, endsNow: true }),
    range,
    timeZone: chart.timeZone,
    markers: chart.markers,
    subtitle: windowText(range, chart.timeZone),
  };
}

/** `hitrate<80%` firing since 09:55: the hit rate fell to 41 % for 25 minutes. */
function hitRateAlert(): ChartInput {
  const until = Math.floor(NOW / MINUTE) * MINUTE;
  const since = until - 2 * HOUR;
  const fall: TrafficShape = { kind: 'hitrate', hitRate: 0.41, from: until - 26 * MINUTE, to: NOW };
  const hitRates = [];
  for (let start = since; start < until; start += HITRATE_STEP_MS) {
    const part = traffic({ since: start, until: start + HITRATE_STEP_MS, granularity: 'minute' }, [
      fall,
    ]);
    hitRates.push({ time: start, hitRate: part.totals.cacheHitRate });
  }
  const alert: WatchAlert = {
    id: 'alert_docs',
    accountId: 'A1',
    workspaceId: 'T1',
    watchId: 'watch_docs',
    zoneId: ZONE,
    zoneName: ZONE,
    channelId: 'C1',
    rule: 'hitrate<80%',
    status: 'firing',
    startedAt: until - 18 * MINUTE,
    resolvedAt: null,
    detail: { value: 0.41, bound: 0.8 },
    messageTs: null,
  };
  return alertChart(alert, {
    since,
    until,
    series: [],
    hitRates,
    baseline: undefined,
    settings: { minHistoryDays: 3 },
  });
}

/** The last 24 h by hour at 10:21: the current hour so far, and a busy morning of changes. */
function partialDay(): Promise<ChartInput> {
  const markers: ChartMarker[] = [
    { at: NOW - 14 * HOUR, label: 'purge everything', kind: 'purge' },
    { at: NOW - 5 * HOUR, label: 'purge 30 URLs', kind: 'purge' },
    { at: NOW - 5 * HOUR + 10 * MINUTE, label: 'rate limit on', kind: 'ratelimit' },
    { at: NOW - 5 * HOUR + 25 * MINUTE, label: 'purge tag product-images', kind: 'purge' },
    { at: NOW - 5 * HOUR + 40 * MINUTE, label: 'purge 2 URLs', kind: 'purge' },
    { at: NOW - 4 * HOUR, label: 'rate limit off', kind: 'ratelimit' },
  ];
  return endingNow(DAY, 'hour', { label: 'last 24 h', timeZone: 'Europe/Paris', markers });
}

/** The last 6 h by 5 minutes (the minutes summed by five): 72 points and the current 5 so far. */
function sixHours(): Promise<ChartInput> {
  return endingNow(6 * HOUR, '5min', {
    label: 'last 6 h',
    timeZone: 'Europe/Paris',
    markers: [{ at: NOW - 2 * HOUR - 10 * MINUTE, label: 'purge 4 URLs', kind: 'purge' }],
  });
}

/** The last 30 days by day: from midnight UTC 30 days ago, every day whole but today. */
function month(): Promise<ChartInput> {
  return endingNow(30 * DAY, 'day', {
    label: 'last 30 days',
    timeZone: 'America/New_York',
    markers: [
      { at: NOW - 12 * DAY, label: 'purge everything', kind: 'purge' },
      { at: NOW - 12 * DAY + 2 * HOUR, label: 'rate limit on', kind: 'ratelimit' },
    ],
  });
}

/** A zone that served nothing in the last 6 hours (its traffic dropped to nothing). */
function noTraffic(): Promise<ChartInput> {
  const none: TrafficShape = { kind: 'drop', factor: 0, from: NOW - 7 * HOUR, to: NOW };
  return endingNow(
    6 * HOUR,
    '5min',
    { label: 'last 6 h', timeZone: 'UTC', markers: [] },
    [none],
    'old.example.com',
  );
}

/** Each example chart by its file name in docs/charts/. */
export async function docsCharts(): Promise<Record<string, ChartInput>> {
  return {
    'alert-hitrate.png': hitRateAlert(),
    'partial-bucket-after.png': await partialDay(),
    'traffic-6h.png': await sixHours(),
    'traffic-30d.png': await month(),
    'no-traffic.png': await noTraffic(),
  };
}

/** Draws every example into `dir`; the files written. */
export async function writeDocsCharts(dir: string): Promise<string[]> {
  const renderer = new TrafficChartRenderer();
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const [file, input] of Object.entries(await docsCharts())) {
    writeFileSync(join(dir, file), await renderer.render(input));
    written.push(join(dir, file));
  }
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const file of await writeDocsCharts('docs/charts')) process.stdout.write(`${file}\n`);
}
