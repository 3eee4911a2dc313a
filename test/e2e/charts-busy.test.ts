import { describe, expect, it } from 'vitest';
import { ChartPool } from '../../src/charts/render-pool.js';
import type { ChartRenderer } from '../../src/charts/traffic-chart.js';
import { AppError } from '../../src/errors.js';
import { afterEachTest } from '../helpers/after-each-test.js';
import { parseExposition, sumOf } from '../helpers/prometheus.js';
import { MEMBER, startHarness, textOf } from './harness.js';

/** A chart pool whose workers and queue are all taken. */
const fullPool: ChartRenderer = {
  render: async () => {
    throw new AppError({ code: 'charts_busy' });
  },
};

const BUSY = 'I am drawing a lot of charts right now. Try again in a minute.';

const pools: ChartPool[] = [];
afterEachTest(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

describe('/cdn analytics while every chart worker is busy', () => {
  it('answers at once that it is busy, instead of making the user wait without end', async () => {
    const h = await startHarness({ login: true, chartRenderer: fullPool });
    await h.command('analytics example.com');
    const [answer] = await h.slack.waitForMessages((m) => textOf(m).includes(BUSY));
    expect(answer?.ephemeralTo ?? answer?.via).toBeTruthy();
    expect(h.slack.callsTo('files.completeUploadExternal')).toHaveLength(0);
    // Expected, not a bug: no error logged, no "ref" to quote.
    expect(textOf(answer)).not.toContain('ref');
    const errors = h.logs.lines.map((l) => JSON.parse(l) as { level: number });
    expect(errors.filter((l) => l.level >= 50)).toEqual([]);
  });

  // Each chart holds a place in the pool (its worker, or its queue) from before its data is
  // fetched: a chart refused as busy asks the CDN nothing.
  it('40 concurrent `/cdn analytics <zone> 30d` from one member: only the charts drawn ask the CDN', async () => {
    const charts = new ChartPool({ threads: 1, queue: 2, nice: 0 });
    pools.push(charts);
    const h = await startHarness({
      login: true,
      chartRenderer: charts,
      env: { METRICS_TOKEN: 'charts-busy-metrics-token' },
    });
    const isAnalytics = (r: { path: string }) => r.path.endsWith('/analytics/traffic');
    const uploads = () => h.slack.callsTo('files.completeUploadExternal');
    const refused = (start: string) =>
      h.slack.messages.filter((m) => m.ephemeralTo === MEMBER && (m.text ?? '').startsWith(start));
    const answered = () => uploads().length + refused('Slow down').length + refused(BUSY).length;

    const acks = await Promise.all(
      Array.from({ length: 40 }, () => h.command('analytics example.com 30d')),
    );
    expect(acks.every((a) => a.status === 200)).toBe(true);
    // Every command answered: a chart, or a refusal.
    await new Promise<void>((resolve) => {
      const check = () => {
        if (answered() < 40) return;
        h.slack.off('response', check).off('call', check);
        resolve();
      };
      h.slack.on('response', check).on('call', check);
      check();
    });
    expect(answered()).toBe(40);
    // 30 reads a minute for one person (CDN_READ_RATE_LIMIT): ten refused before anything.
    expect(refused('Slow down')).toHaveLength(10);
    // Of the 30 let through, the pool had room for a few (1 worker and 2 waiting at a time).
    const drawn = uploads().length;
    expect(drawn).toBeGreaterThanOrEqual(1);
    expect(refused(BUSY).length).toBe(30 - drawn);
    // A 30-day chart starts where a day starts (midnight UTC 30 days ago), so it is one CDN
    // request by day: the CDN was asked for the charts drawn, and for nothing else.
    expect(h.sandbox.requests.filter(isAnalytics)).toHaveLength(drawn);
    // /metrics counts them as the charts' requests.
    const scraped = await fetch(`${h.url}/metrics`, {
      headers: { authorization: 'Bearer charts-busy-metrics-token' },
    });
    const metrics = parseExposition(await scraped.text());
    expect(sumOf(metrics, 'cdn_chatops_cdn_requests_total', { feature: 'analytics' })).toBe(drawn);
  });
});
