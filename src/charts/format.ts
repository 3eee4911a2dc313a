// Numbers for people: byte units, short counts, percentages, and times in a chosen time zone.

const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];

/** Decimal byte units (1 kB = 1000 B), as CDN dashboards and invoices use them. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '–';
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${BYTE_UNITS[unit]}`;
}

/** 1,234 → "1,234"; 1,234,567 → "1.23 M". */
export function formatCount(count: number): string {
  if (!Number.isFinite(count)) return '–';
  if (Math.abs(count) < 100_000) return Math.round(count).toLocaleString('en');
  const units: Array<[number, string]> = [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'k'],
  ];
  for (const [size, suffix] of units) {
    if (Math.abs(count) >= size) {
      const value = count / size;
      return `${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)} ${suffix}`;
    }
  }
  return String(count);
}

export function formatPercent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)} %`;
}

/** A time in `timeZone`; the format follows the span, so ticks stay short. */
export function timeFormatter(timeZone: string, spanMs: number): (ms: number) => string {
  const options: Intl.DateTimeFormatOptions =
    spanMs <= 36 * 3_600_000
      ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
      : spanMs <= 8 * 86_400_000
        ? { weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
        : { month: 'short', day: 'numeric' };
  const format = new Intl.DateTimeFormat('en-GB', { ...options, timeZone });
  return (ms) => format.format(ms);
}

/** "Europe/Paris" when valid, else "UTC": a user's profile may hold anything. */
export function safeTimeZone(timeZone: string | undefined): string {
  if (!timeZone) return 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}
