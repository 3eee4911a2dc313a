// The sandbox's traffic endpoint: GET /zones/{id}/analytics/traffic, with totals and a time series.
import { GRANULARITIES, type Granularity } from '../../cdn/schemas.js';
import type { Clock } from '../../clock.js';
import { fail, instantParam, isOneOf, ok, type Reply } from './http.js';
import type { SandboxRules } from './rules.js';
import type { SandboxState } from './state.js';
import { STEP_MS, syntheticTraffic } from './traffic.js';
import { liveZone } from './zones.js';

export function analytics(
  state: SandboxState,
  zoneId: string,
  query: URLSearchParams,
  clock: Clock,
  rules: Pick<SandboxRules, 'maxAnalyticsPoints' | 'analyticsUntil'>,
): Reply {
  const maxPoints = rules.maxAnalyticsPoints;
  const zone = liveZone(state.byId(zoneId));
  if (!zone) return fail(404, 'zone_not_found', 'No such zone');
  const since = instantParam(query, 'since');
  const until = instantParam(query, 'until');
  const granularity = query.get('granularity');
  if (since === null) return fail(400, 'invalid_since', 'since must be an ISO 8601 date-time');
  if (until === null) return fail(400, 'invalid_until', 'until must be an ISO 8601 date-time');
  if (granularity === null || !isOneOf(granularity, GRANULARITIES)) {
    return fail(400, 'invalid_granularity', 'granularity must be one of minute, hour, day');
  }
  if (since >= until) return fail(400, 'invalid_range', 'since must be before until');
  const step = STEP_MS[granularity as Granularity];
  const points = Math.ceil((until - Math.floor(since / step) * step) / step);
  if (points > maxPoints) {
    return fail(
      400,
      'range_too_large',
      `At most ${maxPoints} points per request; use a coarser granularity`,
    );
  }
  // Only active zones serve traffic, and none before they were created or after now.
  const buckets =
    state.statusOf(zone) === 'active'
      ? syntheticTraffic(
          zone.id,
          {
            since,
            // Inclusive: the bucket that starts at `until` is answered too.
            until: rules.analyticsUntil === 'inclusive' ? until + 1 : until,
            granularity: granularity as Granularity,
          },
          { from: zone.createdAt, to: clock.now() },
          state.shapesOf(zone.id),
        )
      : [];
  let requests = 0;
  let bandwidth = 0;
  let hits = 0;
  for (const bucket of buckets) {
    requests += bucket.requests;
    bandwidth += bucket.bandwidth;
    hits += bucket.hits;
  }
  return ok({
    data: {
      totals: {
        requests,
        bandwidth,
        cache_hit_rate: requests === 0 ? 0 : Math.round((hits / requests) * 10_000) / 10_000,
      },
      timeseries: buckets.map((bucket) => ({
        timestamp: new Date(bucket.start).toISOString().replace('.000Z', 'Z'),
        requests: bucket.requests,
        bandwidth: bucket.bandwidth,
      })),
    },
  });
}
