import { describe, expect, it } from 'vitest';
import { answer200, cdnFixture } from '../helpers/cdn.js';

const ON = { limits: { enabled: true, mode: 'automatic' } } as const;

describe('updateSettings', () => {
  it('sends the id and an explicit mode', async () => {
    const { client, sandbox } = await cdnFixture();
    const zone = sandbox.state.byName('example.com');
    await client().updateSettings({ id: zone?.id ?? '', name: 'example.com' }, ON);
    expect(sandbox.requests.map((r) => [r.path, r.body])).toEqual([
      [`/zones/${zone?.id}/settings`, { limits: { enabled: true, mode: 'automatic' } }],
    ]);
    expect(zone?.limits.enabled).toBe(true);
  });

  it('falls back to the name on 404 and remembers it for that server', async () => {
    const { client, sandbox } = await cdnFixture({ settingsPath: 'name-only' });
    const zone = sandbox.state.byName('example.com');
    const ref = { id: zone?.id ?? '', name: 'example.com' };
    await client().updateSettings(ref, ON);
    expect(sandbox.requests.map((r) => [r.path, r.status])).toEqual([
      [`/zones/${zone?.id}/settings`, 404],
      ['/zones/example.com/settings', 200],
    ]);
    // A second client on the same transport (another workspace) goes straight to the name.
    await client({ apiKey: 'sandbox-demo-key' }).updateSettings(ref, {
      limits: { enabled: false, mode: 'automatic' },
    });
    expect(sandbox.requests.slice(2).map((r) => r.path)).toEqual(['/zones/example.com/settings']);
    expect(zone?.limits.enabled).toBe(false);
  });

  it('reports not_found when neither form is known', async () => {
    const { client, sandbox } = await cdnFixture();
    await expect(
      client().updateSettings({ id: 'zone_nope', name: 'nope.example.com' }, ON),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(sandbox.requests).toHaveLength(2);
  });

  it('does not try the other form after an error other than 404', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 403 });
    const zone = sandbox.state.byName('example.com');
    await expect(
      client().updateSettings({ id: zone?.id ?? '', name: 'example.com' }, ON),
    ).rejects.toMatchObject({ code: 'forbidden' });
    expect(sandbox.requests).toHaveLength(1);
  });
});

describe('trafficAnalytics', () => {
  it('always sends since, until and granularity, and parses totals and series', async () => {
    const { client, sandbox, clock } = await cdnFixture();
    const zone = sandbox.state.byName('example.com');
    const until = new Date(clock.now());
    const since = new Date(clock.now() - 6 * 3_600_000);
    const traffic = await client().trafficAnalytics(zone?.id ?? '', {
      since,
      until,
      granularity: 'hour',
    });
    expect(sandbox.requests[0]?.query).toEqual({
      since: '2026-11-22T06:00:00Z',
      until: '2026-11-22T12:00:00Z',
      granularity: 'hour',
    });
    expect(traffic.series).toHaveLength(6);
    expect(traffic.series[0]).toMatchObject({
      timestamp: '2026-11-22T06:00:00Z',
      time: Date.parse('2026-11-22T06:00:00Z'),
    });
    expect(traffic.totals.requests).toBe(traffic.series.reduce((sum, p) => sum + p.requests, 0));
    expect(traffic.totals.cacheHitRate).toBeGreaterThan(0);
    expect(traffic.totals.cacheHitRate).toBeLessThanOrEqual(1);
  });

  it('drops buckets wholly outside the range: one starting at `until`, or around it', async () => {
    const { client, sandbox } = await cdnFixture({ analyticsUntil: 'inclusive' });
    const zoneId = sandbox.state.byName('example.com')?.id ?? '';
    const range = {
      since: new Date('2026-11-21T06:00:00Z'),
      until: new Date('2026-11-21T12:00:00Z'),
      granularity: 'hour' as const,
    };
    const traffic = await client().trafficAnalytics(zoneId, range);
    expect(traffic.series.map((p) => p.timestamp.slice(11, 13))).toEqual([
      '06',
      '07',
      '08',
      '09',
      '10',
      '11',
    ]);
    // A range starting inside a bucket keeps that bucket: it overlaps the range.
    const cut = await client().trafficAnalytics(zoneId, {
      ...range,
      since: new Date('2026-11-21T06:30:00Z'),
    });
    expect(cut.series[0]?.timestamp).toBe('2026-11-21T06:00:00Z');
    expect(cut.series).toHaveLength(6);
  });

  it('refuses an empty range without a request', async () => {
    const { client, sandbox } = await cdnFixture();
    const at = new Date();
    await expect(
      client().trafficAnalytics('z', { since: at, until: at, granularity: 'minute' }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    expect(sandbox.requests).toHaveLength(0);
  });

  it('rejects a cache hit rate outside [0, 1]', async () => {
    const { client, sandbox } = await cdnFixture();
    answer200(sandbox, {
      success: true,
      data: { totals: { requests: 1, bandwidth: 1, cache_hit_rate: 97.5 }, timeseries: [] },
    });
    await expect(
      client().trafficAnalytics('z', {
        since: new Date(0),
        until: new Date(60_000),
        granularity: 'minute',
      }),
    ).rejects.toMatchObject({
      code: 'unexpected_response',
      message: expect.stringContaining('totals.cache_hit_rate'),
    });
  });
});
