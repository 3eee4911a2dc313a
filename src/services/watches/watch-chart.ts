// An alert's chart input: the metric its rule watches over the zone's last two hours (requests or
// bandwidth a minute against the usual band; a threshold's own sum over its window; the cache hit
// rate every 5 minutes), the threshold, and which side of it breaches. Read from the CDN here, built
// by a pure function (alertChart).
import pLimit from 'p-limit';
import type { CdnClient } from '../../cdn/client.js';
import type { AlertChartInput } from '../../charts/alert-chart.js';
import type { WatchSettings } from '../../config.js';
import type { WatchAlert } from '../../store/watch-alerts.js';
import {
  AUTO_RULES,
  type Baseline,
  bandAt,
  parseThreshold,
  type ThresholdRule,
} from './watch-rules.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** How much traffic an alert's chart shows. */
export const CHART_SPAN_MS = 2 * HOUR;
/**
 * A hit rate is drawn every 5 minutes (a threshold's default window): the CDN gives it for a whole
 * range only, so each point is a request of its own (24 for the chart), a few at a time.
 */
export const HITRATE_STEP_MS = 5 * MINUTE;
const HITRATE_REQUESTS_AT_ONCE = 4;

const TITLES: Record<string, string> = {
  spike: 'Requests spike',
  drop: 'Traffic drop',
  hitrate_fall: 'Cache hit rate fall',
};

/** Words for a rule: the automatic ones by name, a threshold as typed. */
export function ruleTitle(rule: string): string {
  return TITLES[rule] ?? rule;
}

/** Whether a rule is one of the automatic ones (every watch has them). */
export function isAutoRule(rule: string): boolean {
  return (AUTO_RULES as readonly string[]).includes(rule);
}

/** An alert's threshold rule; undefined for the automatic ones. */
function thresholdOf(alert: WatchAlert): ThresholdRule | undefined {
  if (isAutoRule(alert.rule)) return undefined;
  const rule = parseThreshold(alert.rule);
  return 'error' in rule ? undefined : rule;
}

/** Whether an alert's rule watches the cache hit rate. */
function watchesHitRate(alert: WatchAlert): boolean {
  return alert.rule === 'hitrate_fall' || thresholdOf(alert)?.metric === 'hitrate';
}

/** The traffic an alert's chart is drawn from. */
export interface AlertTraffic {
  /** Requests and bytes a minute, from a threshold's window before `since` on. */
  series: Array<{ time: number; requests: number; bandwidth: number }>;
  /** For a hit-rate rule: the hit rate of each 5 minutes; null where there were no requests. */
  hitRates?: Array<{ time: number; hitRate: number | null }>;
}

/**
 * Reads what an alert's chart shows between `since` and `until` (whole minutes): one request by
 * minute, or for a hit-rate rule one a 5 minutes.
 */
export async function readAlertTraffic(
  client: CdnClient,
  alert: WatchAlert,
  range: { since: number; until: number },
): Promise<AlertTraffic> {
  if (!watchesHitRate(alert)) {
    // A threshold's first points sum the window before them.
    const from = range.since - (thresholdOf(alert)?.windowMs ?? 0);
    const traffic = await client.trafficAnalytics(alert.zoneId, {
      since: new Date(from),
      until: new Date(range.until),
      granularity: 'minute',
    });
    return { series: traffic.series };
  }
  const limit = pLimit(HITRATE_REQUESTS_AT_ONCE);
  const starts: number[] = [];
  for (let start = range.since; start < range.until; start += HITRATE_STEP_MS) starts.push(start);
  const parts = await Promise.all(
    starts.map((start) =>
      limit(async () => {
        const traffic = await client.trafficAnalytics(alert.zoneId, {
          since: new Date(start),
          until: new Date(Math.min(start + HITRATE_STEP_MS, range.until)),
          granularity: 'minute',
        });
        const hitRate = traffic.totals.requests > 0 ? traffic.totals.cacheHitRate : null;
        return { series: traffic.series, hitRate: { time: start, hitRate } };
      }),
    ),
  );
  return {
    series: parts.flatMap((part) => part.series),
    hitRates: parts.map((part) => part.hitRate),
  };
}

const percent = (fraction: number) => `${(fraction * 100).toFixed(1)} %`;
const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** The chart's input for an alert, from the traffic of its last hours (pure). */
export function alertChart(
  alert: WatchAlert,
  data: AlertTraffic & {
    since: number;
    until: number;
    baseline: Baseline | undefined;
    settings: Pick<WatchSettings, 'minHistoryDays'>;
  },
): AlertChartInput {
  const rule = thresholdOf(alert);
  const value = Number(alert.detail.value ?? 0);
  const bound = Number(alert.detail.bound ?? 0);
  const base = {
    kind: 'alert' as const,
    zoneName: alert.zoneName,
    title:
      alert.status === 'resolved' ? `${ruleTitle(alert.rule)} (resolved)` : ruleTitle(alert.rule),
    since: data.since,
    until: data.until,
    timeZone: 'UTC',
    window: {
      from: alert.startedAt,
      ...(alert.resolvedAt !== null ? { to: alert.resolvedAt } : {}),
    },
  };
  const shown = <T extends { time: number }>(points: T[]) =>
    points.filter((p) => p.time >= data.since && p.time < data.until);
  if (watchesHitRate(alert)) {
    // The automatic rule's bound is the zone's usual hit rate less 15 points; a threshold's, typed.
    const threshold = rule?.value ?? bound;
    return {
      ...base,
      metric: 'hitrate',
      seriesLabel: 'cache hit rate (5 min)',
      series: shown(data.hitRates ?? []).map((p) => ({ time: p.time, value: p.hitRate })),
      threshold: {
        value: threshold,
        label: rule ? `threshold ${rule.text}` : `bound ${percent(threshold)} (usual less 15 pts)`,
      },
      breach: rule?.op === '>' ? 'above' : 'below',
      subtitle: `cache hit rate ${percent(value)} · bound ${percent(threshold)}`,
    };
  }
  if (rule) {
    // What the rule sums: each point is its window's total up to that minute.
    const minutes = shown(data.series);
    const key = rule.metric === 'bandwidth' ? 'bandwidth' : 'requests';
    const window = `${rule.windowMs / MINUTE} min`;
    return {
      ...base,
      metric: key,
      seriesLabel: `${key} in ${window}`,
      series: minutes.map((p) => ({
        time: p.time,
        value: data.series
          .filter((q) => q.time > p.time - rule.windowMs && q.time <= p.time)
          .reduce((sum, q) => sum + q[key], 0),
      })),
      threshold: { value: rule.value, label: `threshold ${rule.text}` },
      breach: rule.op === '>' ? 'above' : 'below',
      subtitle: `${count(value)} in ${window} · threshold ${rule.text}`,
    };
  }
  const series = shown(data.series).map((p) => ({ time: p.time, value: p.requests }));
  const band = series.flatMap((p) => {
    const b = bandAt(data.baseline, p.time, data.settings);
    return b ? [{ time: p.time, lower: b.lower, upper: b.upper }] : [];
  });
  return {
    ...base,
    metric: 'requests',
    seriesLabel: 'requests a minute',
    series,
    ...(band.length > 0 ? { band } : {}),
    breach: alert.rule === 'drop' ? 'below' : 'above',
    subtitle: `${count(value)} requests a minute · usual ${count(Number(alert.detail.median ?? 0))} (shaded band: usual range)`,
  };
}
