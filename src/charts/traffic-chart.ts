// Traffic charts as PNG: requests and bandwidth over time, the cache hit rate, and the changes
// made from Slack marked on the time axis. One renderer per process, reused.
import type { ChartConfiguration } from 'chart.js';
import { ChartJSNodeCanvas } from 'chartjs-node-canvas';
// Type-only: brings the plugin's option types into Chart.js's.
import type {} from 'chartjs-plugin-annotation';
import type { TrafficAnalytics, TrafficPoint } from '../cdn/schemas.js';
import { type AlertChartInput, alertChartConfig } from './alert-chart.js';
import { CHART_FONT, registerChartFonts } from './fonts.js';
import {
  axisTicks,
  formatBytes,
  formatCount,
  formatPercent,
  safeTimeZone,
  timeFormatter,
} from './format.js';
import { bottomLegend, headings, STILL, timeAxis } from './frame.js';
import { MARKER_FONT_PX, MARKER_PADDING_PX, placeMarkerLabels } from './marker-layout.js';
import { BUCKET_WORDS, CHART_BUCKET_MS, type ChartGranularity } from './window.js';

/** A change made from Slack, drawn as a vertical line. */
export interface ChartMarker {
  at: number;
  label: string;
  kind: 'purge' | 'ratelimit' | 'other';
}

export interface TrafficChartInput {
  zoneName: string;
  traffic: TrafficAnalytics;
  range: {
    since: number;
    until: number;
    granularity: ChartGranularity;
    label: string;
    /** The window ends now: a bucket it cuts at its end is the current one, "so far". */
    endsNow?: boolean;
  };
  timeZone: string;
  markers: ChartMarker[];
  /** The window, its buckets and its time zone in words (window.ts), drawn above the totals. */
  subtitle?: string;
}

/** Every chart the renderer draws: a traffic chart, or an alert's (told apart by `kind`). */
export type ChartInput = TrafficChartInput | AlertChartInput;

/** A place held among the charts someone waits for: its chart drawn in it, then given back. */
export interface ChartPlace {
  render(input: TrafficChartInput): Promise<Buffer>;
  /** Gives the place back (once; again does nothing), whether or not a chart was drawn. */
  release(): void;
}

/** Whoever draws charts: this renderer in-process, or a pool of worker threads (render-pool.ts). */
export interface ChartRenderer {
  /**
   * The chart as PNG. `wait` (background work: reports) waits for room when every worker is busy
   * and the queue is full; without it (a person waiting) a full queue refuses at once.
   */
  render(input: ChartInput, options?: { wait?: boolean }): Promise<Buffer>;
  /**
   * Holds a place for a chart someone waits for before its data is fetched, or refuses it at once
   * (AppError `charts_busy`) when every place is held: a chart refused costs the CDN nothing.
   * Absent: every chart has room (the in-process renderer).
   */
  reserve?(): ChartPlace;
}

/** Wide enough for a day of minutes, and legible when Slack shrinks it in the timeline. */
export const CHART_SIZE = { width: 1200, height: 640 } as const;

const COLORS = {
  requests: '#2563eb',
  bandwidth: '#0d9488',
  grid: '#e5e7eb',
  text: '#1f2937',
  muted: '#6b7280',
  purge: '#dc2626',
  ratelimit: '#d97706',
  other: '#7c3aed',
  /** A partial bucket (the interval still filling, or one the window cuts): lighter. */
  requestsSoFar: 'rgba(37, 99, 235, 0.4)',
  bandwidthSoFar: 'rgba(13, 148, 136, 0.4)',
} as const;

/** Datasets drawn for the interval still filling, and for cut buckets: left out of the legend. */
const SO_FAR = ' so far';
const PARTIAL = ' partial';

export class TrafficChartRenderer implements ChartRenderer {
  readonly #canvas: ChartJSNodeCanvas;

  readonly #encodeInThread: boolean;

  /**
   * `encodeInThread`: encode the PNG on the calling thread (a chart worker, which runs niced)
   * instead of on libuv's pool, which runs at the process's priority beside the event loop.
   */
  constructor(options: { encodeInThread?: boolean } = {}) {
    this.#encodeInThread = options.encodeInThread ?? false;
    registerChartFonts();
    this.#canvas = new ChartJSNodeCanvas({
      ...CHART_SIZE,
      backgroundColour: 'white',
      // Each renderer gets a fresh copy of Chart.js; the plugin must be loaded into that copy, which
      // is what this option does (a plugin imported here would stay bound to another copy).
      plugins: { modern: ['chartjs-plugin-annotation'] },
      chartCallback: (ChartJS) => {
        ChartJS.defaults.font.family = CHART_FONT;
        ChartJS.defaults.color = COLORS.text;
      },
    });
  }

  async render(input: ChartInput): Promise<Buffer> {
    const config = 'kind' in input ? alertChartConfig(input) : chartConfig(input);
    if (!this.#encodeInThread) return this.#canvas.renderToBuffer(config, 'image/png');
    const png = this.#canvas.renderToBufferSync(config, 'image/png');
    // A turn of the event loop before the next render: a canvas's 3 MB are given back by a
    // finalizer that runs there. Back-to-back renders without one kept every canvas (1 GB a
    // replica in `npm run bench -- reports-scale`; test/charts/render-pool.test.ts measures it).
    await new Promise((resolve) => setImmediate(resolve));
    return png;
  }
}

