// Benchmark: our traffic chart beside a bare chartjs-node-canvas render of the same data, and
// memory over 2,000 renders with the one reused renderer.
import { performance } from 'node:perf_hooks';
import { ChartJSNodeCanvas } from 'chartjs-node-canvas';
import type { TrafficAnalytics } from '../src/cdn/schemas.js';
import { CHART_SIZE, TrafficChartRenderer } from '../src/charts/traffic-chart.js';
import { fmt, percentile, type Section, table } from './stats.js';

const POINTS = 1_440;
const TIMED = 200;
const MEMORY_RENDERS = Number(process.env.BENCH_CHART_RENDERS ?? 2_000);

function dayOfMinutes(): TrafficAnalytics {
  const until = Date.parse('2026-11-22T12:00:00Z');
  const series = Array.from({ length: POINTS }, (_, i) => {
    const time = until - (POINTS - i) * 60_000;
    const requests = Math.round(500 + 300 * Math.sin(i / 120) + 40 * Math.sin(i / 7));
    return {
      timestamp: new Date(time).toISOString(),
      time,
      requests,
      bandwidth: requests * 180_000,
    };
  });
  return {
    totals: {
      requests: series.reduce((s, p) => s + p.requests, 0),
      bandwidth: series.reduce((s, p) => s + p.bandwidth, 0),
      cacheHitRate: 0.91,
    },
    series,
  };
}

const gc = (globalThis as { gc?: () => void }).gc;
const settled = () => {
  gc?.();
  gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
};

export async function chartsBench(): Promise<Section> {
  const traffic = dayOfMinutes();
  const until = Date.parse('2026-11-22T12:00:00Z');
  const input = {
    zoneName: 'example.com',
    traffic,
    range: {
      since: until - 24 * 3_600_000,
      until,
      granularity: 'minute' as const,
      label: 'last 24 h',
    },
    timeZone: 'Europe/Paris',
    markers: [
      { at: until - 5 * 3_600_000, label: 'purge 30 URLs', kind: 'purge' as const },
      { at: until - 9 * 3_600_000, label: 'rate limit on', kind: 'ratelimit' as const },
    ],
  };
  const ours = new TrafficChartRenderer();
  const bare = new ChartJSNodeCanvas({ ...CHART_SIZE, backgroundColour: 'white' });
  const bareRender = () =>
    bare.renderToBuffer({
      type: 'line',
      data: {
        datasets: [
          {
            label: 'Requests',
            data: traffic.series.map((p) => ({ x: p.time, y: p.requests })),
            pointRadius: 0,
          },
          {
            label: 'Bandwidth',
            data: traffic.series.map((p) => ({ x: p.time, y: p.bandwidth })),
            pointRadius: 0,
            yAxisID: 'y1',
          },
        ],
      },
      options: {
        animation: false,
        parsing: false,
        scales: { x: { type: 'linear' }, y1: { position: 'right' } },
      },
    });

  for (let i = 0; i < 20; i++) {
    await ours.render(input);
    await bareRender();
  }
  const times = { ours: [] as number[], bare: [] as number[] };
  for (let i = 0; i < TIMED; i++) {
    let started = performance.now();
    await ours.render(input);
    times.ours.push(performance.now() - started);
    started = performance.now();
    await bareRender();
    times.bare.push(performance.now() - started);
  }

  const before = settled();
  const startedAll = performance.now();
  for (let i = 0; i < MEMORY_RENDERS; i++) await ours.render(input);
  const seconds = (performance.now() - startedAll) / 1000;
  const after = settled();
  const growth = (after.rss - before.rss) / 1e6;
  const heapGrowth = (after.heapUsed - before.heapUsed) / 1e6;

  const p50 = { ours: percentile(times.ours, 50), bare: percentile(times.bare, 50) };
  return {
    title: 'Traffic chart rendering',
    body: [
      `A ${POINTS.toLocaleString('en')}-point chart (a day of minutes) at ${CHART_SIZE.width}×${CHART_SIZE.height}, ` +
        `${TIMED} renders each, alternating, after a warm-up. *bare* is chartjs-node-canvas drawing the same two series ` +
        'with default options; *ours* adds the title, totals, two formatted axes, time-zone ticks, the bundled font and two markers.',
      '',
      table(
        ['renderer', 'p50', 'p99'],
        [
          ['ours', fmt(p50.ours), fmt(percentile(times.ours, 99))],
          ['bare chartjs-node-canvas', fmt(p50.bare), fmt(percentile(times.bare, 99))],
        ],
      ),
      '',
      `p50 ours / bare: **${(p50.ours / p50.bare).toFixed(2)}×** (target: within 1.2×).`,
      '',
      `Memory: ${MEMORY_RENDERS.toLocaleString('en')} more renders with the same renderer (${seconds.toFixed(1)} s) grew RSS by ` +
        `**${growth.toFixed(1)} MB** (JS heap ${heapGrowth >= 0 ? '+' : ''}${heapGrowth.toFixed(1)} MB) after garbage collection${gc ? '' : ' (run without --expose-gc: GC not forced)'} (target: under 50 MB).`,
    ].join('\n'),
  };
}
