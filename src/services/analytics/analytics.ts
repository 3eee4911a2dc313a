// Traffic analytics of a zone: the range asked, the series, the changes made from Slack in it,
// and the chart.

import type { TrafficAnalytics, Zone } from '../../cdn/schemas.js';
import type {
  ChartMarker,
  ChartPlace,
  ChartRenderer,
  TrafficChartInput,
} from '../../charts/traffic-chart.js';
import {
  CHART_BUCKET_MS,
  CHART_GRANULARITIES,
  type ChartGranularity,
  windowText,
} from '../../charts/window.js';
import type { Clock } from '../../clock.js';
import type { Problem } from '../../errors.js';
import type { AuditEntry } from '../../store/audit-log.js';
import type { Store } from '../../store/index.js';
import type { Caller } from '../access/access.js';
import type { ChosenZone } from '../access/channels.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { CdnAccess } from '../accounts/cdn-access.js';
import { zoneForChannel } from '../zones/zone-work.js';
import type { CdnReadRateLimit } from './cdn-read-rate-limit.js';
import { trafficOver, windowEndingAt } from './traffic-window.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const RANGES = {
  '1h': HOUR,
  '6h': 6 * HOUR,
  '24h': DAY,
  '7d': 7 * DAY,
  '30d': 30 * DAY,
} as const;
export type RangeKey = keyof typeof RANGES;
const LABELS: Record<RangeKey, string> = {
  '1h': 'last hour',
  '6h': 'last 6 h',
  '24h': 'last 24 h',
  '7d': 'last 7 days',
  '30d': 'last 30 days',
};

/** More points than this make an unreadable chart (and a slow API call): a day of minutes fits. */
export const MAX_POINTS = 1_500;

export type AnalyticsArgs =
  /** No `zone`: the channel's default. */
  | { ok: true; zone?: string; range: RangeKey; granularity: ChartGranularity }
  /** No zone named (`problem` absent), or a word that does not fit. */
  | { ok: false; problem?: Problem };

/**
 * Minute for an hour, 5 minutes up to 6 h, hour up to 7 days, day beyond: at most 169 points (a
 * week of hours), never the 360 noisy minutes of 6 h.
 */
export function defaultGranularity(range: RangeKey): ChartGranularity {
  const span = RANGES[range];
  return span <= HOUR ? 'minute' : span <= 6 * HOUR ? '5min' : span <= 7 * DAY ? 'hour' : 'day';
}

const isRange = (word: string): word is RangeKey => Object.hasOwn(RANGES, word);
const isGranularity = (word: string): word is ChartGranularity =>
  (CHART_GRANULARITIES as readonly string[]).includes(word);

/**
 * `[zone] [1h|6h|24h|7d|30d] [minute|5min|hour|day]`, in either order after the zone. A first word that
 * is a range or a granularity is one: then no zone is named (the channel's default is used).
 */
export function parseAnalyticsArgs(args: string[]): AnalyticsArgs {
  const first = args[0]?.toLowerCase();
  const named = first !== undefined && !isRange(first) && !isGranularity(first);
  const zone = named ? args[0] : undefined;
  const rest = named ? args.slice(1) : args;
  let range: RangeKey | undefined;
  let granularity: ChartGranularity | undefined;
  for (const word of rest.map((w) => w.toLowerCase())) {
    if (isRange(word) && !range) range = word;
    else if (isGranularity(word) && !granularity) granularity = word;
    else return { ok: false, problem: { code: 'not_a_range', word } };
  }
  const chosenRange = range ?? '24h';
  const chosenGranularity = granularity ?? defaultGranularity(chosenRange);
  const points = RANGES[chosenRange] / CHART_BUCKET_MS[chosenGranularity];
  if (points > MAX_POINTS) {
    return {
      ok: false,
      problem: {
        code: 'too_many_points',
        range: LABELS[chosenRange],
        granularity: chosenGranularity,
        points,
        max: MAX_POINTS,
        suggested: defaultGranularity(chosenRange),
      },
    };
  }
  return {
    ok: true,
    ...(zone === undefined ? {} : { zone }),
    range: chosenRange,
    granularity: chosenGranularity,
  };
}

export interface AnalyticsReport {
  zone: Zone;
  /**
   * The window the traffic and its totals cover exactly (traffic-window.ts): from the start of the
   * bucket holding now − the range, to now.
   */
  range: TrafficChartInput['range'];
  timeZone: string;
  traffic: TrafficAnalytics;
  markers: ChartMarker[];
  /** Absent when there was no traffic to draw. */
  png?: Buffer;
  /** The zone was the channel's default, not named. */
  fromDefault?: boolean;
  /** Who asked for the chart: every posted chart names them. */
  requestedBy?: string;
}

export class AnalyticsService {
  constructor(
    private readonly cdn: CdnAccess,
    private readonly store: Store,
    private readonly renderer: ChartRenderer,
    private readonly clock: Clock,
    private readonly reads: CdnReadRateLimit,
    /** Which CDN account a zone named is in. */
    private readonly accountScopes: AccountScopes,
  ) {}

