// When a freeze holds: its rule read in its IANA time zone. Every date and offset is luxon's (DST
// gaps and repeated hours included); nothing here adds hours to epoch milliseconds by hand.
import { DateTime, IANAZone } from 'luxon';
import type { FreezeRule, WeeklyPoint } from '../../store/freezes.js';

/** One window of a freeze: [start, end) in epoch milliseconds. */
export interface FreezeWindow {
  start: number;
  end: number;
}

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

/** Whether `name` is an IANA time zone luxon knows (`UTC` included). */
export function isTimeZone(name: string): boolean {
  return IANAZone.isValidZone(name);
}

function hm(time: string): { hour: number; minute: number } {
  const [hour = 0, minute = 0] = time.split(':').map(Number);
  return { hour, minute };
}

/**
 * A local `YYYY-MM-DDTHH:mm` in `zone`, as luxon reads it: a time the clocks skip (a spring-forward
 * gap) moves forward by the gap; a time that happens twice (the autumn hour) is read in standard time.
 */
export function localInstant(local: string, zone: string): number {
  const at = DateTime.fromISO(local, { zone });
  if (!at.isValid) throw new RangeError(`not a local time: ${local}`);
  return at.toMillis();
}

/** The weekly window whose start falls on the local calendar day `day` (a luxon day in the zone). */
function weeklyFrom(day: DateTime, start: WeeklyPoint, end: WeeklyPoint): FreezeWindow {
  const from = day.set({ ...hm(start.time), second: 0, millisecond: 0 });
  let days = (end.weekday - start.weekday + 7) % 7;
  const endTime = hm(end.time);
  if (days === 0 && endTime.hour * 60 + endTime.minute <= from.hour * 60 + from.minute) days = 7;
  // Calendar days, so that the wall-clock end holds across a DST change in between.
  const to = day.plus({ days }).set({ ...endTime, second: 0, millisecond: 0 });
  return { start: from.toMillis(), end: to.toMillis() };
}

/**
 * The windows of `rule` that touch [from, to], in order. A weekly rule's windows are found from the
 * local calendar: each day of its start weekday from a week before `from` to `to`.
 */
export function windowsBetween(
  rule: FreezeRule,
  zone: string,
  from: number,
  to: number,
): FreezeWindow[] {
  if (rule.kind === 'once') {
    const window = { start: localInstant(rule.start, zone), end: localInstant(rule.end, zone) };
    return window.end > from && window.start <= to ? [window] : [];
  }
  const windows: FreezeWindow[] = [];
  let day = DateTime.fromMillis(from, { zone }).startOf('day').minus({ days: 7 });
  while (day.weekday !== rule.start.weekday) day = day.plus({ days: 1 });
  for (; day.toMillis() <= to; day = day.plus({ weeks: 1 })) {
    const window = weeklyFrom(day, rule.start, rule.end);
    if (window.end > from && window.start <= to) windows.push(window);
  }
  return windows;
}

/** The window holding `now`, if any. */
export function activeWindow(
  rule: FreezeRule,
  zone: string,
  now: number,
): FreezeWindow | undefined {
  return windowsBetween(rule, zone, now, now).find((w) => w.start <= now && now < w.end);
}

/** The window holding `now`, else the next one to start (none: a one-off window that is over). */
export function currentOrNext(
  rule: FreezeRule,
  zone: string,
  now: number,
): FreezeWindow | undefined {
  if (rule.kind === 'once') {
    const window = { start: localInstant(rule.start, zone), end: localInstant(rule.end, zone) };
    return now < window.end ? window : undefined;
  }
  const horizon = DateTime.fromMillis(now, { zone }).plus({ days: 8 }).toMillis();
  return windowsBetween(rule, zone, now, horizon).find((w) => now < w.end);
}

/** The last window that started at or before `now` (announcements look back from the clock). */
export function lastStarted(rule: FreezeRule, zone: string, now: number): FreezeWindow | undefined {
  const since = DateTime.fromMillis(now, { zone }).minus({ days: 8 }).toMillis();
  return windowsBetween(rule, zone, since, now)
    .filter((w) => w.start <= now)
    .at(-1);
}

/** A window as people read it in `zone`: `Fri 20 Dec 18:00 CET`. */
export function localLabel(at: number, zone: string): string {
  return DateTime.fromMillis(at, { zone }).toFormat('ccc d LLL yyyy HH:mm ZZZZ');
}

/** The last window that ended at or before `now`, if one did in the last eight days. */
export function lastEnded(rule: FreezeRule, zone: string, now: number): FreezeWindow | undefined {
  const since = DateTime.fromMillis(now, { zone }).minus({ days: 8 }).toMillis();
  return windowsBetween(rule, zone, since, now)
    .filter((w) => w.end <= now)
    .at(-1);
}
