// What a traffic chart covers, in words: its window, its buckets and its time zone.
import type { Granularity } from '../cdn/schemas.js';
import { safeTimeZone } from './format.js';

/** "Sat 21 Nov 05:21 – Sun 22 Nov 05:21 (America/New_York) · by hour". */
export function windowText(
  range: { since: number; until: number; granularity: Granularity },
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
  return `${at(range.since)} – ${at(range.until)} (${zone}) · by ${range.granularity}`;
}
