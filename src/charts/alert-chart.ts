// An alert's chart as a Chart.js configuration: the zone's last hours by minute, the usual band
// (from its baseline) or the threshold drawn across, and the alert's window shaded. Drawn by the
// same renderer as traffic charts (traffic-chart.ts dispatches on `kind`), in-process or in the pool.
import type { ChartConfiguration } from 'chart.js';
import type {} from 'chartjs-plugin-annotation';
import { formatBytes, formatCount, safeTimeZone, timeFormatter } from './format.js';

export interface AlertChartInput {
  kind: 'alert';
  zoneName: string;
  /** What the alert is about, for the title: "Requests spike", "requests>50000/5m". */
  title: string;
  /** Requests or bytes per minute. */
  metric: 'requests' | 'bandwidth';
  series: Array<{ time: number; value: number }>;
  since: number;
  until: number;
  timeZone: string;
  /** The usual range per minute, point by point (the baseline band). */
  band?: Array<{ time: number; lower: number; upper: number }>;
  /** A threshold per minute, drawn as a line. */
  threshold?: { value: number; label: string };
  /** When the alert started, and when it resolved (still open: up to `until`). */
  window: { from: number; to?: number };
  /** One line under the title. */
  subtitle: string;
}

const COLORS = {
  line: '#2563eb',
  band: 'rgba(22, 163, 74, 0.16)',
  bandEdge: 'rgba(22, 163, 74, 0.55)',
  threshold: '#dc2626',
  firing: 'rgba(220, 38, 38, 0.10)',
  resolved: 'rgba(107, 114, 128, 0.12)',
  grid: '#e5e7eb',
  muted: '#6b7280',
} as const;

const MINUTE = 60_000;

export function alertChartConfig(
  input: AlertChartInput,
): ChartConfiguration<'line', Array<{ x: number; y: number }>> {
  const timeZone = safeTimeZone(input.timeZone);
  const span = input.until - input.since;
  const tick = timeFormatter(timeZone, span);
  const format = input.metric === 'bandwidth' ? formatBytes : formatCount;
  const step = span > 6 * 3_600_000 ? 3_600_000 : 30 * MINUTE;
  const firstTick = Math.ceil(input.since / step) * step;
  const band = input.band ?? [];
  const resolved = input.window.to !== undefined;
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
          label: input.metric === 'bandwidth' ? 'Bandwidth a minute' : 'Requests a minute',
          data: input.series.map((p) => ({ x: p.time, y: p.value })),
          borderColor: COLORS.line,
          borderWidth: 2.5,
          pointRadius: 0,
          fill: false,
          tension: 0,
        },
      ],
    },
    options: {
      animation: false,
      responsive: false,
      parsing: false,
      normalized: true,
      layout: { padding: { top: 8, right: 24, bottom: 8, left: 8 } },
      plugins: {
        title: {
          display: true,
          text: `${input.zoneName} · ${input.title}`,
          // Large: Slack shows a preview at about a third of the chart's width.
          font: { size: 30, weight: 700 },
          padding: { bottom: 4 },
        },
        subtitle: {
          display: true,
          text: input.subtitle,
          color: COLORS.muted,
          font: { size: 20 },
          padding: { bottom: 12 },
        },
        legend: {
          position: 'bottom',
          labels: {
            usePointStyle: true,
            font: { size: 18 },
            filter: (item) => !item.text.endsWith('(lower)'),
          },
        },
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
          },
        },
      },
      scales: {
        x: {
          type: 'linear',
          min: input.since,
          max: input.until,
          grid: { color: COLORS.grid },
          afterBuildTicks: (axis) => {
            axis.ticks = [];
            for (let value = firstTick; value <= input.until; value += step)
              axis.ticks.push({ value });
          },
          ticks: { callback: (value) => tick(Number(value)), maxRotation: 0, font: { size: 18 } },
        },
        y: {
          type: 'linear',
          beginAtZero: true,
          grid: { color: COLORS.grid },
          ticks: { callback: (value) => format(Number(value)), font: { size: 18 } },
        },
      },
    },
  };
}
