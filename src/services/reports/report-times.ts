// When a daily report is due: wall-clock times in a time zone, with daylight saving handled by
// luxon (a time-zone library), never by adding hours by hand.
import { DateTime } from 'luxon';

const TIME_OF_DAY = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/** "9:05" → "09:05"; undefined when not a time of day. */
export function parseTimeOfDay(text: string): string | undefined {
  const match = TIME_OF_DAY.exec(text.trim());
  if (!match) return undefined;
  return `${(match[1] ?? '').padStart(2, '0')}:${match[2]}`;
}

/**
 * The first instant strictly after `after` at which the wall clock in `timeZone` reads `timeOfDay`.
 * On the day a time is skipped (spring forward) luxon moves it past the gap; on the day it occurs
 * twice (fall back) luxon picks one of the two (the later, in practice). Either way the report goes
 * out once that day.
 */
export function nextOccurrence(timeOfDay: string, timeZone: string, after: number): number {
  const [hour, minute] = timeOfDay.split(':').map(Number) as [number, number];
  const now = DateTime.fromMillis(after, { zone: timeZone });
  let candidate = now.set({ hour, minute, second: 0, millisecond: 0 });
  for (let i = 0; candidate.toMillis() <= after && i < 3; i++) {
    candidate = now.plus({ days: i + 1 }).set({ hour, minute, second: 0, millisecond: 0 });
  }
  return candidate.toMillis();
}

/** The calendar day before the one containing `at`, in `timeZone`, as [start, end) instants. */
export function previousDay(
  at: number,
  timeZone: string,
): { start: number; end: number; label: string } {
  const today = DateTime.fromMillis(at, { zone: timeZone }).startOf('day');
  const yesterday = today.minus({ days: 1 });
  return {
    start: yesterday.toMillis(),
    end: today.toMillis(),
    label: yesterday.toFormat('ccc d LLL yyyy'),
  };
}
