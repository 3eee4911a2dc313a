// Response schemas for the documented fields only; unknown fields are ignored, wrong types rejected.
import { z } from 'zod';

export const ZONE_STATUSES = ['active', 'pending', 'deleted'] as const;
export type KnownZoneStatus = (typeof ZONE_STATUSES)[number];

export const ZONE_PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
export type ZonePlan = (typeof ZONE_PLANS)[number];

export const GRANULARITIES = ['minute', 'hour', 'day'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/**
 * How long a bucket of each granularity is. Buckets are taken to start on UTC multiples of their
 * length, and a point's timestamp to be its bucket's start (docs/cdn-api-assumptions.md, #17).
 */
export const BUCKET_MS: Record<Granularity, number> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** A zone as the CDN describes it. */
export interface CdnZone {
  id: string;
  name: string;
  /** One of ZONE_STATUSES today; kept as a string so a status added later is shown, not fatal. */
  status: string;
  /** ISO 8601 as the server sent it. */
  createdAt: string;
}

/**
 * A zone as the bot holds it: the CDN's, with the bot's CDN account it was listed by
 * (cdn_accounts.id) and that account's name when known. Stored job payloads keep both.
 */
export interface Zone extends CdnZone {
  accountId: string;
  accountName?: string;
}

export const zoneSchema = z
  .object({
    id: z.string().min(1),
    name: z.string().min(1),
    status: z.string().min(1),
    created_at: z.string(),
  })
  .transform(
    (zone): CdnZone => ({
      id: zone.id,
      name: zone.name,
      status: zone.status,
      createdAt: zone.created_at,
    }),
  );

export const zoneListSchema = z.object({
  data: z.array(zoneSchema),
  meta: z.object({
    page: z.int().min(1),
    per_page: z.int().min(1),
    total: z.int().min(0),
  }),
});

export interface TrafficPoint {
  /** ISO 8601 as the server sent it. */
  timestamp: string;
  /** The same instant in epoch milliseconds. */
  time: number;
  requests: number;
  bandwidth: number;
  /**
   * Set by the bot, never by the CDN: the window cuts this bucket, and only its part from `since`
   * to `until` is counted (summed from finer buckets).
   */
  clipped?: { since: number; until: number };
}

export interface TrafficTotals {
  requests: number;
  bandwidth: number;
  cacheHitRate: number;
}

export interface TrafficAnalytics {
  totals: TrafficTotals;
  /** Ordered by time. */
  series: TrafficPoint[];
}

const isoInstant = z.string().refine((value) => !Number.isNaN(Date.parse(value)), {
  message: 'not an ISO 8601 timestamp',
});

export const trafficSchema = z.object({
  data: z
    .object({
      totals: z.object({
        requests: z.int().min(0),
        bandwidth: z.int().min(0),
        cache_hit_rate: z.number().min(0).max(1),
      }),
      timeseries: z.array(
        z.object({
          timestamp: isoInstant,
          requests: z.int().min(0),
          bandwidth: z.int().min(0),
        }),
      ),
    })
    .transform(
      (data): TrafficAnalytics => ({
        totals: {
          requests: data.totals.requests,
          bandwidth: data.totals.bandwidth,
          cacheHitRate: data.totals.cache_hit_rate,
        },
        series: data.timeseries
          .map((point) => ({
            timestamp: point.timestamp,
            time: Date.parse(point.timestamp),
            requests: point.requests,
            bandwidth: point.bandwidth,
          }))
          .sort((a, b) => a.time - b.time),
      }),
    ),
});

/**
 * The spec does not show the create response. A zone is taken from `data` or from the top level,
 * and only if every documented zone field is there; anything else means "look it up".
 */
export function zoneFromCreateBody(body: unknown): CdnZone | undefined {
  for (const candidate of [field(body, 'data'), body]) {
    const parsed = zoneSchema.safeParse(candidate);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/** The spec does not show the purge response; an id is reported when one is plainly there. */
export function purgeIdFromBody(body: unknown): string | undefined {
  const data = field(body, 'data');
  for (const value of [field(data, 'id'), field(data, 'purge_id'), field(body, 'purge_id')]) {
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

const MAX_MESSAGE = 300;

/**
 * The spec shows no error format, so the common ones are all read: `errors[].message`, `error`
 * (a string or an object with a message), `message`, `detail` (RFC 7807 or FastAPI's list), `title`,
 * or a short plain-text body. HTML error pages from proxies are not messages.
 */
export function errorMessageFromBody(body: unknown, text: string): string | undefined {
  const message = body === undefined ? plainText(text) : messageFromJson(body);
  if (message === undefined) return undefined;
  const clean = message.replace(/\s+/g, ' ').trim();
  if (clean === '') return undefined;
  return clean.length > MAX_MESSAGE ? `${clean.slice(0, MAX_MESSAGE - 1)}…` : clean;
}

function messageFromJson(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  const errors = field(body, 'errors');
  if (Array.isArray(errors)) {
    const messages = errors.map(messageOf).filter((m): m is string => m !== undefined);
    if (messages.length > 0) return messages.slice(0, 3).join('; ');
  }
  const detail = field(body, 'detail');
  if (Array.isArray(detail)) {
    const messages = detail.map(messageOf).filter((m): m is string => m !== undefined);
    if (messages.length > 0) return messages.slice(0, 3).join('; ');
  }
  for (const value of [
    field(body, 'error'),
    field(body, 'message'),
    detail,
    field(body, 'error_description'),
    field(body, 'title'),
  ]) {
    const message = messageOf(value);
    if (message !== undefined) return message;
  }
  return undefined;
}

function messageOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value;
  for (const key of ['message', 'msg', 'detail', 'title']) {
    const inner = field(value, key);
    if (typeof inner === 'string' && inner.trim() !== '') return inner;
  }
  return undefined;
}

function plainText(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.startsWith('<')) return undefined;
  return trimmed.split('\n', 1)[0];
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}