  /**
   * The chart a person asked for: their zone (a name or id, or a way to choose it: the channel's
   * default), in their own time zone. Before anything reaches the CDN it is counted as a CDN read
   * and given a place among the charts being drawn (AppError `charts_busy` when none is free):
   * a chart refused either way asks the CDN nothing.
   */
  async forCaller(
    caller: Caller,
    request: {
      zone: string | (() => Promise<ChosenZone>);
      range: RangeKey;
      granularity: ChartGranularity;
      /** Where the command came from and the account it typed, to find a named zone's account. */
      where?: { channelId?: string; account?: string };
    },
  ): Promise<AnalyticsReport> {
    await this.reads.take(caller);
    const place = this.renderer.reserve?.();
    try {
      const { zone: chosen, where } = request;
      const named = (name: string) =>
        zoneForChannel({ accountScopes: this.accountScopes }, caller.workspaceId, {
          ...where,
          zone: name,
        });
      const { zone, fromDefault } =
        typeof chosen === 'string'
          ? { zone: await named(chosen), fromDefault: false }
          : await chosen();
      const timeZone = (await caller.directory.user(caller.userId)).timeZone;
      const report = await this.report(caller.workspaceId, zone, request, timeZone, place);
      return { ...report, requestedBy: caller.userId, ...(fromDefault ? { fromDefault } : {}) };
    } finally {
      place?.release();
    }
  }

  /**
   * A zone's totals over a window, for a caller (a workflow step): counted as a CDN read, the
   * zone found as `forCaller` finds a named one; no chart is drawn.
   */
  async totalsFor(
    caller: Caller,
    request: { zone: string; range: RangeKey; where?: { channelId?: string; account?: string } },
  ): Promise<{ zone: string; requests: number; bandwidth: number; cacheHitRate: number }> {
    await this.reads.take(caller);
    const zone = await zoneForChannel({ accountScopes: this.accountScopes }, caller.workspaceId, {
      ...request.where,
      zone: request.zone,
    });
    const { since, until } = windowEndingAt(this.clock.now(), RANGES[request.range], 'hour');
    const client = await this.cdn.clientFor(caller.workspaceId, zone.accountId, 'analytics');
    const traffic = await trafficOver(client, zone.id, {
      since,
      until,
      granularity: 'hour',
      endsNow: true,
    });
    return { zone: zone.name, ...traffic.totals };
  }

  /** `place`: where the chart is drawn, held already (see forCaller); absent, the renderer's. */
  async report(
    workspaceId: string,
    zone: Zone,
    request: { range: RangeKey; granularity: ChartGranularity },
    timeZone: string,
    place?: ChartPlace,
  ): Promise<AnalyticsReport> {
    const { granularity } = request;
    const { since, until } = windowEndingAt(this.clock.now(), RANGES[request.range], granularity);
    // The zone's own account.
    const client = await this.cdn.clientFor(workspaceId, zone.accountId, 'analytics');
    const [traffic, entries] = await Promise.all([
      trafficOver(client, zone.id, { since, until, granularity, endsNow: true }),
      // Inclusive of now: a purge made a moment ago belongs on the chart.
      this.store.audit.forZoneBetween(workspaceId, zone.id, since, until + 1),
    ]);
    const range = { since, until, granularity, label: LABELS[request.range], endsNow: true };
    const markers = entries.flatMap(markerOf);
    const empty = traffic.series.length === 0 || traffic.totals.requests === 0;
    const report: AnalyticsReport = { zone, range, timeZone, traffic, markers };
    if (!empty)
      report.png = await (place ?? this.renderer).render({
        zoneName: zone.name,
        traffic,
        range,
        timeZone,
        markers,
        subtitle: windowText(range, timeZone),
      });
    return report;
  }
}

/** Changes worth seeing on a traffic chart: purges and rate-limit switches that went through. */
export function markerOf(entry: AuditEntry): ChartMarker[] {
  if (entry.outcome !== 'ok' && entry.outcome !== 'partial') return [];
  const count = (key: string) => Number(entry.detail?.[key] ?? 0);
  switch (entry.action) {
    case 'purge.urls':
      return [
        {
          at: entry.at,
          kind: 'purge',
          label: `purge ${count('files')} URL${count('files') === 1 ? '' : 's'}`,
        },
      ];
    case 'purge.tags':
      return [
        {
          at: entry.at,
          kind: 'purge',
          label: `purge ${count('tags')} tag${count('tags') === 1 ? '' : 's'}`,
        },
      ];
    case 'purge.urls_tags':
      return [
        {
          at: entry.at,
          kind: 'purge',
          label: `purge ${count('files')} URLs, ${count('tags')} tags`,
        },
      ];
    case 'purge.everything':
      return [{ at: entry.at, kind: 'purge', label: 'purge everything' }];
    case 'ratelimit.on':
      return [{ at: entry.at, kind: 'ratelimit', label: 'rate limit on' }];
    case 'ratelimit.off':
      return [{ at: entry.at, kind: 'ratelimit', label: 'rate limit off' }];
    default:
      return [];
  }
}
