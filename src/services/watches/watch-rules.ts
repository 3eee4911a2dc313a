// What a watch looks for, as pure functions: the explicit thresholds a person types, the automatic
// rules against the zone's own baseline (median and MAD of the same hours on past days), and the
// hold/clear steps that keep an alert from flapping.

/** The automatic rules every watch has. */
export const AUTO_RULES = ['spike', 'drop', 'hitrate_fall'] as const;
export type AutoRule = (typeof AUTO_RULES)[number];

export type Metric = 'requests' | 'bandwidth' | 'hitrate';

export interface ThresholdRule {
  metric: Metric;
  op: '>' | '<';
  /** Requests or bytes in the window, or a fraction for hitrate. */
  value: number;
  windowMs: number;
  /** The canonical text, which is also the rule's key (`requests>50000/5m`). */
  text: string;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const DEFAULT_RULE_WINDOW_MS = 5 * MINUTE;
const MAX_RULE_WINDOW_MS = HOUR;
const SCALE: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12 };

/**
 * `requests>50k/5m`, `bandwidth>2g/10m`, `hitrate<80%`: the rule, or a reason in words why not.
 * A window is 1 to 60 minutes (default 5).
 */
export function parseThreshold(text: string): ThresholdRule | { error: string } {
  const match =
    /^(requests|reqs?|bandwidth|bw|hitrate|hit-rate)\s*([<>])\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(%?)\s*(?:\/\s*(\d+)\s*(m|min|h))?$/i.exec(
      text.trim(),
    );
  if (!match)
    return {
      error: 'a threshold looks like `requests>50k/5m`, `bandwidth>2g/5m` or `hitrate<80%`',
    };
  const [, word = '', op = '>', number = '0', suffix = '', percent = '', count, unit] = match;
  const metric: Metric = /^req/i.test(word)
    ? 'requests'
    : /^(bandwidth|bw)$/i.test(word)
      ? 'bandwidth'
      : 'hitrate';
  const windowMs = count
    ? Number(count) * (unit?.toLowerCase() === 'h' ? HOUR : MINUTE)
    : DEFAULT_RULE_WINDOW_MS;
  if (windowMs < MINUTE || windowMs > MAX_RULE_WINDOW_MS)
    return { error: 'a threshold’s window is 1 to 60 minutes' };
  let value = Number(number) * (SCALE[suffix.toLowerCase()] ?? 1);
  if (metric === 'hitrate') {
    if (suffix) return { error: 'a hit rate is a percentage, like `hitrate<80%`' };
    value = percent || value > 1 ? value / 100 : value;
    if (value <= 0 || value >= 1) return { error: 'a hit rate threshold is between 0% and 100%' };
    return {
      metric,
      op: op as '>' | '<',
      value,
      windowMs,
      text: `hitrate${op}${round(value * 100)}%`,
    };
  }
  if (percent) return { error: `${metric} is a count, not a percentage` };
  const minutes = windowMs >= HOUR ? '1h' : `${windowMs / MINUTE}m`;
  return {
    metric,
    op: op as '>' | '<',
    value,
    windowMs,
    text: `${metric}${op}${round(value)}/${minutes}`,
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** How the automatic rules and the hold/clear steps behave (WATCH_* settings). */
export interface DetectionSettings {
  intervalMs: number;
  /** Consecutive intervals a condition must hold before it fires. */
  holdIntervals: number;
  /** Consecutive intervals it must stay clear before the alert resolves. */
  clearIntervals: number;
  /** Days of the zone's own history before the automatic rules say anything. */
  minHistoryDays: number;
  /** Below this many requests a minute (now for a spike, usually for a drop) nothing fires. */
  minRequestsPerMinute: number;
}

/** The zone's hourly requests over the past days, and their cache hit rate. */
export interface Baseline {
  /** The start of the first hour (UTC, whole hour). */
  start: number;
  hours: number[];
  hitRate: number;
}

/** What one interval's analytics said. */
export interface Sample {
  /** The end of the window (a whole minute). */
  until: number;
  /** Requests and bandwidth per minute, oldest first. */
  series: Array<{ time: number; requests: number; bandwidth: number }>;
  hitRate: number;
}

export interface Band {
  /** Requests per minute. */
  median: number;
  lower: number;
  upper: number;
}

/** One rule's verdict on one interval. */
export interface Verdict {
  rule: string;
  breached: boolean;
  /** The value seen (requests a minute for spike and drop; a fraction for hit rates; a sum otherwise). */
  value: number;
  /** The bound it was held against. */
  bound: number;
  band?: Band;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Scales a MAD to the standard deviation of a normal distribution. */
const MAD_TO_SIGMA = 1.4826;
/** A spike is this many sigmas above the median, and at least SPIKE_MIN_RATIO of it. */
const SPIKE_SIGMAS = 6;
const SPIKE_MIN_RATIO = 1.5;
/** A drop is traffic below this share of the usual. */
const DROP_RATIO = 0.1;
/** A hit-rate fall is this many points below the zone's usual hit rate. */
const HITRATE_FALL = 0.15;

/**
 * The usual requests a minute at `at`: the same hour and its neighbours on each past day of the
 * baseline (robust to a past incident: median and MAD), or undefined while the zone has fewer
 * than `minHistoryDays` days of traffic.
 */
export function bandAt(
  baseline: Baseline | undefined,
  at: number,
  settings: Pick<DetectionSettings, 'minHistoryDays'>,
): Band | undefined {
  if (!baseline) return undefined;
  const hourIndex = Math.floor((at - baseline.start) / HOUR);
  const samples: number[] = [];
  const days = new Set<number>();
  for (let day = 1; day * 24 <= hourIndex + 1; day++) {
    for (const offset of [-1, 0, 1]) {
      const index = hourIndex - day * 24 + offset;
      const requests = baseline.hours[index];
      if (requests === undefined || requests <= 0) continue;
      samples.push(requests / 60);
      days.add(day);
    }
  }
  if (days.size < settings.minHistoryDays) return undefined;
  const center = median(samples);
  const sigma = MAD_TO_SIGMA * median(samples.map((value) => Math.abs(value - center)));
  return {
    median: center,
    lower: center * DROP_RATIO,
    upper: Math.max(center + SPIKE_SIGMAS * sigma, center * SPIKE_MIN_RATIO),
  };
}

/** Whether the baseline has fallen out of date at `now` (it is refreshed once a day). */
export function baselineStale(baselineAt: number | null, now: number): boolean {
  return baselineAt === null || now - baselineAt >= DAY;
}

/** The hourly range a baseline is read for at `now`: the past eight days, whole hours. */
export function baselineRange(now: number): { since: number; until: number } {
  const until = Math.floor(now / HOUR) * HOUR;
  return { since: until - 8 * DAY, until };
}

/** Every rule's verdict on a sample: the automatic ones, then the thresholds. */
export function evaluate(
  sample: Sample,
  thresholds: ThresholdRule[],
  baseline: Baseline | undefined,
  settings: DetectionSettings,
): Verdict[] {
  // The API counts by whole minutes: an interval shorter than one still judges the last minute.
  const span = Math.max(MINUTE, settings.intervalMs);
  const recent = sample.series.filter((p) => p.time >= sample.until - span);
  const rate = recent.reduce((sum, p) => sum + p.requests, 0) / (span / MINUTE);
  const band = bandAt(baseline, sample.until - span, settings);
  const min = settings.minRequestsPerMinute;
  const verdicts: Verdict[] = [
    {
      rule: 'spike',
      breached: band !== undefined && rate >= min && rate > band.upper,
      value: rate,
      bound: band?.upper ?? 0,
      ...(band ? { band } : {}),
    },
    {
      rule: 'drop',
      breached: band !== undefined && band.median >= min && rate < band.lower,
      value: rate,
      bound: band?.lower ?? 0,
      ...(band ? { band } : {}),
    },
  ];
  const usualHit = baseline?.hitRate ?? 0;
  verdicts.push({
    rule: 'hitrate_fall',
    breached:
      band !== undefined && rate >= min && usualHit > 0 && sample.hitRate < usualHit - HITRATE_FALL,
    value: sample.hitRate,
    bound: Math.max(0, usualHit - HITRATE_FALL),
  });
  for (const rule of thresholds) {
    const window = sample.series.filter((p) => p.time >= sample.until - rule.windowMs);
    const value =
      rule.metric === 'hitrate'
        ? sample.hitRate
        : window.reduce(
            (sum, p) => sum + (rule.metric === 'requests' ? p.requests : p.bandwidth),
            0,
          );
    const seen = window.length > 0;
    verdicts.push({
      rule: rule.text,
      breached: seen && (rule.op === '>' ? value > rule.value : value < rule.value),
      value,
      bound: rule.value,
    });
  }
  return verdicts;
}

/** A rule's standing between intervals. */
export interface RuleStanding {
  firing: boolean;
  streak: number;
}

/**
 * One interval's step: a condition fires after `holdIntervals` intervals in a row, and resolves
 * after `clearIntervals` clear ones; anything shorter only moves the streak.
 */
export function step(
  standing: RuleStanding,
  breached: boolean,
  settings: Pick<DetectionSettings, 'holdIntervals' | 'clearIntervals'>,
): RuleStanding & { transition?: 'fired' | 'resolved' } {
  if (!standing.firing) {
    if (!breached) return { firing: false, streak: 0 };
    const streak = standing.streak + 1;
    return streak >= settings.holdIntervals
      ? { firing: true, streak: 0, transition: 'fired' }
      : { firing: false, streak };
  }
  if (breached) return { firing: true, streak: 0 };
  const streak = standing.streak + 1;
  return streak >= settings.clearIntervals
    ? { firing: false, streak: 0, transition: 'resolved' }
    : { firing: true, streak };
}

/** The longest window any rule of these watches needs (at least one interval). */
export function windowFor(intervalMs: number, thresholds: ThresholdRule[]): number {
  return Math.max(intervalMs, ...thresholds.map((rule) => rule.windowMs));
}
