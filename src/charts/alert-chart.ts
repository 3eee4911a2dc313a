// An alert's chart as a Chart.js configuration: the metric the rule watches (requests, bandwidth,
// or the cache hit rate) over the zone's last hours, its threshold or usual band drawn across, the
// points past it drawn red, and the alert's window shaded. Drawn by the same renderer as traffic
// charts (traffic-chart.ts dispatches on `kind`), in-process or in the pool.
import type { ChartConfiguration } from 'chart.js';
import type {} from 'chartjs-plugin-annotation';
import { axisTicks, safeTimeZone, timeFormatter } from './format.js';
import { bottomLegend, headings, STILL, timeAxis } from './frame.js';

export interface AlertChartInput {
  kind: 'alert';
  zoneName: string;
  /** What the alert is about, for the title: "Requests spike", "requests>50000/5m". */
  title: string;
  /** What the rule watches: a count of requests, bytes, or a cache hit rate (a fraction). */
  metric: 'requests' | 'bandwidth' | 'hitrate';
  /** The series' name, in the legend and on its axis: "requests in 5 min", "cache hit rate". */
  seriesLabel: string;
  /** The watched metric; null where it has no value (a hit rate with no requests). */
  series: Array<{ time: number; value: number | null }>;
  since: number;
  until: number;
  timeZone: string;
  /** The usual range, point by point (the baseline band). */
  band?: Array<{ time: number; lower: number; upper: number }>;
  /** The rule's threshold, in the series' unit, drawn as a line. */
  threshold?: { value: number; label: string };
  /** Which side of the threshold (or of the band) breaches: those points are drawn red. */
  breach?: 'above' | 'below';
  /** When the alert started, and when it resolved (still open: up to `until`). */
  window: { from: number; to?: number };
  /** One line under the title. */
  subtitle: string;
}

const COLORS = {
  line: '#2563eb',
  breach: '#dc2626',
  band: 'rgba(22, 163, 74, 0.16)',
  bandEdge: 'rgba(22, 163, 74, 0.55)',
  threshold: '#dc2626',
  firing: 'rgba(220, 38, 38, 0.10)',
  resolved: 'rgba(107, 114, 128, 0.12)',
  grid: '#e5e7eb',
  muted: '#6b7280',
} as const;

const MINUTE = 60_000;

type Point = { x: number; y: number | null };

/** The series' points past the threshold or band, the others left out (null): the breach. */
export function breachPoints(input: AlertChartInput): Point[] {
  const bands = new Map((input.band ?? []).map((b) => [b.time, b]));
  return input.series.map((p) => {
    const band = bands.get(p.time);
    const bound = input.threshold?.value ?? (input.breach === 'below' ? band?.lower : band?.upper);
    const past =
      p.value !== null &&
      bound !== undefined &&
      (input.breach === 'above' ? p.value > bound : input.breach === 'below' && p.value < bound);
    return { x: p.time, y: past ? p.value : null };
  });
}

