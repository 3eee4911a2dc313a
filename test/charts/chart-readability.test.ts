// Charts people read (issue 28, item 10): marker labels never overlap, one number format per axis,
// alert charts say their time zone, the interval still filling is drawn "so far", and a range
// with no traffic says so. Each is checked on the configuration handed to Chart.js, and where it
// shows, on the PNG.
import { createCanvas, loadImage } from 'canvas';
import type { Chart } from 'chart.js';
import { ChartJSNodeCanvas } from 'chartjs-node-canvas';
import { describe, expect, it } from 'vitest';
import type { TrafficAnalytics } from '../../src/cdn/schemas.js';
import { type AlertChartInput, alertChartConfig } from '../../src/charts/alert-chart.js';
import { axisLabels } from '../../src/charts/format.js';
import { labelWidth, PLOT_WIDTH_PX } from '../../src/charts/marker-layout.js';
import {
  CHART_SIZE,
  type ChartMarker,
  chartConfig,
  type TrafficChartInput,
  TrafficChartRenderer,
} from '../../src/charts/traffic-chart.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const until = Date.parse('2026-11-22T12:00:00Z');
const renderer = new TrafficChartRenderer();

function traffic(
  points: number,
  stepMs: number,
  requests: (i: number) => number,
): TrafficAnalytics {
  const start = until - points * stepMs;
  const series = Array.from({ length: points }, (_, i) => ({
    timestamp: new Date(start + i * stepMs).toISOString(),
    time: start + i * stepMs,
    requests: requests(i),
    bandwidth: requests(i) * 20_000,
  }));
  const total = series.reduce((sum, p) => sum + p.requests, 0);
  return {
    totals: { requests: total, bandwidth: total * 20_000, cacheHitRate: 0.9 },
    series,
  };
}

const day = (markers: ChartMarker[] = [], data = traffic(24, HOUR, (i) => 40_000 + i * 2_500)) =>
  ({
    zoneName: 'example.com',
    traffic: data,
    range: { since: until - 24 * HOUR, until, granularity: 'hour', label: 'last 24 h' },
    timeZone: 'Europe/Paris',
    markers,
  }) satisfies TrafficChartInput;

type Tick = (value: number, index: number, ticks: Array<{ value: number }>) => string;
/** An axis's labels as Chart.js asks for them: one call a tick, with all the ticks. */
const labelsOf = (callback: unknown, values: number[]) =>
  values.map((value, i) =>
    (callback as Tick)(
      value,
      i,
      values.map((v) => ({ value: v })),
    ),
  );

/** Decodes a PNG to its pixels. */
async function pixels(png: Buffer) {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const data = context.getImageData(0, 0, image.width, image.height).data;
  /** Pixels within `tolerance` of `rgb` in the box. */
  return (
    rgb: [number, number, number],
    box: { x0: number; y0: number; x1: number; y1: number },
    tolerance = 24,
  ) => {
    let count = 0;
    for (let y = box.y0; y < box.y1; y++)
      for (let x = box.x0; x < box.x1; x++) {
        const i = (y * image.width + x) * 4;
        if (
          Math.abs((data[i] ?? 0) - rgb[0]) <= tolerance &&
          Math.abs((data[i + 1] ?? 0) - rgb[1]) <= tolerance &&
          Math.abs((data[i + 2] ?? 0) - rgb[2]) <= tolerance
        )
          count++;
      }
    return count;
  };
}

