// Traffic over exactly a window, whatever the granularity: the whole buckets inside it as the CDN
// gives them, and each bucket the window cuts (it starts or ends inside it) summed from finer
// buckets over the part inside, so the totals count that window and nothing around it. Windows
// ending now start on a bucket boundary, so that only the current bucket is partial.

import type { CdnClient } from '../../cdn/client.js';
import {
  BUCKET_MS,
  type Granularity,
  type TrafficAnalytics,
  type TrafficPoint,
} from '../../cdn/schemas.js';
import { CHART_BUCKET_MS, type ChartGranularity, READ_AT } from '../../charts/window.js';

const MINUTE = BUCKET_MS.minute;

/** The next finer granularity: what a cut bucket is summed from. A minute is the finest. */
const FINER: Record<Granularity, Granularity | undefined> = {
  day: 'hour',
  hour: 'minute',
  minute: undefined,
};

export interface TrafficWindow {
  /** Epoch ms, on a whole minute (the CDN's finest bucket, which cannot be split). */
  since: number;
  /** Epoch ms, on a whole minute unless `endsNow`. */
  until: number;
  /** The CDN's, or `5min`: its minutes summed by five. */
  granularity: ChartGranularity;
  /**
   * The window ends now: the bucket holding `until` has nothing after it yet, so it is asked for
   * whole, as the current bucket "so far", instead of being summed from finer ones.
   */
  endsNow?: boolean;
}

/**
 * The window of `span` ending at `now`, by `granularity`: it starts where the bucket holding
 * `now − span` starts, so it is `span` plus the time into the current bucket, every bucket but the
 * current one is whole, and none is drawn cut as if traffic had dropped. A span of one bucket or
 * less (the last hour by day) starts on the minute holding `now − span` instead (a minute cannot be
 * split): aligned, it would be up to twice as long as asked, or a day for an hour.
 */
export function windowEndingAt(
  now: number,
  span: number,
  granularity: ChartGranularity,
): { since: number; until: number } {
  const bucket = CHART_BUCKET_MS[granularity];
  const step = span > bucket ? bucket : MINUTE;
  return { since: Math.floor((now - span) / step) * step, until: now };
}

/** Traffic counted over the part of the buckets inside the window. */
interface Counted {
  points: TrafficPoint[];
  /** Cache hits: each request's share of its CDN answer's hit rate. */
  hits: number;
}

type Client = Pick<CdnClient, 'trafficAnalytics'>;

/**
 * The traffic of exactly `window`: the series at its granularity (a cut bucket carries `clipped`),
 * and totals that are the sums of that series. The hit rate is weighted by requests over the CDN
 * answers, each of which covers whole buckets only, so each answer's rate is of its own range.
 * At most 3 requests (5 for days over a window cut at both ends), made at once.
 */
export async function trafficOver(
  client: Client,
  zoneId: string,
  window: TrafficWindow,
): Promise<TrafficAnalytics> {
  const counted = await count(client, zoneId, window);
  const points = counted.points.sort((a, b) => a.time - b.time);
  const requests = sum(points, 'requests');
  return {
    totals: {
      requests,
      bandwidth: sum(points, 'bandwidth'),
      cacheHitRate: requests === 0 ? 0 : Math.min(1, counted.hits / requests),
    },
    series: points,
  };
}

async function count(client: Client, zoneId: string, window: TrafficWindow): Promise<Counted> {
  if (window.granularity === '5min') {
    const minutes = await count(client, zoneId, { ...window, granularity: 'minute' });
    return { points: grouped(minutes.points, window), hits: minutes.hits };
  }
  const { since, until } = window;
  const granularity: Granularity = window.granularity;
  const finer = FINER[granularity];
  if (!finer) return whole(client, zoneId, window);
  const step = BUCKET_MS[granularity];
  // The whole buckets: from the first boundary at or after `since` to the last one at or before
  // `until`, or to `until` itself when the bucket holding it is the current one.
  const wholeSince = Math.ceil(since / step) * step;
  const wholeUntil = window.endsNow ? until : Math.floor(until / step) * step;
  const parts: Array<Promise<Counted>> = [];
  if (wholeSince < wholeUntil) {
    parts.push(whole(client, zoneId, { ...window, since: wholeSince, until: wholeUntil }));
  }
  // The cut buckets: the one holding `since`, and the one holding `until` (the same bucket when
  // the window lies inside one).
  const cuts = [
    { since, until: Math.min(wholeSince, until) },
    { since: Math.max(wholeSince, wholeUntil), until },
  ].filter((cut) => cut.since < cut.until);
  for (const cut of cuts) {
    const start = Math.floor(cut.since / step) * step;
    const endsNow = window.endsNow === true && cut.until === until;
    const part = count(client, zoneId, { ...cut, granularity: finer, endsNow });
    parts.push(part.then((counted) => clipped(counted, start, cut)));
  }
  const counted = await Promise.all(parts);
  return {
    points: counted.flatMap((c) => c.points),
    hits: counted.reduce((total, c) => total + c.hits, 0),
  };
}

/**
 * Minutes summed into the window's buckets (of 5 minutes). A bucket the window cuts carries
 * `clipped` (its part), as a cut CDN bucket does; the current one, when the window ends now, is
 * the current bucket "so far".
 */
function grouped(minutes: readonly TrafficPoint[], window: TrafficWindow): TrafficPoint[] {
  const step = CHART_BUCKET_MS[window.granularity];
  const buckets = new Map<number, TrafficPoint>();
  for (const minute of minutes) {
    const start = Math.floor(minute.time / step) * step;
    const bucket = buckets.get(start);
    if (bucket) {
      bucket.requests += minute.requests;
      bucket.bandwidth += minute.bandwidth;
      continue;
    }
    const part = {
      since: Math.max(start, window.since),
      until: Math.min(start + step, window.until),
    };
    const cut = part.since > start || (part.until < start + step && window.endsNow !== true);
    buckets.set(start, {
      timestamp: new Date(start).toISOString(),
      time: start,
      requests: minute.requests,
      bandwidth: minute.bandwidth,
      ...(cut ? { clipped: part } : {}),
    });
  }
  return [...buckets.values()];
}

/** One CDN answer: buckets wholly inside the window (or the current one, so far). */
async function whole(client: Client, zoneId: string, window: TrafficWindow): Promise<Counted> {
  const traffic = await client.trafficAnalytics(zoneId, {
    since: new Date(window.since),
    until: new Date(window.until),
    granularity: READ_AT[window.granularity],
  });
  return {
    points: traffic.series,
    hits: traffic.totals.cacheHitRate * sum(traffic.series, 'requests'),
  };
}

/** The finer buckets of a cut, summed into one point at the start of the bucket it cuts. */
function clipped(counted: Counted, start: number, cut: { since: number; until: number }): Counted {
  if (counted.points.length === 0) return counted;
  const point: TrafficPoint = {
    timestamp: new Date(start).toISOString(),
    time: start,
    requests: sum(counted.points, 'requests'),
    bandwidth: sum(counted.points, 'bandwidth'),
    clipped: cut,
  };
  return { points: [point], hits: counted.hits };
}

function sum(points: readonly TrafficPoint[], key: 'requests' | 'bandwidth'): number {
  return points.reduce((total, p) => total + p[key], 0);
}
