// What every chart draws alike (traffic charts and alerts' charts): Chart.js's options for a
// still image, the title and subtitle above it, the legend under it, and a time axis whose ticks
// fall on whole steps.
import type { Scale } from 'chart.js';

/** A still image: no animation, no resizing, data given as parsed {x, y} points in order. */
export const STILL = {
  animation: false,
  responsive: false,
  parsing: false,
  normalized: true,
} as const;

type Font = { size: number; weight?: number };

/** The title (bold, `font`), and the subtitle under it in `color` (an array: a line each). */
export function headings(
  title: { text: string; font: Font },
  subtitle: { text: string | string[]; size: number; color: string },
) {
  return {
    title: { display: true, text: title.text, font: title.font, padding: { bottom: 4 } },
    subtitle: {
      display: true,
      text: subtitle.text,
      color: subtitle.color,
      font: { size: subtitle.size },
      padding: { bottom: 12 },
    },
  };
}

/** The legend under the chart (none when `display` is false), as dots; `keep` leaves some out. */
export function bottomLegend(
  display: boolean,
  labels: { size: number; boxHeight?: number; keep: (item: { text: string }) => boolean },
) {
  return {
    display,
    position: 'bottom' as const,
    labels: {
      usePointStyle: true,
      ...(labels.boxHeight === undefined ? {} : { boxHeight: labels.boxHeight }),
      font: { size: labels.size },
      filter: labels.keep,
    },
  };
}

/** The x axis from `min` to `max` (ms), ticked every `step` from the first whole one, by `tick`. */
export function timeAxis(axis: {
  min: number;
  max: number;
  step: number;
  tick: (ms: number) => string;
  size: number;
  grid: string;
}) {
  const { min, max, step, tick } = axis;
  const first = Math.ceil(min / step) * step;
  return {
    type: 'linear' as const,
    min,
    max,
    grid: { color: axis.grid },
    afterBuildTicks: (scale: Scale) => {
      scale.ticks = [];
      for (let value = first; value <= max; value += step) scale.ticks.push({ value });
    },
    ticks: {
      callback: (value: string | number) => tick(Number(value)),
      maxRotation: 0,
      font: { size: axis.size },
    },
  };
}