describe('marker labels', () => {
  /** Six changes within an hour and a half, and one alone. */
  const busy: ChartMarker[] = [
    { at: until - 20 * HOUR, label: 'purge everything', kind: 'purge' },
    { at: until - 5 * HOUR, label: 'purge 30 URLs', kind: 'purge' },
    { at: until - 5 * HOUR + 10 * MINUTE, label: 'rate limit on', kind: 'ratelimit' },
    { at: until - 5 * HOUR + 25 * MINUTE, label: 'purge tag product-images', kind: 'purge' },
    { at: until - 5 * HOUR + 40 * MINUTE, label: 'purge 2 URLs', kind: 'purge' },
    { at: until - 4 * HOUR, label: 'rate limit off', kind: 'ratelimit' },
    { at: until - 3 * HOUR - 30 * MINUTE, label: 'purge 1 URL', kind: 'purge' },
  ];

  /** The boxes (px on the narrowest plot) of the labels drawn, by row. */
  function boxes(input: TrafficChartInput) {
    const config = chartConfig(input);
    const min = Number(config.options?.scales?.x?.min);
    const max = Number(config.options?.scales?.x?.max);
    const annotations = Object.values(
      config.options?.plugins?.annotation?.annotations ?? {},
    ) as Array<{
      type: string;
      xMin: number;
      label?: { display: boolean; content: string; yAdjust: number };
    }>;
    return annotations
      .filter((a) => a.type === 'line' && a.label?.display)
      .map((a) => {
        const x = ((a.xMin - min) / (max - min)) * PLOT_WIDTH_PX;
        const width = labelWidth(a.label?.content ?? '');
        return {
          row: a.label?.yAdjust,
          left: x - width / 2,
          right: x + width / 2,
          text: a.label?.content,
        };
      });
  }

  it('never overlap: labels in a row are apart, on the narrowest plot they are drawn on', () => {
    const drawn = boxes(day(busy));
    expect(drawn.length).toBeGreaterThanOrEqual(4);
    for (const a of drawn)
      for (const b of drawn)
        if (a !== b && a.row === b.row) expect(a.right <= b.left || b.right <= a.left).toBe(true);
    // The one alone keeps its words.
    expect(drawn.map((d) => d.text)).toContain('purge everything');
  });

  it('never overlap for any markers: a hundred random days', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const words = [
      'purge everything',
      'purge 3 URLs',
      'rate limit on',
      'purge tag a-rather-long-tag',
    ];
    for (let run = 0; run < 100; run++) {
      const markers = Array.from({ length: 1 + Math.floor(random() * 12) }, () => ({
        at: until - Math.floor(random() * 24 * HOUR),
        label: words[Math.floor(random() * words.length)] ?? 'purge',
        kind: random() < 0.5 ? ('purge' as const) : ('ratelimit' as const),
      }));
      const drawn = boxes(day(markers));
      for (const a of drawn)
        for (const b of drawn)
          if (a !== b && a.row === b.row) expect(a.right <= b.left || b.right <= a.left).toBe(true);
    }
  });

  it('the plot is never narrower than the layout assumes, with the widest axes', async () => {
    const widest = traffic(24, HOUR, (i) => 9_000_000_000 + i);
    widest.series = widest.series.map((p) => ({ ...p, bandwidth: 987_654_321_012_345 }));
    let width = 0;
    const canvas = new ChartJSNodeCanvas({
      ...CHART_SIZE,
      plugins: { modern: ['chartjs-plugin-annotation'] },
    });
    const config = chartConfig(day(busy, widest));
    await canvas.renderToBuffer({
      ...config,
      plugins: [
        {
          id: 'probe',
          afterLayout: (chart: Chart) => {
            width = chart.chartArea.width;
          },
        },
      ],
    } as never);
    expect(width).toBeGreaterThanOrEqual(PLOT_WIDTH_PX);
  });
});

describe('one number format per axis', () => {
  it('labels every tick of an axis in its largest tick’s unit', () => {
    expect(axisLabels([0, 20_000, 40_000, 60_000, 80_000, 100_000, 120_000], 'count')).toEqual([
      '0',
      '20 k',
      '40 k',
      '60 k',
      '80 k',
      '100 k',
      '120 k',
    ]);
    expect(axisLabels([0, 2_000, 4_000, 6_000, 8_000], 'count')).toEqual([
      '0',
      '2,000',
      '4,000',
      '6,000',
      '8,000',
    ]);
    expect(axisLabels([0, 500_000, 1_000_000, 1_500_000], 'count')).toEqual([
      '0',
      '0.5 M',
      '1.0 M',
      '1.5 M',
    ]);
    expect(axisLabels([0, 250_000_000, 500_000_000, 750_000_000, 1_000_000_000], 'bytes')).toEqual([
      '0',
      '0.25 GB',
      '0.50 GB',
      '0.75 GB',
      '1.00 GB',
    ]);
    expect(axisLabels([0, 0.2, 0.4, 0.6, 0.8, 1], 'percent')).toEqual([
      '0',
      '20 %',
      '40 %',
      '60 %',
      '80 %',
      '100 %',
    ]);
  });

  it('the traffic chart’s axes: "50 k" beside "100 k", never "50,000"', () => {
    const scales = chartConfig(day()).options?.scales;
    expect(labelsOf(scales?.requests?.ticks?.callback, [0, 50_000, 100_000])).toEqual([
      '0',
      '50 k',
      '100 k',
    ]);
    expect(
      labelsOf(scales?.bandwidth?.ticks?.callback, [0, 500_000_000, 1_000_000_000, 1_500_000_000]),
    ).toEqual(['0', '0.5 GB', '1.0 GB', '1.5 GB']);
  });

  it('the alert chart’s axis too', () => {
    const config = alertChartConfig(
      alert({ metric: 'requests', seriesLabel: 'requests in 5 min' }),
    );
    expect(
      labelsOf(config.options?.scales?.y?.ticks?.callback, [0, 25_000, 50_000, 75_000, 100_000]),
    ).toEqual(['0', '25 k', '50 k', '75 k', '100 k']);
  });
});

