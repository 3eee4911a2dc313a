// What a traffic chart covers, in words: its window, its buckets and its time zone; and how long
// its buckets are.
import { BUCKET_MS, type Granularity } from '../cdn/schemas.js';
import { safeTimeZone } from './format.js';

/**
 * How long each point of a chart is: one of the CDN's buckets, or `5min`, five of its minutes
 * summed (the CDN has nothing between a minute and an hour: 360 minutes make an unreadable 6 h).
 */
export type ChartGranularity = Granularity | '5min';

export const CHART_GRANULARITIES: readonly ChartGranularity[] = ['minute', '5min', 'hour', 'day'];

/** The length of a point's bucket; buckets start on UTC multiples of it. */
export const CHART_BUCKET_MS: Record<ChartGranularity, number> = {
  ...BUCKET_MS,
  '5min': 5 * BUCKET_MS.minute,
};

/** The CDN's granularity a chart's buckets are read at (and summed from, for `5min`). */
export const READ_AT: Record<ChartGranularity, Granularity> = {
  minute: 'minute',
  '5min': 'minute',
  hour: 'hour',
  day: 'day',
};

/** A bucket in words: "by 5 minutes", "the current hour so far". */
export const BUCKET_WORDS: Record<ChartGranularity, string> = {
  minute: 'minute',
  '5min': '5 minutes',
  hour: 'hour',
  day: 'day',
};

/** "Sat 21 Nov 05:21 – Sun 22 Nov 05:21 (America/New_York) · by hour". */
export function windowText(
  range: { since: number; until: number; granularity: ChartGranularity },
  timeZone: string,
): string {
  const zone = safeTimeZone(timeZone);
  const format = new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: zone,
  });
  // en-GB puts a comma between the date and the time.
  const at = (ms: number) => format.format(ms).replace(',', '');
  return `${at(range.since)} – ${at(range.until)} (${zone}) · by ${BUCKET_WORDS[range.granularity]}`;
}
