import { describe, expect, it } from 'vitest';
import {
  type Baseline,
  bandAt,
  type DetectionSettings,
  evaluate,
  median,
  parseThreshold,
  step,
} from '../../../src/services/watches/watch-rules.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const settings: DetectionSettings = {
  intervalMs: MINUTE,
  holdIntervals: 3,
  clearIntervals: 3,
  minHistoryDays: 3,
  minRequestsPerMinute: 10,
};

/** Eight days of hourly requests at `perMinute` a minute, the first `emptyDays` with none. */
function baseline(perMinute: number, emptyDays = 0, start = 0): Baseline {
  return {
    start,
    hours: Array.from({ length: 8 * 24 }, (_, i) => (i < emptyDays * 24 ? 0 : perMinute * 60)),
    hitRate: 0.9,
  };
}

const at = 8 * 24 * HOUR;
const sample = (perMinute: number, hitRate = 0.9) => ({
  until: at,
  series: Array.from({ length: 5 }, (_, i) => ({
    time: at - (5 - i) * MINUTE,
    requests: perMinute,
    bandwidth: perMinute * 1000,
  })),
  hitRate,
});

describe('thresholds', () => {
  it('parses counts with suffixes, windows, and percentages', () => {
    expect(parseThreshold('requests>50k/5m')).toMatchObject({
      metric: 'requests',
      op: '>',
      value: 50_000,
      windowMs: 5 * MINUTE,
      text: 'requests>50000/5m',
    });
    expect(parseThreshold('bw>2g/1h')).toMatchObject({
      metric: 'bandwidth',
      value: 2e9,
      windowMs: HOUR,
    });
    expect(parseThreshold('hitrate<80%')).toMatchObject({
      metric: 'hitrate',
      value: 0.8,
      text: 'hitrate<80%',
    });
    expect(parseThreshold('HITRATE < 0.5')).toMatchObject({ value: 0.5 });
  });

  it('refuses what is not one, saying why', () => {
    expect(parseThreshold('requests>>5')).toHaveProperty('error');
    expect(parseThreshold('requests>5/2h')).toEqual({
      error: 'a threshold’s window is 1 to 60 minutes',
    });
    expect(parseThreshold('hitrate<120%')).toHaveProperty('error');
    expect(parseThreshold('requests>5%')).toHaveProperty('error');
  });
});

describe('the usual band', () => {
  it('is the median and MAD of the same hours on past days, robust to one bad day', () => {
    const base = baseline(100);
    // One past day had an incident at that hour: ten times the traffic.
    base.hours[at / HOUR - 24] = 60_000;
    const band = bandAt(base, at, settings);
    expect(band?.median).toBe(100);
    expect(band?.upper).toBe(150);
    expect(band?.lower).toBe(10);
    expect(median([3, 1, 2, 10])).toBe(2.5);
  });

  it('says nothing before the zone has enough days of history', () => {
    expect(bandAt(baseline(100, 6), at, settings)).toBeUndefined();
    expect(bandAt(baseline(100, 4), at, settings)).toBeDefined();
    expect(bandAt(undefined, at, settings)).toBeUndefined();
  });
});

describe('verdicts', () => {
  const verdict = (rule: string, verdicts: ReturnType<typeof evaluate>) =>
    verdicts.find((v) => v.rule === rule)?.breached;

  it('a spike, a drop and a hit-rate fall against the baseline; nothing below the minimum volume', () => {
    expect(verdict('spike', evaluate(sample(400), [], baseline(100), settings))).toBe(true);
    expect(verdict('spike', evaluate(sample(120), [], baseline(100), settings))).toBe(false);
    expect(verdict('drop', evaluate(sample(2), [], baseline(100), settings))).toBe(true);
    expect(verdict('hitrate_fall', evaluate(sample(100, 0.5), [], baseline(100), settings))).toBe(
      true,
    );
    // A zone of 2 requests a minute: a tenfold spike is still no alert.
    expect(
      verdict(
        'spike',
        evaluate(sample(20), [], baseline(2), { ...settings, minRequestsPerMinute: 30 }),
      ),
    ).toBe(false);
    expect(verdict('drop', evaluate(sample(0), [], baseline(2), settings))).toBe(false);
  });

  it('explicit thresholds over their window', () => {
    const rule = parseThreshold('requests>1k/5m');
    if ('error' in rule) throw new Error(rule.error);
    expect(verdict(rule.text, evaluate(sample(250), [rule], undefined, settings))).toBe(true);
    expect(verdict(rule.text, evaluate(sample(150), [rule], undefined, settings))).toBe(false);
  });
});

describe('hold and clear', () => {
  it('fires after the hold, not for a blip, and resolves only after the clear streak', () => {
    let standing = { firing: false, streak: 0 };
    const run = (breached: boolean) => {
      const next = step(standing, breached, settings);
      standing = { firing: next.firing, streak: next.streak };
      return next.transition;
    };
    expect([run(true), run(true), run(false)]).toEqual([undefined, undefined, undefined]);
    expect([run(true), run(true), run(true)]).toEqual([undefined, undefined, 'fired']);
    expect([run(false), run(false), run(true)]).toEqual([undefined, undefined, undefined]);
    expect([run(false), run(false), run(false)]).toEqual([undefined, undefined, 'resolved']);
  });
});
