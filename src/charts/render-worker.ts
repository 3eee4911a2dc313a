// A worker thread of the chart pool (render-pool.ts): one renderer for the thread's life, given a
// chart's data, giving back its PNG.
import { type TrafficChartInput, TrafficChartRenderer } from './traffic-chart.js';

const renderer = new TrafficChartRenderer();

export default function render(input: TrafficChartInput): Promise<Buffer> {
  return renderer.render(input);
}