const HOUR = 3_600_000;

/** About six to ten ticks across any supported range. */
function tickStep(span: number): number {
  const steps = [
    10 * 60_000,
    30 * 60_000,
    HOUR,
    3 * HOUR,
    6 * HOUR,
    12 * HOUR,
    24 * HOUR,
    3 * 24 * HOUR,
    5 * 24 * HOUR,
  ];
  return steps.find((step) => span / step <= 10) ?? 7 * 24 * HOUR;
}

export function chartConfig(
  input: TrafficChartInput,
): ChartConfiguration<'line', Array<{ x: number; y: number }>> {
  const { traffic, range } = input;
  const timeZone = safeTimeZone(input.timeZone);
  const span = range.until - range.since;
  const tick = timeFormatter(timeZone, span);
  // The axis starts at the first bucket; ticks fall on whole steps (every 3 h for a day…) after it.
  const bucket = CHART_BUCKET_MS[range.granularity];
  const words = BUCKET_WORDS[range.granularity];
  const min = Math.floor(range.since / bucket) * bucket;
  const step = tickStep(span);
  const dense = traffic.series.length > 200;
  // A bucket the window does not wholly hold counts only part of its time: its smaller count is no
  // drop in traffic. It is the current one, still filling (10:00–11:00 at 10:21), or one the window
  // cuts (a report's day starting at half past the CDN's hours, the last hour by day). The lines
  // join whole buckets only; a partial one is a lighter point of its own, labelled "so far" or
  // "partial", with no line plunging into it. A lone bucket, with none to compare, is drawn as it is,
  // and so is a range with no traffic (a flat line under the words saying so).
  const noTraffic = traffic.series.every((p) => p.requests === 0 && p.bandwidth === 0);
  const partial = (p: TrafficPoint) =>
    traffic.series.length > 1 &&
    !noTraffic &&
    (p.clipped !== undefined || p.time < range.since || p.time + bucket > range.until);
  const last = traffic.series.at(-1);
  const soFar =
    range.endsNow && last !== undefined && last.time + bucket > range.until && partial(last)
      ? last
      : undefined;
  const parts = traffic.series.filter((p) => p !== soFar && partial(p));
  const whole = traffic.series.filter((p) => p !== soFar && !parts.includes(p));
  const cutFirst = parts.some((p) => p === traffic.series[0]);
  const cutLast = parts.some((p) => p === last);
  // Points and dashes: none on a dense series (noise at a point per pixel or two) or a flat zero.
  const plain = dense || noTraffic;
  const point = (key: 'requests' | 'bandwidth') => whole.map((p) => ({ x: p.time, y: p[key] }));
  const lighter = (
    key: 'requests' | 'bandwidth',
    label: string,
    suffix: string,
    at: readonly TrafficPoint[],
  ) => ({
    label: `${label}${suffix}`,
    data: at.map((p) => ({ x: p.time, y: p[key] })),
    yAxisID: key,
    showLine: false,
    borderColor: key === 'requests' ? COLORS.requestsSoFar : COLORS.bandwidthSoFar,
    backgroundColor: key === 'requests' ? COLORS.requestsSoFar : COLORS.bandwidthSoFar,
    borderWidth: 2,
    pointRadius: 5,
  });
  const markers = input.markers.filter((m) => m.at >= min && m.at <= range.until);
  const labels = placeMarkerLabels(markers, { min, max: range.until });
  const lighterNotes = [
    ...(cutFirst ? [`only part of the first ${words}`] : []),
    ...(cutLast ? [`only part of the last ${words}`] : []),
    ...(soFar ? [`the current ${words} so far`] : []),
  ];
  const subtitle = `${formatCount(traffic.totals.requests)} requests · ${formatBytes(traffic.totals.bandwidth)} · cache hit rate ${formatPercent(traffic.totals.cacheHitRate)}`;
  return {
    type: 'line',
    data: {
      datasets: [
        {
          label: 'Requests',
          data: point('requests'),
          yAxisID: 'requests',
          borderColor: COLORS.requests,
          backgroundColor: 'rgba(37, 99, 235, 0.08)',
          fill: !dense,
          borderWidth: dense ? 1.25 : 2,
          pointRadius: plain ? 0 : 2,
          // Curves cost time on dense series and are invisible at one point per pixel or two.
          tension: dense ? 0 : 0.25,
        },
        {
          label: 'Bandwidth',
          data: point('bandwidth'),
          yAxisID: 'bandwidth',
          borderColor: COLORS.bandwidth,
          // Dashes turn to noise at one point per pixel or two.
          borderDash: plain ? [] : [6, 4],
          borderWidth: dense ? 1.25 : 2,
          pointRadius: plain ? 0 : 2,
          tension: dense ? 0 : 0.25,
        },
        ...(soFar
          ? [
              lighter('requests', 'Requests', SO_FAR, [soFar]),
              lighter('bandwidth', 'Bandwidth', SO_FAR, [soFar]),
            ]
          : []),
        ...(parts.length > 0
          ? [
              lighter('requests', 'Requests', PARTIAL, parts),
              lighter('bandwidth', 'Bandwidth', PARTIAL, parts),
            ]
          : []),
      ],
    },
    options: {
      ...STILL,
      layout: { padding: { top: 8, right: 16, bottom: 8, left: 8 } },
      plugins: {
        // Largest-triangle downsampling keeps the shape of a dense series and draws far fewer points.
        decimation: { enabled: dense, algorithm: 'lttb', samples: 600 },
        ...headings(
          {
            text: `${input.zoneName} · ${range.label} by ${words} · ${timeZone}`,
            font: { size: 22, weight: 600 },
          },
          {
            text: withWindow(input.subtitle, withLighter(subtitle, lighterNotes)),
            size: 15,
            color: COLORS.muted,
          },
        ),
        legend: bottomLegend(!noTraffic, {
          size: 13,
          boxHeight: 8,
          keep: (item) => !item.text.endsWith(SO_FAR) && !item.text.endsWith(PARTIAL),
        }),
        annotation: {
          annotations: {
            ...Object.fromEntries(
              markers.map((marker, i) => {
                const placed = labels[i];
                return [
                  `marker${i}`,
                  {
                    type: 'line' as const,
                    xMin: marker.at,
                    xMax: marker.at,
                    borderColor: COLORS[marker.kind],
                    borderWidth: 2,
                    borderDash: [4, 4],
                    label: {
                      // A label with no room in any row is left off: the line stays.
                      display: placed !== undefined,
                      content: placed?.text ?? marker.label,
                      position: 'end' as const,
                      // Rows downwards from the top (marker-layout.ts keeps each row's apart).
                      yAdjust: 6 + (placed?.row ?? 0) * 26,
                      backgroundColor: COLORS[marker.kind],
                      color: 'white',
                      font: { size: MARKER_FONT_PX, weight: 600 as const },
                      padding: MARKER_PADDING_PX,
                    },
                  },
                ];
              }),
            ),
            ...(soFar
              ? {
                  soFar: {
                    type: 'label' as const,
                    xValue: soFar.time,
                    yValue: soFar.requests,
                    yScaleID: 'requests',
                    content: 'so far',
                    color: COLORS.muted,
                    font: { size: 13, weight: 600 as const },
                    // Above and left of the point: the plot's right edge is close.
                    xAdjust: -26,
                    yAdjust: -16,
                  },
                }
              : {}),
            ...Object.fromEntries(
              parts.map((part, i) => [
                `partial${i}`,
                {
                  type: 'label' as const,
                  xValue: part.time,
                  yValue: part.requests,
                  yScaleID: 'requests',
                  content: 'partial',
                  color: COLORS.muted,
                  font: { size: 13, weight: 600 as const },
                  // Away from the plot's edge the point is on.
                  xAdjust: part === traffic.series[0] ? 34 : -34,
                  yAdjust: -16,
                },
              ]),
            ),
            ...(noTraffic
              ? {
                  noTraffic: {
                    type: 'label' as const,
                    xValue: (min + range.until) / 2,
                    yValue: 0.5,
                    yScaleID: 'requests',
                    content: 'No traffic in this range',
                    color: COLORS.muted,
                    font: { size: 28, weight: 600 as const },
                  },
                }
              : {}),
          },
        },
      },
      scales: {
        x: timeAxis({ min, max: range.until, step, tick, size: 12, grid: COLORS.grid }),
        requests: {
          type: 'linear',
          position: 'left',
          beginAtZero: true,
          grid: { color: COLORS.grid },
          title: { display: true, text: 'requests', color: COLORS.requests, font: { size: 13 } },
          // No traffic: no scale to read, a frame from 0 to 1 for the words saying so.
          ...(noTraffic ? { display: false, min: 0, max: 1 } : {}),
          ticks: { callback: axisTicks('count'), font: { size: 12 } },
        },
        bandwidth: {
          type: 'linear',
          position: 'right',
          display: !noTraffic,
          beginAtZero: true,
          grid: { drawOnChartArea: false },
          title: { display: true, text: 'bandwidth', color: COLORS.bandwidth, font: { size: 13 } },
          ticks: { callback: axisTicks('bytes'), font: { size: 12 } },
        },
      },
    },
  };
}

/** The totals, and what the lighter points are when there are any. */
function withLighter(totals: string, notes: string[]): string {
  return notes.length === 0 ? totals : `${totals} · ${notes.join(', ')} (lighter)`;
}

/** The window's line above the totals' line, when there is one (Chart.js draws an array as lines). */
function withWindow(window: string | undefined, totals: string): string | string[] {
  return window ? [window, totals] : totals;
}
