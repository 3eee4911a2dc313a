// The example charts in docs/charts/ (`npm run charts:docs`) are drawn by the bot's own builders:
// each renders, and shows what it is there to show.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alertChartConfig } from '../../src/charts/alert-chart.js';
import { CHART_SIZE, chartConfig } from '../../src/charts/traffic-chart.js';
import { docsCharts, writeDocsCharts } from '../../src/dev/docs-charts.js';

const dir = mkdtempSync(join(tmpdir(), 'docs-charts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run charts:docs', () => {
  it('draws every example as a PNG of the chart’s size', async () => {
    const written = await writeDocsCharts(dir);
    expect(written.map((file) => file.slice(dir.length + 1)).sort()).toEqual([
      'alert-hitrate.png',
      'no-traffic.png',
      'partial-bucket-after.png',
      'traffic-30d.png',
      'traffic-6h.png',
    ]);
    for (const file of written) {
      const png = readFileSync(file);
      expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
      expect({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }).toEqual(CHART_SIZE);
    }
  });

  it('shows what each example is for', async () => {
    const charts = await docsCharts();
    const alert = charts['alert-hitrate.png'];
    if (!alert || !('kind' in alert)) throw new Error('no alert example');
    const config = alertChartConfig(alert);
    expect(alert.metric).toBe('hitrate');
    expect(config.data.datasets.map((d) => d.label)).toContain('Below the threshold');
    const annotations = (input: (typeof charts)[string] | undefined) => {
      if (!input || 'kind' in input) throw new Error('not a traffic chart');
      return Object.keys(chartConfig(input).options?.plugins?.annotation?.annotations ?? {});
    };
    expect(annotations(charts['partial-bucket-after.png'])).toContain('soFar');
    expect(annotations(charts['traffic-30d.png'])).toContain('soFar');
    // Every day whole but today: no part of one drawn as a drop.
    expect(annotations(charts['traffic-30d.png'])).not.toContain('partial0');
    const six = charts['traffic-6h.png'];
    if (!six || 'kind' in six) throw new Error('no 6 h example');
    expect(six.range.granularity).toBe('5min');
    expect(six.traffic.series).toHaveLength(73);
    expect(annotations(charts['no-traffic.png'])).toContain('noTraffic');
  });
});
