// An alert's chart end to end: the real app, the fake Slack and the sandbox over HTTP, a hit-rate
// rule firing, and its chart drawn from what the CDN says of the hit rate (issue 28, item 4).
import { describe, expect, it } from 'vitest';
import { alerts, interval, shape, watching } from './flows.js';
import { startHarness } from './harness.js';

describe('an alert’s chart', () => {
  it('draws a hit-rate alert’s hit rate with its threshold and the breach', async () => {
    const h = await startHarness({ slack: { fileReadyMs: 0 } });
    const zoneId = await watching(h, 'example.com', ' hitrate<60%');
    shape(h, zoneId, 30, 'hitrate');
    await interval(h, 8);
    // Slack's text escapes `<`.
    const texts = alerts(h).map((m) => m.text);
    expect(texts).toContain('Alert: example.com · hitrate&lt;60%');
    const image = alerts(h)
      .find((m) => m.text?.includes('hitrate&lt;60%'))
      ?.blocks?.find((b) => (b as { type: string }).type === 'image') as {
      slack_file: { id: string };
    };
    expect(h.slack.files.get(image.slack_file.id)?.bytes.subarray(1, 4).toString('ascii')).toBe(
      'PNG',
    );

    const row = await h.store.db
      .selectFrom('watch_alerts')
      .select('id')
      .where('rule', '=', 'hitrate<60%')
      .executeTakeFirstOrThrow();
    const alert = await h.store.watchAlerts.alert(row.id);
    if (!alert) throw new Error('no alert');
    const before = h.sandbox.requests.length;
    const input = await h.deps.watchEvaluation.posting.chartInput(alert);
    expect(input?.metric).toBe('hitrate');
    expect(input?.threshold).toEqual({ value: 0.6, label: 'threshold hitrate<60%' });
    expect(input?.breach).toBe('below');
    // Every 5 minutes of the last two hours, each a request of its own to the CDN.
    expect(input?.series).toHaveLength(24);
    const values = (input?.series ?? []).map((p) => p.value ?? Number.NaN);
    // The sandbox's usual hit rate (78–98 %) before, its 40 % fall at the end.
    expect(Math.min(...values.slice(0, 20))).toBeGreaterThan(0.7);
    expect(values.at(-1)).toBeCloseTo(0.4, 1);
    // Every one of them 5 minutes long.
    const asked = h.sandbox.requests.slice(before);
    expect(asked).toHaveLength(24);
    for (const r of asked)
      expect(Date.parse(String(r.query.until)) - Date.parse(String(r.query.since))).toBe(300_000);
  });
});
