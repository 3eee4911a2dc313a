import { afterEach, describe, expect, it } from 'vitest';
import { ChartPool } from '../../src/charts/render-pool.js';
import { type TrafficChartInput, TrafficChartRenderer } from '../../src/charts/traffic-chart.js';
import { AppError } from '../../src/errors.js';

const HOUR = 3_600_000;
const since = Date.parse('2026-11-22T00:00:00Z');
const input: TrafficChartInput = {
  zoneName: 'example.com',
  traffic: {
    totals: { requests: 48_000, bandwidth: 9e9, cacheHitRate: 0.91 },
    series: Array.from({ length: 24 }, (_, i) => ({
      timestamp: new Date(since + i * HOUR).toISOString(),
      time: since + i * HOUR,
      requests: 1_500 + ((i * 37) % 11) * 90,
      bandwidth: 3e8 + i * 1e7,
    })),
  },
  range: { since, until: since + 24 * HOUR, granularity: 'hour', label: 'last 24 h' },
  timeZone: 'Europe/Paris',
  markers: [{ at: since + 5 * HOUR, label: 'purge 3 URLs', kind: 'purge' }],
};

const pools: ChartPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

function pool(options: ConstructorParameters<typeof ChartPool>[0]): ChartPool {
  const created = new ChartPool(options);
  pools.push(created);
  return created;
}

const busy = (outcome: PromiseSettledResult<Buffer>) =>
  outcome.status === 'rejected' &&
  outcome.reason instanceof AppError &&
  outcome.reason.code === 'charts_busy';

describe('ChartPool', () => {
  it('draws in a worker thread exactly the PNG the in-process renderer draws', async () => {
    const png = await pool({ threads: 1 }).render(input);
    expect(Buffer.compare(png, await new TrafficChartRenderer().render(input))).toBe(0);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('refuses a chart someone waits for once the queue is full, and draws the rest', async () => {
    const charts = pool({ threads: 1, queue: 2 });
    await charts.render(input); // the worker is up and idle
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => charts.render(input)),
    );
    const refused = outcomes.filter(busy).length;
    const drawn = outcomes.filter((o) => o.status === 'fulfilled').length;
    // One drawing and two waiting at most: the others are refused at once, none fails otherwise.
    expect(drawn + refused).toBe(8);
    expect(drawn).toBeGreaterThanOrEqual(2);
    expect(drawn).toBeLessThanOrEqual(3);
    // The first ones in are the ones drawn: the refusals are the latecomers.
    expect(outcomes.slice(0, 2).every((o) => o.status === 'fulfilled')).toBe(true);
    expect(busy(outcomes[7] as PromiseSettledResult<Buffer>)).toBe(true);
  });

  it('lets background work wait for room instead', async () => {
    const charts = pool({ threads: 1, queue: 1 });
    const pngs = await Promise.all(
      Array.from({ length: 6 }, () => charts.render(input, { wait: true })),
    );
    expect(pngs).toHaveLength(6);
    for (const png of pngs) expect(png.length).toBeGreaterThan(10_000);
  });

  it('sizes itself from the cores, leaving one to the event loop', () => {
    const charts = pool({});
    expect(charts.threads).toBeGreaterThanOrEqual(1);
    expect(charts.queue).toBe(charts.threads * 4);
  });
});
