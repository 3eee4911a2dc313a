import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import {
  parseDuration,
  parseWhenField,
  resolveSpec,
  splitSchedule,
} from '../../../src/services/purge/schedule-time.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const problemOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error.problem;
    throw error;
  }
  throw new Error('no refusal');
};

describe('scheduled purge times', () => {
  it('reads durations in minutes, hours and days', () => {
    expect(parseDuration('30m')).toBe(30 * 60_000);
    expect(parseDuration('1h30m')).toBe(90 * 60_000);
    expect(parseDuration('2d')).toBe(2 * 86_400_000);
    expect(parseDuration('45min')).toBe(45 * 60_000);
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('')).toBeUndefined();
  });

  it('takes `at`/`in` off the end of a command, flags kept', () => {
    expect(
      splitSchedule(['example.com', '/a.css', 'in', '30m', '--verify'], (w) => w === '--verify'),
    ).toEqual({
      words: ['example.com', '/a.css', '--verify'],
      when: { kind: 'in', ms: 30 * 60_000, text: 'in 30m' },
    });
    expect(splitSchedule(['example.com', 'everything', 'at', '2026-12-24', '02:00']).when).toEqual({
      kind: 'at',
      date: '2026-12-24',
      time: '02:00',
      text: 'at 2026-12-24 02:00',
    });
    expect(splitSchedule(['example.com', '/a.css'])).toEqual({ words: ['example.com', '/a.css'] });
    expect(problemOf(() => splitSchedule(['example.com', '/a.css', 'at', 'teatime']))).toEqual({
      code: 'schedule_time_invalid',
      text: 'at teatime',
    });
  });

  it('reads `at` in the person’s time zone, across a daylight-saving change by the library', () => {
    // 02:00 in New York, the next one after 05:00 there: tomorrow, 07:00 UTC.
    expect(resolveSpec({ kind: 'at', time: '02:00', text: '' }, 'America/New_York', NOW)).toBe(
      Date.parse('2026-11-23T07:00:00Z'),
    );
    // Before 2026-03-08 (DST starts in New York) 09:00 is 14:00 UTC; after, 13:00 UTC.
    const before = Date.parse('2026-03-06T12:00:00Z');
    expect(
      resolveSpec(
        { kind: 'at', date: '2026-03-09', time: '09:00', text: '' },
        'America/New_York',
        before,
      ),
    ).toBe(Date.parse('2026-03-09T13:00:00Z'));
  });

  it('refuses a time passed, one more than 7 days ahead, and a date that is none', () => {
    const spec = (date: string) => ({
      kind: 'at' as const,
      date,
      time: '02:00',
      text: `at ${date}`,
    });
    expect(problemOf(() => resolveSpec(spec('2026-11-21'), 'UTC', NOW))).toMatchObject({
      reason: 'past',
    });
    expect(problemOf(() => resolveSpec(spec('2026-11-30'), 'UTC', NOW))).toMatchObject({
      reason: 'too_far',
    });
    expect(problemOf(() => resolveSpec(spec('2026-02-31'), 'UTC', NOW))).toMatchObject({
      code: 'schedule_time_invalid',
    });
    expect(
      problemOf(() => resolveSpec({ kind: 'in', ms: 0, text: 'in 0m' }, 'UTC', NOW)),
    ).toMatchObject({
      reason: 'past',
    });
  });

  it('reads the form’s field: empty or `now` is now, a bare time or duration is understood', () => {
    expect(parseWhenField('')).toBeUndefined();
    expect(parseWhenField(' now ')).toBeUndefined();
    expect(parseWhenField('in 2h')).toMatchObject({ kind: 'in', ms: 2 * 3_600_000 });
    expect(parseWhenField('30m')).toMatchObject({ kind: 'in', ms: 30 * 60_000 });
    expect(parseWhenField('02:00')).toMatchObject({ kind: 'at', time: '02:00' });
    expect(parseWhenField('At 2026-12-24T02:00')).toMatchObject({
      date: '2026-12-24',
      time: '02:00',
    });
  });
});
