import { describe, expect, it } from 'vitest';
import type { ChartRenderer } from '../../src/charts/traffic-chart.js';
import { AppError } from '../../src/errors.js';
import { startHarness, textOf } from './harness.js';

/** A chart pool whose workers and queue are all taken. */
const fullPool: ChartRenderer = {
  render: async () => {
    throw new AppError({ code: 'charts_busy' });
  },
};

describe('/cdn analytics while every chart worker is busy', () => {
  it('answers at once that it is busy, instead of making the user wait without end', async () => {
    const h = await startHarness({ login: true, chartRenderer: fullPool });
    await h.command('analytics example.com');
    const [answer] = await h.slack.waitForMessages((m) =>
      textOf(m).includes('I am drawing a lot of charts right now. Try again in a minute.'),
    );
    expect(answer?.ephemeralTo ?? answer?.via).toBeTruthy();
    expect(h.slack.callsTo('files.completeUploadExternal')).toHaveLength(0);
    // Expected, not a bug: no error logged, no "ref" to quote.
    expect(textOf(answer)).not.toContain('ref');
    const errors = h.logs.lines.map((l) => JSON.parse(l) as { level: number });
    expect(errors.filter((l) => l.level >= 50)).toEqual([]);
  });
});
