// Deterministic synthetic traffic: the same zone and range always give the same numbers.
import type { Granularity } from '../../cdn/schemas.js';

export const STEP_MS: Record<Granularity, number> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

export interface TrafficBucket {
  start: number;
  requests: number;
  bandwidth: number;
  hits: number;
}

/**
 * A change injected into a zone's traffic from `from` to `to` (epoch ms): a spike multiplies its
 * requests (default ×6), a drop too (default ×0.02), a hit-rate fall sets its cache hit rate
 * (default 0.4). Tests and the console shape traffic with these (SandboxState.shape).
 */
export type TrafficShape = { from: number; to: number } & (
  | { kind: 'spike' | 'drop'; factor?: number }
  | { kind: 'hitrate'; hitRate?: number }
);

interface ZoneProfile {
  /** Mean requests per minute. */
  rate: number;
  /** Mean bytes per request. */
  objectBytes: number;
  hitRate: number;
}

/**
 * Buckets of `granularity` starting at the bucket holding `since`, up to `until` (exclusive),
 * skipping time before `from` and after `to`. Every bucket is the sum of its minutes, so a day
 * equals its 24 hours and its 1,440 minutes.
 */
export function syntheticTraffic(
  zoneId: string,
  range: { since: number; until: number; granularity: Granularity },
  window: { from: number; to: number },
  shapes: readonly TrafficShape[] = [],
): TrafficBucket[] {
  const step = STEP_MS[range.granularity];
  const profile = profileOf(zoneId);
  const seed = hashString(zoneId);
  const buckets: TrafficBucket[] = [];
  for (let start = Math.floor(range.since / step) * step; start < range.until; start += step) {
    const bucket: TrafficBucket = { start, requests: 0, bandwidth: 0, hits: 0 };
    const first = Math.max(start, Math.ceil(window.from / 60_000) * 60_000);
    const last = Math.min(start + step, window.to);
    if (first >= last) continue;
    for (let minute = first; minute < last; minute += 60_000) {
      const point = shaped(minuteTraffic(seed, profile, minute), shapes, minute);
      bucket.requests += point.requests;
      bucket.bandwidth += point.bandwidth;
      bucket.hits += point.hits;
    }
    buckets.push(bucket);
  }
  return buckets;
}

function minuteTraffic(seed: number, profile: ZoneProfile, minute: number) {
  const date = new Date(minute);
  const hour = date.getUTCHours() + date.getUTCMinutes() / 60;
  // Busiest mid-afternoon UTC, quietest before dawn; weekends a little lighter.
  const diurnal = 1 + 0.55 * Math.sin(((hour - 9) / 24) * 2 * Math.PI);
  const weekly = date.getUTCDay() === 0 || date.getUTCDay() === 6 ? 0.8 : 1;
  const noise = 0.85 + 0.3 * unit(seed, minute / 60_000);
  const requests = Math.round(profile.rate * diurnal * weekly * noise);
  const size = profile.objectBytes * (0.9 + 0.2 * unit(seed ^ 0x9e3779b9, minute / 60_000));
  const hitRate = Math.min(1, profile.hitRate + 0.04 * (unit(seed ^ 0x85ebca6b, minute) - 0.5));
  return {
    requests,
    bandwidth: Math.round(requests * size),
    hits: Math.round(requests * hitRate),
  };
}

function shaped(
  point: { requests: number; bandwidth: number; hits: number },
  shapes: readonly TrafficShape[],
  minute: number,
) {
  let { requests, bandwidth, hits } = point;
  for (const shape of shapes) {
    if (minute < shape.from || minute >= shape.to) continue;
    if (shape.kind === 'hitrate') {
      hits = Math.round(requests * (shape.hitRate ?? 0.4));
      continue;
    }
    const factor = shape.factor ?? (shape.kind === 'spike' ? 6 : 0.02);
    const ratio = requests === 0 ? 0 : hits / requests;
    const perRequest = requests === 0 ? 0 : bandwidth / requests;
    requests = Math.round(requests * factor);
    bandwidth = Math.round(requests * perRequest);
    hits = Math.round(requests * ratio);
  }
  return { requests, bandwidth, hits };
}

function profileOf(zoneId: string): ZoneProfile {
  const seed = hashString(zoneId);
  return {
    rate: 40 + Math.floor(unit(seed, 1) * 1_500),
    objectBytes: 12_000 + Math.floor(unit(seed, 2) * 250_000),
    hitRate: 0.78 + unit(seed, 3) * 0.2,
  };
}

/** FNV-1a: a stable 32-bit seed per zone. */
function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A uniform number in [0, 1) from a seed and a counter (a splitmix32-style finalizer). */
function unit(seed: number, counter: number): number {
  let x = (seed ^ Math.imul(Math.floor(counter) | 0, 0x9e3779b1)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97);
  return ((x ^ (x >>> 15)) >>> 0) / 4_294_967_296;
}
