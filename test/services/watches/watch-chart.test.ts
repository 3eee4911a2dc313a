// Every alert chart draws what its rule watches, with its threshold and the breach marked
// (issue 28, item 4): the cache hit rate for a hit-rate rule, a threshold's own sum over its
// window for a count, requests against the usual band for a spike or a drop.
import { describe, expect, it } from 'vitest';
import { alertChartConfig, breachPoints } from '../../../src/charts/alert-chart.js';
import { alertChart } from '../../../src/services/watches/watch-chart.js';
import type { Baseline } from '../../../src/services/watches/watch-rules.js';
import type { WatchAlert } from '../../../src/store/watch-alerts.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const until = Date.parse('2026-11-23T10:20:00Z');
const since = until - 2 * HOUR;

const alertOf = (rule: string, detail: Record<string, unknown>): WatchAlert => ({
  id: 'alert_1',
  workspaceId: 'T1',
  accountId: 'acc_1',
  watchId: 'watch_1',
  zoneId: 'zone_1',
  zoneName: 'example.com',
  channelId: 'C1',
  rule,
  status: 'firing',
  startedAt: until - 15 * MINUTE,
  resolvedAt: null,
  detail,
  messageTs: null,
});

/** Minutes from `from` to `until`, 1,000 requests each, 10,000 from 10:00 on. */
const minutes = (from = since) =>
  Array.from({ length: (until - from) / MINUTE }, (_, i) => {
    const time = from + i * MINUTE;
    const requests = time >= until - 20 * MINUTE ? 10_000 : 1_000;
    return { time, requests, bandwidth: requests * 50_000 };
  });

/** A hit rate every 5 minutes: 92 %, 40 % from 10:00 on. */
const hitRates = Array.from({ length: 24 }, (_, i) => {
  const time = since + i * 5 * MINUTE;
  return { time, hitRate: time >= until - 20 * MINUTE ? 0.4 : 0.92 };
});

const data = { since, until, baseline: undefined, settings: { minHistoryDays: 3 } };

describe('the chart of a hit-rate alert', () => {
  it('draws the hit rate, the threshold, and the points below it (hitrate<80%)', () => {
    const input = alertChart(alertOf('hitrate<80%', { value: 0.4, bound: 0.8 }), {
      ...data,
      series: minutes(),
      hitRates,
    });
    expect(input.metric).toBe('hitrate');
    expect(input.series).toHaveLength(24);
    expect(input.series[0]).toEqual({ time: since, value: 0.92 });
    expect(input.threshold).toEqual({ value: 0.8, label: 'threshold hitrate<80%' });
    expect(input.breach).toBe('below');
    const config = alertChartConfig(input);
    const annotations = config.options?.plugins?.annotation?.annotations as Record<
      string,
      { yMin?: number }
    >;
    expect(annotations.threshold?.yMin).toBe(0.8);
    // The breach: the four points at 40 %, drawn red on their own.
    const breach = config.data.datasets.find((d) => d.label === 'Below the threshold');
    expect(breach?.data.filter((p) => p.y !== null)).toHaveLength(4);
    expect(breach?.borderColor).toBe('#dc2626');
    // Read against the whole 0–100 %, in percent.
    expect(config.options?.scales?.y).toMatchObject({ min: 0, max: 1 });
  });

  it('draws the automatic rule’s bound: the usual hit rate less 15 points', () => {
    const input = alertChart(alertOf('hitrate_fall', { value: 0.4, bound: 0.77 }), {
      ...data,
      series: minutes(),
      hitRates,
    });
    expect(input.metric).toBe('hitrate');
    expect(input.threshold?.value).toBe(0.77);
    expect(input.threshold?.label).toContain('77.0 %');
    expect(breachPoints(input).filter((p) => p.y !== null)).toHaveLength(4);
  });

  it('leaves out a hit rate with no requests (no point, not 0 %)', () => {
    const quiet = hitRates.map((p, i) => (i < 3 ? { time: p.time, hitRate: null } : p));
    const input = alertChart(alertOf('hitrate<80%', { value: 0.4, bound: 0.8 }), {
      ...data,
      series: [],
      hitRates: quiet,
    });
    expect(input.series.slice(0, 3).map((p) => p.value)).toEqual([null, null, null]);
    expect(
      breachPoints(input)
        .slice(0, 3)
        .map((p) => p.y),
    ).toEqual([null, null, null]);
  });
});

describe('the chart of a count threshold', () => {
  it('draws the rule’s own sum over its window against the threshold as typed', () => {
    const rule = 'requests>30000/5m';
    const input = alertChart(alertOf(rule, { value: 50_000, bound: 30_000 }), {
      ...data,
      // Read from the window before `since` on: the first points are whole sums too.
      series: minutes(since - 5 * MINUTE),
    });
    expect(input.metric).toBe('requests');
    expect(input.seriesLabel).toBe('requests in 5 min');
    expect(input.series).toHaveLength(120);
    expect(input.series[0]).toEqual({ time: since, value: 5_000 });
    expect(input.series.at(-1)?.value).toBe(50_000);
    expect(input.threshold).toEqual({ value: 30_000, label: `threshold ${rule}` });
    // Above 30,000 once three of the five minutes are at 10,000.
    expect(breachPoints(input).filter((p) => p.y !== null)).toHaveLength(18);
  });

  it('draws bandwidth in bytes', () => {
    const input = alertChart(alertOf('bandwidth>1g/5m', { value: 2e9, bound: 1e9 }), {
      ...data,
      series: minutes(since - 5 * MINUTE),
    });
    expect(input.metric).toBe('bandwidth');
    expect(input.threshold?.value).toBe(1e9);
    expect(input.series.at(-1)?.value).toBe(2_500_000_000);
  });
});

describe('the chart of a spike or a drop', () => {
  /** Eight days of 60,000 requests an hour: a usual 1,000 a minute. */
  const baseline: Baseline = {
    start: until - 8 * 24 * HOUR - (until % HOUR),
    hours: new Array(8 * 24).fill(60_000),
    hitRate: 0.92,
  };

  it('draws requests a minute, the usual band, and the points above it', () => {
    const input = alertChart(alertOf('spike', { value: 10_000, bound: 1_500, median: 1_000 }), {
      ...data,
      baseline,
      series: minutes(),
    });
    expect(input.metric).toBe('requests');
    expect(input.band?.length).toBeGreaterThan(0);
    expect(input.breach).toBe('above');
    expect(breachPoints(input).filter((p) => p.y !== null)).toHaveLength(20);
  });
});
