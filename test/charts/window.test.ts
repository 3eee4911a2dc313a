// The chart's subtitle: its window, its buckets and its time zone, above the totals.
import { describe, expect, it } from 'vitest';
import { chartConfig, type TrafficChartInput } from '../../src/charts/traffic-chart.js';
import { windowText } from '../../src/charts/window.js';

const since = Date.parse('2026-11-21T10:21:00Z');
const until = Date.parse('2026-11-22T10:21:37Z');

describe('windowText', () => {
  it('says the window in the time zone, the buckets and the zone', () => {
    expect(windowText({ since, until, granularity: 'hour' }, 'Europe/Paris')).toBe(
      'Sat 21 Nov 11:21 – Sun 22 Nov 11:21 (Europe/Paris) · by hour',
    );
  });

  it('names UTC when the time zone is unknown, as the chart draws it', () => {
    expect(windowText({ since, until, granularity: 'day' }, 'Mars/Olympus_Mons')).toBe(
      'Sat 21 Nov 10:21 – Sun 22 Nov 10:21 (UTC) · by day',
    );
  });

  it('says 5-minute buckets in words', () => {
    expect(windowText({ since, until, granularity: '5min' }, 'UTC')).toBe(
      'Sat 21 Nov 10:21 – Sun 22 Nov 10:21 (UTC) · by 5 minutes',
    );
  });
});

describe('the chart subtitle', () => {
  const input: TrafficChartInput = {
    zoneName: 'example.com',
    traffic: {
      totals: { requests: 1_200, bandwidth: 3_000_000, cacheHitRate: 0.9 },
      series: [
        { timestamp: '', time: Date.parse('2026-11-21T10:00:00Z'), requests: 1_000, bandwidth: 1 },
        { timestamp: '', time: Date.parse('2026-11-21T11:00:00Z'), requests: 200, bandwidth: 1 },
      ],
    },
    range: { since, until, granularity: 'hour', label: 'last 24 h' },
    timeZone: 'Europe/Paris',
    markers: [],
  };

  it('draws the window line above the totals', () => {
    const subtitle = windowText(input.range, input.timeZone);
    const text = chartConfig({ ...input, subtitle }).options?.plugins?.subtitle?.text;
    // The window starts at 10:21, inside the first hour: that hour is only part of one.
    expect(text).toEqual([
      subtitle,
      '1,200 requests · 3.00 MB · cache hit rate 90.0 % · only part of the first hour (lighter)',
    ]);
  });
});