function alert(over: Partial<AlertChartInput> = {}): AlertChartInput {
  return {
    kind: 'alert',
    zoneName: 'example.com',
    title: 'requests>50000/5m',
    metric: 'requests',
    seriesLabel: 'requests in 5 min',
    series: Array.from({ length: 120 }, (_, i) => ({
      time: until - 2 * HOUR + i * MINUTE,
      value: i > 100 ? 80_000 : 30_000,
    })),
    since: until - 2 * HOUR,
    until,
    timeZone: 'UTC',
    threshold: { value: 50_000, label: 'threshold requests>50000/5m' },
    breach: 'above',
    window: { from: until - 15 * MINUTE },
    subtitle: '80,000 in 5 min · threshold requests>50000/5m',
    ...over,
  };
}

describe('time zones', () => {
  it('an alert chart says which time zone its times are in', () => {
    expect(alertChartConfig(alert()).options?.scales?.x?.title).toMatchObject({
      display: true,
      text: 'time (UTC)',
    });
    expect(
      alertChartConfig(alert({ timeZone: 'Asia/Kolkata' })).options?.scales?.x?.title?.text,
    ).toBe('time (Asia/Kolkata)');
  });

  it('a traffic chart (reports too) says it in its title', () => {
    expect(chartConfig(day()).options?.plugins?.title?.text).toContain('Europe/Paris');
  });
});

describe('the interval still filling', () => {
  /** 24 whole hours of 60,000 requests, then the current hour 6 minutes in: 6,000 so far. */
  const filling = () => {
    const data = traffic(24, HOUR, () => 60_000);
    data.series.push({
      timestamp: new Date(until).toISOString(),
      time: until,
      requests: 6_000,
      bandwidth: 6_000 * 20_000,
    });
    return {
      ...day([], data),
      // From the start of the hour holding now − 24 h: only the current hour is partial.
      range: {
        since: until - 24 * HOUR,
        until: until + 6 * MINUTE,
        granularity: 'hour',
        label: 'last 24 h',
        endsNow: true,
      },
    } satisfies TrafficChartInput;
  };

  it('is a lighter point of its own, labelled "so far", with no line into it', () => {
    const config = chartConfig(filling());
    const [requests, bandwidth, ...soFar] = config.data.datasets;
    expect(requests?.data.at(-1)?.x).toBe(until - HOUR);
    expect(bandwidth?.data.at(-1)?.x).toBe(until - HOUR);
    expect(soFar.map((d) => d.label)).toEqual(['Requests so far', 'Bandwidth so far']);
    for (const d of soFar) {
      expect(d.data).toEqual([{ x: until, y: expect.any(Number) }]);
      expect((d as { showLine?: boolean }).showLine).toBe(false);
      expect(String(d.borderColor)).toMatch(/^rgba\(.*, 0\.4\)$/);
    }
    const annotations = config.options?.plugins?.annotation?.annotations as Record<
      string,
      { content?: string; xValue?: number; yValue?: number }
    >;
    expect(annotations.soFar).toMatchObject({ content: 'so far', xValue: until, yValue: 6_000 });
    expect(config.options?.plugins?.subtitle?.text).toContain('the current hour so far');
  });

  it('draws no line down to it: the PNG has no line pixels between the last whole hour and it', async () => {
    const png = await renderer.render(filling());
    const count = await pixels(png);
    // The last whole hour is drawn at x ≈ 1060 (y 68), the point so far at x ≈ 1103 (y 520):
    // between them, no line in the series' blue or in grey (a line down to it would cross here).
    const between = { x0: 1068, y0: 90, x1: 1095, y1: 480 };
    expect(count([37, 99, 235], between, 40) + count([156, 163, 175], between, 40)).toBe(0);
  });
});

describe('no traffic', () => {
  const quiet = () =>
    day(
      [],
      traffic(24, HOUR, () => 0),
    );

  it('says so on the traffic chart, with no scale to read', () => {
    const config = chartConfig(quiet());
    const annotations = config.options?.plugins?.annotation?.annotations as Record<
      string,
      { content?: string }
    >;
    expect(annotations.noTraffic?.content).toBe('No traffic in this range');
    expect(config.options?.scales?.requests?.display).toBe(false);
    expect(config.options?.plugins?.legend?.display).toBe(false);
  });

  it('says so on an alert chart', () => {
    const { threshold: _threshold, breach: _breach, ...plain } = alert({ series: [] });
    const config = alertChartConfig(plain);
    const annotations = config.options?.plugins?.annotation?.annotations as Record<
      string,
      { content?: string }
    >;
    expect(annotations.noTraffic?.content).toBe('No traffic in these hours');
  });

  it('the PNG shows the words in the middle of the frame', async () => {
    const count = await pixels(await renderer.render(quiet()));
    // The words are drawn in grey (#6b7280) across the middle.
    expect(count([107, 114, 128], { x0: 400, y0: 290, x1: 800, y1: 350 }, 30)).toBeGreaterThan(500);
  });
});
