import { describe, expect, it } from 'vitest';
import {
  activeWindow,
  currentOrNext,
  lastEnded,
  lastStarted,
  localInstant,
  windowsBetween,
} from '../../../src/services/freezes/windows.js';
import type { FreezeRule } from '../../../src/store/freezes.js';

const PARIS = 'Europe/Paris';
const at = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;
// Friday 16:00 to Monday 08:00, every week.
const WEEKEND: FreezeRule = {
  kind: 'weekly',
  start: { weekday: 5, time: '16:00' },
  end: { weekday: 1, time: '08:00' },
};

describe('freeze windows across daylight-saving changes', () => {
  it('keeps wall-clock times over the autumn change (Paris, last Sunday of October 2026)', () => {
    // Clocks go back at 03:00 CEST on 25 October: Friday is UTC+2, Monday UTC+1.
    const window = activeWindow(WEEKEND, PARIS, at('2026-10-25T12:00:00Z'));
    expect(window).toEqual({
      start: at('2026-10-23T14:00:00Z'),
      end: at('2026-10-26T07:00:00Z'),
    });
    expect(((window?.end ?? 0) - (window?.start ?? 0)) / HOUR).toBe(65);
  });

  it('keeps wall-clock times over the spring change (Paris, last Sunday of March 2026)', () => {
    // Clocks go forward at 02:00 CET on 29 March: Friday is UTC+1, Monday UTC+2.
    const window = activeWindow(WEEKEND, PARIS, at('2026-03-28T00:00:00Z'));
    expect(window).toEqual({
      start: at('2026-03-27T15:00:00Z'),
      end: at('2026-03-30T06:00:00Z'),
    });
    expect(((window?.end ?? 0) - (window?.start ?? 0)) / HOUR).toBe(63);
  });

  it('is not in force outside its windows, and names the next one', () => {
    const wednesday = at('2026-10-21T10:00:00Z');
    expect(activeWindow(WEEKEND, PARIS, wednesday)).toBeUndefined();
    expect(currentOrNext(WEEKEND, PARIS, wednesday)?.start).toBe(at('2026-10-23T14:00:00Z'));
    // The Monday 08:00 end is exclusive.
    expect(activeWindow(WEEKEND, PARIS, at('2026-10-26T07:00:00Z'))).toBeUndefined();
    expect(activeWindow(WEEKEND, PARIS, at('2026-10-26T06:59:59Z'))).toBeDefined();
  });

  it('finds the last window started and the last one ended', () => {
    const monday = at('2026-10-26T09:00:00Z');
    expect(lastEnded(WEEKEND, PARIS, monday)?.end).toBe(at('2026-10-26T07:00:00Z'));
    expect(lastStarted(WEEKEND, PARIS, monday)?.start).toBe(at('2026-10-23T14:00:00Z'));
  });

  it('lists one window a week', () => {
    const windows = windowsBetween(
      WEEKEND,
      PARIS,
      at('2026-10-01T00:00:00Z'),
      at('2026-10-31T23:00:00Z'),
    );
    expect(windows.map((w) => new Date(w.start).toISOString())).toEqual([
      '2026-10-02T14:00:00.000Z',
      '2026-10-09T14:00:00.000Z',
      '2026-10-16T14:00:00.000Z',
      '2026-10-23T14:00:00.000Z',
      '2026-10-30T15:00:00.000Z',
    ]);
  });

  it('a weekly window within one day, and one of a whole week', () => {
    const day: FreezeRule = {
      kind: 'weekly',
      start: { weekday: 7, time: '01:00' },
      end: { weekday: 7, time: '05:00' },
    };
    // 25 October 2026 01:00 CEST to 05:00 CET: five hours pass, not four.
    expect(activeWindow(day, PARIS, at('2026-10-25T02:00:00Z'))).toEqual({
      start: at('2026-10-24T23:00:00Z'),
      end: at('2026-10-25T04:00:00Z'),
    });
    const week: FreezeRule = {
      kind: 'weekly',
      start: { weekday: 1, time: '09:00' },
      end: { weekday: 1, time: '09:00' },
    };
    const w = activeWindow(week, 'UTC', at('2026-12-02T00:00:00Z'));
    expect(w && (w.end - w.start) / HOUR).toBe(7 * 24);
  });

  it('reads one-off windows in their zone; a skipped time moves forward, a repeated one is standard time', () => {
    const once: FreezeRule = { kind: 'once', start: '2026-12-20T18:00', end: '2027-01-04T08:00' };
    expect(windowsBetween(once, 'America/New_York', 0, at('2030-01-01T00:00:00Z'))).toEqual([
      { start: at('2026-12-20T23:00:00Z'), end: at('2027-01-04T13:00:00Z') },
    ]);
    // 02:30 does not exist in Paris on 29 March 2026: luxon gives 03:30 CEST.
    expect(localInstant('2026-03-29T02:30', PARIS)).toBe(at('2026-03-29T01:30:00Z'));
    // 02:30 happens twice on 25 October 2026: luxon reads it in standard time, CET.
    expect(localInstant('2026-10-25T02:30', PARIS)).toBe(at('2026-10-25T01:30:00Z'));
    expect(activeWindow(once, PARIS, at('2027-01-04T07:00:00Z'))).toBeUndefined();
    // Years ahead, it is still the next window.
    expect(currentOrNext(once, PARIS, at('2024-01-01T00:00:00Z'))?.start).toBe(
      at('2026-12-20T17:00:00Z'),
    );
  });
});
