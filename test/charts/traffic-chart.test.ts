import { createCanvas, loadImage } from 'canvas';
import { describe, expect, it } from 'vitest';
import type { TrafficAnalytics } from '../../src/cdn/schemas.js';
import {
  formatBytes,
  formatCount,
  formatPercent,
  safeTimeZone,
  timeFormatter,
} from '../../src/charts/format.js';
import {
  CHART_SIZE,
  chartConfig,
  type TrafficChartInput,
  TrafficChartRenderer,
} from '../../src/charts/traffic-chart.js';

const HOUR = 3_600_000;
const renderer = new TrafficChartRenderer();
const until = Date.parse('2026-11-22T12:00:00Z');

function series(points: number, stepMs: number): TrafficAnalytics {
  const start = until - points * stepMs;
  const data = Array.from({ length: points }, (_, i) => ({
    timestamp: new Date(start + i * stepMs).toISOString(),
    time: start + i * stepMs,
    requests: 1_000 + Math.round(800 * Math.sin(i / 5)) + 800,
    bandwidth: (1_000 + i * 37) * 150_000,
  }));
  return {
    totals: {
      requests: data.reduce((s, p) => s + p.requests, 0),
      bandwidth: data.reduce((s, p) => s + p.bandwidth, 0),
      cacheHitRate: 0.934,
    },
    series: data,
  };
}

const input = (
  traffic: TrafficAnalytics,
  span: number,
  granularity: 'minute' | 'hour' | 'day',
  markers: TrafficChartInput['markers'] = [],
): TrafficChartInput => ({
  zoneName: 'example.com',
  traffic,
  range: { since: until - span, until, granularity, label: 'test range' },
  timeZone: 'Europe/Paris',
  markers,
});

/** Checks the PNG signature and IHDR size, then decodes it and counts distinct colours. */
async function inspect(png: Buffer) {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
  const size = { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, image.width, image.height).data;
  const colours = new Set<number>();
  let white = 0;
  for (let i = 0; i < pixels.length; i += 4 * 7) {
    const rgb = ((pixels[i] ?? 0) << 16) | ((pixels[i + 1] ?? 0) << 8) | (pixels[i + 2] ?? 0);
    colours.add(rgb);
    if (rgb === 0xffffff) white++;
  }
  return {
    size,
    colours: colours.size,
    whiteShare: white / (pixels.length / (4 * 7)),
    topLeft: [...pixels.subarray(0, 4)],
  };
}

describe('traffic chart', () => {
  it('renders a valid, non-blank PNG of the expected size on a white background', async () => {
    const png = await renderer.render(input(series(24, HOUR), 24 * HOUR, 'hour'));
    const result = await inspect(png);
    expect(result.size).toEqual(CHART_SIZE);
    expect(result.topLeft).toEqual([255, 255, 255, 255]);
    expect(result.colours).toBeGreaterThan(20);
    expect(result.whiteShare).toBeLessThan(0.97);
  });

  it('marks purges and rate-limit changes in the range, and only those', async () => {
    const markers = [
      { at: until - 5 * HOUR, label: 'purge 30 URLs', kind: 'purge' as const },
      { at: until - 9 * HOUR, label: 'rate limit on', kind: 'ratelimit' as const },
      { at: until - 48 * HOUR, label: 'too early', kind: 'purge' as const },
    ];
    const config = chartConfig(input(series(24, HOUR), 24 * HOUR, 'hour', markers));
    const annotations = Object.values(
      config.options?.plugins?.annotation?.annotations ?? {},
    ) as Array<{ xMin: number; label: { content: string } }>;
    expect(annotations.map((a) => [a.xMin, a.label.content])).toEqual([
      [until - 5 * HOUR, 'purge 30 URLs'],
      [until - 9 * HOUR, 'rate limit on'],
    ]);
    const withMarkers = await inspect(
      await renderer.render(input(series(24, HOUR), 24 * HOUR, 'hour', markers)),
    );
    const without = await inspect(
      await renderer.render(input(series(24, HOUR), 24 * HOUR, 'hour')),
    );
    // Red and amber markers add colours the plain chart does not have.
    expect(withMarkers.colours).toBeGreaterThan(without.colours);
  });

  it('draws markers from a second renderer in the same process too', async () => {
    const markers = [{ at: until - 5 * HOUR, label: 'purge 30 URLs', kind: 'purge' as const }];
    const chart = input(series(24, HOUR), 24 * HOUR, 'hour', markers);
    const first = await renderer.render(chart);
    const second = await new TrafficChartRenderer().render(chart);
    expect(second.equals(first)).toBe(true);
    expect(second.equals(await renderer.render(input(series(24, HOUR), 24 * HOUR, 'hour')))).toBe(
      false,
    );
  });

  it('renders a single point and 30 days of hourly data', async () => {
    expect(
      (await inspect(await renderer.render(input(series(1, HOUR), HOUR, 'minute')))).size,
    ).toEqual(CHART_SIZE);
    const month = await inspect(
      await renderer.render(input(series(720, HOUR), 30 * 24 * HOUR, 'hour')),
    );
    expect(month.colours).toBeGreaterThan(20);
  });

  it('puts the zone, range, granularity, time zone and totals in the title', () => {
    const config = chartConfig(input(series(24, HOUR), 24 * HOUR, 'hour'));
    expect(config.options?.plugins?.title?.text).toBe(
      'example.com · test range by hour · Europe/Paris',
    );
    expect(config.options?.plugins?.subtitle?.text).toMatch(
      /^[\d,.]+ (k |M )?requests · [\d.]+ (MB|GB|TB) · cache hit rate 93\.4 %$/,
    );
  });
});

