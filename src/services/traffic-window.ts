// Traffic over exactly a window, whatever the granularity: the whole buckets inside it as the CDN
// gives them, and each bucket the window cuts (it starts or ends inside it) summed from finer
// buckets over the part inside, so the totals count that window and nothing around it.

import type { CdnClient } from '../cdn/client.js';
import {
  BUCKET_MS,
  type Granularity,
  type TrafficAnalytics,
  type TrafficPoint,
} from '../cdn/schemas.js';

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
  granularity: Granularity;
  /**
   * The window ends now: the bucket holding `until` has nothing after it yet, so it is asked for
   * whole, as the current bucket "so far", instead of being summed from finer ones.
   */
  endsNow?: boolean;
}

/**
 * The window of `span` ending at `now`: it starts on the minute that holds `now − span` (a minute
 * cannot be split), so it is `span` plus the seconds into the current minute.
 */
export function windowEndingAt(now: number, span: number): { since: number; until: number } {
  return { since: Math.floor((now - span) / MINUTE) * MINUTE, until: now };
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
  const { since, until, granularity } = window;
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

/** One CDN answer: buckets wholly inside the window (or the current one, so far). */
async function whole(client: Client, zoneId: string, window: TrafficWindow): Promise<Counted> {
  const traffic = await client.trafficAnalytics(zoneId, {
    since: new Date(window.since),
    until: new Date(window.until),
    granularity: window.granularity,
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
