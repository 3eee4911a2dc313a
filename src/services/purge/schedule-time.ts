// When a scheduled purge runs: `at 02:00` (the next such time), `at 2026-12-24 02:00`, or
// `in 30m` / `in 1h30m` / `in 2d`, read in the person's time zone by luxon (daylight saving is the
// library's, never hours added by hand), and kept within MAX_SCHEDULE_DAYS ahead.
import { DateTime } from 'luxon';
import { AppError } from '../../errors.js';
import { nextOccurrence, parseTimeOfDay } from '../reports/report-times.js';

/** How far ahead a purge may be scheduled: a week covers "after the weekend's release". */
export const MAX_SCHEDULE_DAYS = 7;

/** A time as typed, not yet read against a clock and a time zone. */
export type ScheduleSpec =
  | { kind: 'in'; ms: number; text: string }
  | { kind: 'at'; time: string; date?: string; text: string }
  /** An instant, from the API's `not_before` (ISO 8601 with its offset). */
  | { kind: 'instant'; at: number; text: string };

const DURATION = /^(?:(\d{1,3})d)?(?:(\d{1,4})h)?(?:(\d{1,5})m(?:in)?)?$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `30m`, `1h30m`, `2d` as milliseconds; undefined when not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match || text.trim() === '') return undefined;
  const [, days, hours, minutes] = match;
  if (days === undefined && hours === undefined && minutes === undefined) return undefined;
  return (
    Number(days ?? 0) * 86_400_000 + Number(hours ?? 0) * 3_600_000 + Number(minutes ?? 0) * 60_000
  );
}

/**
 * A time as the form or a command's tail gives it, without its `at`/`in`: `02:00`,
 * `2026-12-24 02:00`, `2026-12-24T02:00`, or (with `in`) a duration. AppError
 * schedule_time_invalid when it is none of these.
 */
export function parseSpec(word: 'at' | 'in', text: string): ScheduleSpec {
  const trimmed = text.trim();
  if (word === 'in') {
    const ms = parseDuration(trimmed.replace(/\s+/g, ''));
    if (ms === undefined) throw new AppError({ code: 'schedule_time_invalid', text: `in ${text}` });
    return { kind: 'in', ms, text: `in ${trimmed}` };
  }
  const [first = '', second, ...more] = trimmed.split(/[\sT]+/);
  const time = parseTimeOfDay(second ?? first);
  const date = second === undefined ? undefined : first;
  if (more.length > 0 || time === undefined || (date !== undefined && !DATE.test(date)))
    throw new AppError({ code: 'schedule_time_invalid', text: `at ${text}` });
  return { kind: 'at', time, ...(date ? { date } : {}), text: `at ${trimmed}` };
}

/** What the purge form's "When" field holds: `in 30m`, `at 02:00`, or a bare time or duration. */
export function parseWhenField(text: string): ScheduleSpec | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || /^now$/i.test(trimmed)) return undefined;
  const match = /^(at|in)\s+(.+)$/i.exec(trimmed);
  if (match) return parseSpec((match[1] ?? '').toLowerCase() as 'at' | 'in', match[2] ?? '');
  return parseDuration(trimmed) === undefined ? parseSpec('at', trimmed) : parseSpec('in', trimmed);
}

/**
 * Takes a trailing `at <time>` or `in <duration>` off a command's words (flags such as `--verify`
 * may come after it). `at`/`in` followed by anything else is AppError schedule_time_invalid.
 */
export function splitSchedule(
  words: readonly string[],
  isFlag: (word: string) => boolean = () => false,
): { words: string[]; when?: ScheduleSpec } {
  const plain = words.filter((word) => !isFlag(word));
  const flags = words.filter(isFlag);
  for (let i = plain.length - 2; i >= Math.max(0, plain.length - 3); i--) {
    const word = plain[i]?.toLowerCase();
    if (word !== 'at' && word !== 'in') continue;
    const when = parseSpec(word, plain.slice(i + 1).join(' '));
    return { words: [...plain.slice(0, i), ...flags], when };
  }
  return { words: [...words] };
}

/**
 * The instant a spec names, for a person in `timeZone` at `now`: `at HH:MM` alone is its next
 * occurrence; a date and time that has passed, or anything more than MAX_SCHEDULE_DAYS ahead, is
 * AppError schedule_time_out_of_range.
 */
export function resolveSpec(spec: ScheduleSpec, timeZone: string, now: number): number {
  const at =
    spec.kind === 'in'
      ? now + spec.ms
      : spec.kind === 'instant'
        ? spec.at
        : spec.date === undefined
          ? nextOccurrence(spec.time, timeZone, now)
          : DateTime.fromISO(`${spec.date}T${spec.time}`, { zone: timeZone }).toMillis();
  if (!Number.isFinite(at)) throw new AppError({ code: 'schedule_time_invalid', text: spec.text });
  if (at <= now)
    throw new AppError({
      code: 'schedule_time_out_of_range',
      reason: 'past',
      maxDays: MAX_SCHEDULE_DAYS,
    });
  if (at - now > MAX_SCHEDULE_DAYS * 86_400_000)
    throw new AppError({
      code: 'schedule_time_out_of_range',
      reason: 'too_far',
      maxDays: MAX_SCHEDULE_DAYS,
    });
  return at;
}
