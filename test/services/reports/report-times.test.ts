import { describe, expect, it } from 'vitest';
import {
  nextOccurrence,
  parseTimeOfDay,
  previousDay,
} from '../../../src/services/reports/report-times.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('nextOccurrence', () => {
  it('is the next 09:00 in the zone, today or tomorrow', () => {
    expect(iso(nextOccurrence('09:00', 'Europe/Paris', at('2026-11-22T07:00:00Z')))).toBe(
      '2026-11-22T08:00:00.000Z',
    );
    expect(iso(nextOccurrence('09:00', 'Europe/Paris', at('2026-11-22T08:00:00Z')))).toBe(
      '2026-11-23T08:00:00.000Z',
    );
  });

  it('keeps 09:00 local across the spring DST change (a 23-hour day)', () => {
    const saturday = at('2026-03-28T08:00:00Z'); // 09:00 CET
    const sunday = nextOccurrence('09:00', 'Europe/Paris', saturday);
    expect(iso(sunday)).toBe('2026-03-29T07:00:00.000Z'); // 09:00 CEST
    expect(sunday - saturday).toBe(23 * 3_600_000);
  });

  it('keeps 09:00 local across the autumn DST change (a 25-hour day)', () => {
    const saturday = at('2026-10-31T13:00:00Z'); // 09:00 EDT
    const sunday = nextOccurrence('09:00', 'America/New_York', saturday);
    expect(iso(sunday)).toBe('2026-11-01T14:00:00.000Z'); // 09:00 EST
    expect(sunday - saturday).toBe(25 * 3_600_000);
  });

  it('posts once on a day whose 02:30 is skipped, and once on a day it happens twice', () => {
    const skipped = nextOccurrence('02:30', 'Europe/Paris', at('2026-03-28T12:00:00Z'));
    expect(iso(skipped)).toBe('2026-03-29T01:30:00.000Z'); // pushed past the gap: 03:30 CEST
    expect(iso(nextOccurrence('02:30', 'Europe/Paris', skipped))).toBe('2026-03-30T00:30:00.000Z');

    const twice = nextOccurrence('02:30', 'Europe/Paris', at('2026-10-24T12:00:00Z'));
    expect(iso(twice)).toBe('2026-10-25T01:30:00.000Z'); // the second 02:30 (CET)
    expect(iso(nextOccurrence('02:30', 'Europe/Paris', twice))).toBe('2026-10-26T01:30:00.000Z');
  });
});

describe('the rest of the schedule math', () => {
  it('reads times of day', () => {
    expect([
      parseTimeOfDay('9:05'),
      parseTimeOfDay('23:59'),
      parseTimeOfDay('24:00'),
      parseTimeOfDay('9h'),
    ]).toEqual(['09:05', '23:59', undefined, undefined]);
  });

  it('gives yesterday in the zone, 23 hours long on the spring change', () => {
    const day = previousDay(at('2026-03-30T07:00:00Z'), 'Europe/Paris');
    expect([iso(day.start), iso(day.end), day.label]).toEqual([
      '2026-03-28T23:00:00.000Z',
      '2026-03-29T22:00:00.000Z',
      'Sun 29 Mar 2026',
    ]);
  });
});
