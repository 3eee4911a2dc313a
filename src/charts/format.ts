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

const COUNT_UNITS: Array<[number, string]> = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/**
 * An axis's tick labels in one format: the unit of its largest tick for all ("0", "50 k", "100 k",
 * never "50,000" beside "100 k"), and as many decimals as its ticks need, the same for all.
 * Counts stay plain ("8,000") while every tick is below 10,000; bytes use decimal units; a hit
 * rate (a fraction) is shown as a percentage.
 */
export function axisLabels(values: number[], kind: 'count' | 'bytes' | 'percent'): string[] {
  const largest = Math.max(0, ...values.map((value) => Math.abs(value)));
  let size = 1;
  let suffix = '';
  if (kind === 'percent') {
    size = 0.01;
    suffix = ' %';
  } else if (kind === 'bytes') {
    suffix = ' B';
    for (let unit = 1; unit < BYTE_UNITS.length && largest >= 1000 ** unit; unit++) {
      size = 1000 ** unit;
      suffix = ` ${BYTE_UNITS[unit]}`;
    }
  } else if (largest >= 10_000) {
    const [unitSize, unitSuffix] = COUNT_UNITS.find(([unit]) => largest >= unit) ?? [1, ''];
    size = unitSize;
    suffix = ` ${unitSuffix}`;
  }
  const scaled = values.map((value) => value / size);
  // The fewest decimals (at most three) that show every tick as it is.
  let digits = 0;
  while (
    digits < 3 &&
    scaled.some((value) => {
      const shifted = value * 10 ** digits;
      return Math.abs(shifted - Math.round(shifted)) > 1e-6 * Math.max(1, Math.abs(shifted));
    })
  )
    digits++;
  return scaled.map((value) =>
    value === 0
      ? '0'
      : `${value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })}${suffix}`,
  );
}

/** A Chart.js tick callback labelling every tick of its axis in one format (axisLabels). */
export function axisTicks(
  kind: 'count' | 'bytes' | 'percent',
): (value: number | string, index: number, ticks: Array<{ value: number }>) => string {
  return (_value, index, ticks) =>
    axisLabels(
      ticks.map((tick) => tick.value),
      kind,
    )[index] ?? '';
}
