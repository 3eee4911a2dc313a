// Where the labels of a traffic chart's markers go: stacked in up to three rows so that no two
// overlap, a label too long for any row shortened to its kind ("purge"), and one with no room even
// then left off (its line is still drawn). Labels are measured in the chart's own font.
import { type CanvasRenderingContext2D, createCanvas } from 'canvas';
import { CHART_FONT, registerChartFonts } from './fonts.js';

/** The label font (px) and padding (px each side) the traffic chart draws marker labels with. */
export const MARKER_FONT_PX = 12;
export const MARKER_PADDING_PX = 4;
/** Rows of labels below the top of the chart, at most. */
export const MARKER_ROWS = 3;
/** Room kept between two labels of a row (px). */
const GAP_PX = 6;
/**
 * The plot's width (px) assumed when placing labels: less than any real one (the chart's width less
 * its axes), so two labels apart here are at least as far apart when drawn.
 */
export const PLOT_WIDTH_PX = 900;

let measuring: CanvasRenderingContext2D | undefined;

/** A label's width (px) as drawn: its text in the chart's font, and its padding. */
export function labelWidth(text: string): number {
  if (!measuring) {
    registerChartFonts();
    measuring = createCanvas(1, 1).getContext('2d');
    measuring.font = `600 ${MARKER_FONT_PX}px ${CHART_FONT}`;
  }
  return Math.ceil(measuring.measureText(text).width) + 2 * MARKER_PADDING_PX;
}

const SHORT: Record<string, string> = { purge: 'purge', ratelimit: 'rate limit', other: 'change' };

export interface PlacedLabel {
  /** The text drawn: the marker's own, or its kind when that did not fit. */
  text: string;
  /** 0 is the top row. */
  row: number;
}

/**
 * Each marker's label and row, in the markers' order; undefined where no row has room. `min` and
 * `max` are the x axis's range.
 */
export function placeMarkerLabels(
  markers: ReadonlyArray<{ at: number; label: string; kind: string }>,
  range: { min: number; max: number },
): Array<PlacedLabel | undefined> {
  const scale = PLOT_WIDTH_PX / Math.max(1, range.max - range.min);
  /** The right edge of the last label of each row. */
  const rowEnds = new Array<number>(MARKER_ROWS).fill(Number.NEGATIVE_INFINITY);
  const placed = new Array<PlacedLabel | undefined>(markers.length);
  const order = markers
    .map((_, i) => i)
    .sort((a, b) => (markers[a]?.at ?? 0) - (markers[b]?.at ?? 0));
  for (const i of order) {
    const marker = markers[i];
    if (!marker) continue;
    const x = (marker.at - range.min) * scale;
    for (const text of [marker.label, SHORT[marker.kind] ?? 'change']) {
      const half = labelWidth(text) / 2;
      const row = rowEnds.findIndex((end) => x - half >= end + GAP_PX);
      if (row === -1) continue;
      rowEnds[row] = x + half;
      placed[i] = { text, row };
      break;
    }
  }
  return placed;
}