export function alertChartConfig(input: AlertChartInput): ChartConfiguration<'line', Point[]> {
  const timeZone = safeTimeZone(input.timeZone);
  const span = input.until - input.since;
  const tick = timeFormatter(timeZone, span);
  const step = span > 6 * 3_600_000 ? 3_600_000 : 30 * MINUTE;
  const band = input.band ?? [];
  const resolved = input.window.to !== undefined;
  const hitRate = input.metric === 'hitrate';
  const breach = breachPoints(input);
  const noTraffic = input.series.every((p) => p.value === null || (!hitRate && p.value === 0));
  const emptyFrame = noTraffic && !hitRate && !input.threshold && band.length === 0;
  const name = input.seriesLabel.charAt(0).toUpperCase() + input.seriesLabel.slice(1);
  return {
    type: 'line',
    data: {
      datasets: [
        ...(band.length > 0
          ? [
              {
                label: 'Usual range',
                data: band.map((p) => ({ x: p.time, y: p.upper })),
                borderColor: COLORS.bandEdge,
                borderWidth: 1,
                pointRadius: 0,
                backgroundColor: COLORS.band,
                // Filled down to the next dataset: the band's lower edge.
                fill: '+1',
                tension: 0,
              },
              {
                label: 'Usual range (lower)',
                data: band.map((p) => ({ x: p.time, y: p.lower })),
                borderColor: COLORS.bandEdge,
                borderWidth: 1,
                pointRadius: 0,
                fill: false,
                tension: 0,
              },
            ]
          : []),
        {
          label: name,
          data: input.series.map((p) => ({ x: p.time, y: p.value })),
          borderColor: COLORS.line,
          borderWidth: 2.5,
          // A few points (a hit rate every 5 minutes) are shown; a minute series is a line.
          pointRadius: input.series.length <= 40 ? 3 : 0,
          fill: false,
          tension: 0,
        },
        ...(breach.some((p) => p.y !== null)
          ? [
              {
                label: `${input.breach === 'below' ? 'Below' : 'Above'} the ${input.threshold ? 'threshold' : 'usual range'}`,
                data: breach,
                borderColor: COLORS.breach,
                backgroundColor: COLORS.breach,
                borderWidth: 4,
                // A lone point past the bound is a dot.
                pointRadius: 4,
                fill: false,
                tension: 0,
              },
            ]
          : []),
      ],
    },
    options: {
      ...STILL,
      layout: { padding: { top: 8, right: 24, bottom: 8, left: 8 } },
      plugins: {
        ...headings(
          // Large: Slack shows a preview at about a third of the chart's width.
          { text: `${input.zoneName} · ${input.title}`, font: { size: 30, weight: 700 } },
          { text: input.subtitle, size: 20, color: COLORS.muted },
        ),
        legend: bottomLegend(!noTraffic, {
          size: 18,
          keep: (item) => !item.text.endsWith('(lower)'),
        }),
        annotation: {
          annotations: {
            window: {
              type: 'box' as const,
              xMin: input.window.from,
              xMax: input.window.to ?? input.until,
              backgroundColor: resolved ? COLORS.resolved : COLORS.firing,
              borderWidth: 0,
              label: {
                display: true,
                content: resolved ? 'alert (resolved)' : 'alert',
                position: { x: 'end' as const, y: 'start' as const },
                color: resolved ? COLORS.muted : COLORS.threshold,
                font: { size: 18, weight: 700 as const },
              },
            },
            ...(input.threshold
              ? {
                  threshold: {
                    type: 'line' as const,
                    yMin: input.threshold.value,
                    yMax: input.threshold.value,
                    borderColor: COLORS.threshold,
                    borderWidth: 3,
                    borderDash: [10, 6],
                    label: {
                      display: true,
                      content: input.threshold.label,
                      position: 'start' as const,
                      backgroundColor: COLORS.threshold,
                      color: 'white',
                      font: { size: 16, weight: 700 as const },
                    },
                  },
                }
              : {}),
            ...(noTraffic
              ? {
                  noTraffic: {
                    type: 'label' as const,
                    xValue: (input.since + input.until) / 2,
                    // Halfway up whatever the frame holds: the threshold, the band, or 0 to 1.
                    yValue: hitRate
                      ? 0.5
                      : Math.max(1, input.threshold?.value ?? 0, ...band.map((b) => b.upper)) / 2,
                    content: 'No traffic in these hours',
                    color: COLORS.muted,
                    font: { size: 30, weight: 700 as const },
                  },
                }
              : {}),
          },
        },
      },
      scales: {
        x: {
          ...timeAxis({
            min: input.since,
            max: input.until,
            step,
            tick,
            size: 18,
            grid: COLORS.grid,
          }),
          // The time zone the times are in, on the axis they are read from.
          title: {
            display: true,
            text: `time (${timeZone})`,
            color: COLORS.muted,
            font: { size: 16 },
          },
        },
        y: {
          type: 'linear',
          beginAtZero: true,
          // A hit rate is read against the whole 0–100 %; with nothing else to hold, a frame from 0
          // to 1, with no scale to read, holds the words saying there was no traffic.
          ...(hitRate || emptyFrame ? { min: 0, max: 1 } : {}),
          grid: { color: COLORS.grid },
          title: {
            display: true,
            text: input.seriesLabel,
            color: COLORS.muted,
            font: { size: 16 },
          },
          ticks: {
            callback: axisTicks(
              hitRate ? 'percent' : input.metric === 'bandwidth' ? 'bytes' : 'count',
            ),
            font: { size: 18 },
            display: !emptyFrame,
          },
        },
      },
    },
  };
}