describe('the interval still filling', () => {
  /** 24 whole hours, then the current hour 21 minutes in (a third of its traffic so far). */
  function filling(): TrafficChartInput {
    const traffic = series(24, HOUR);
    const lastWhole = traffic.series.at(-1);
    if (!lastWhole) throw new Error('no series');
    traffic.series.push({
      timestamp: new Date(until).toISOString(),
      time: until,
      requests: Math.round(lastWhole.requests / 3),
      bandwidth: Math.round(lastWhole.bandwidth / 3),
    });
    const now = until + 21 * 60_000;
    return {
      ...input(traffic, 24 * HOUR, 'hour'),
      // From the start of the hour holding now − 24 h: only the current hour is partial.
      range: {
        since: until - 24 * HOUR,
        until: now,
        granularity: 'hour',
        label: 'last 24 h',
        endsNow: true,
      },
    };
  }

  it('draws the current hour as a lighter point of its own, "so far", and says so', () => {
    const config = chartConfig(filling());
    const [requests, bandwidth, ...rest] = config.data.datasets;
    // The lines stop at the last whole hour: no plunge.
    expect(requests?.data).toHaveLength(24);
    expect(bandwidth?.data).toHaveLength(24);
    expect(rest.map((d) => d.label)).toEqual(['Requests so far', 'Bandwidth so far']);
    for (const point of rest) {
      expect(point.data).toHaveLength(1);
      expect(point.data[0]?.x).toBe(until);
    }
    expect(config.options?.plugins?.subtitle?.text).toContain('the current hour so far (lighter)');
    // Left out of the legend.
    const filter = config.options?.plugins?.legend?.labels?.filter;
    expect(filter?.({ text: 'Requests so far' } as never, {} as never)).toBe(false);
    expect(filter?.({ text: 'Requests' } as never, {} as never)).toBe(true);
  });

  it('draws a lone bucket still filling as it is, with no note', () => {
    const one = filling();
    one.traffic.series = one.traffic.series.slice(-1);
    const config = chartConfig(one);
    expect(config.data.datasets).toHaveLength(2);
    expect(config.data.datasets[0]?.data).toHaveLength(1);
    expect(config.options?.plugins?.subtitle?.text).not.toContain('so far');
  });

  it('leaves a range of whole buckets as it is (a daily report ends at midnight)', () => {
    const config = chartConfig(input(series(24, HOUR), 24 * HOUR, 'hour'));
    expect(config.data.datasets).toHaveLength(2);
    expect(config.data.datasets[0]?.data).toHaveLength(24);
    expect(config.options?.plugins?.subtitle?.text).not.toContain('so far');
  });

  it('renders it, dense minute series included', async () => {
    await inspect(await renderer.render(filling()));
    const minutes = series(360, 60_000);
    minutes.series.push({
      requests: 400,
      bandwidth: 60_000_000,
      time: until,
      timestamp: new Date(until).toISOString(),
    });
    const dense: TrafficChartInput = {
      ...input(minutes, 6 * HOUR, 'minute'),
      range: {
        since: until - 6 * HOUR,
        until: until + 20_000,
        granularity: 'minute',
        label: 'last 6 h',
        endsNow: true,
      },
    };
    expect(chartConfig(dense).data.datasets).toHaveLength(4);
    expect((await inspect(await renderer.render(dense))).size).toEqual({
      width: 1200,
      height: 640,
    });
  });
});

describe('formatting', () => {
  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [1_000, '1.00 kB'],
    [1_536_000, '1.54 MB'],
    [38_123_456_789, '38.1 GB'],
    [987_654_321_012_345, '988 TB'],
    [-1, '–'],
  ])('formatBytes(%d) = %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it('formats counts and percentages', () => {
    expect([
      formatCount(950),
      formatCount(99_999),
      formatCount(208_123),
      formatCount(4_560_000_000),
    ]).toEqual(['950', '99,999', '208 k', '4.56 B']);
    expect(formatPercent(0.8964)).toBe('89.6 %');
  });

  it('formats times in the chosen time zone, across a DST change', () => {
    const paris = timeFormatter('Europe/Paris', 24 * HOUR);
    expect(paris(Date.parse('2026-07-01T12:00:00Z'))).toBe('14:00');
    expect(paris(Date.parse('2026-12-01T12:00:00Z'))).toBe('13:00');
    expect(timeFormatter('UTC', 30 * 24 * HOUR)(Date.parse('2026-11-05T00:00:00Z'))).toBe('5 Nov');
    expect(safeTimeZone('Mars/Olympus')).toBe('UTC');
    expect(safeTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
  });
});
