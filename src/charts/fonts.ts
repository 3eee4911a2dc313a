// The chart font, bundled (Inter, SIL OFL) and registered once, so charts look the same on every
// machine instead of falling back to whatever fonts (or boxes) the host has.
import { createRequire } from 'node:module';
import { registerFont } from 'canvas';

export const CHART_FONT = 'Inter';
let registered = false;

export function registerChartFonts(): void {
  if (registered) return;
  const require = createRequire(import.meta.url);
  registerFont(require.resolve('@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf'), {
    family: CHART_FONT,
    weight: '400',
  });
  registerFont(require.resolve('@expo-google-fonts/inter/600SemiBold/Inter_600SemiBold.ttf'), {
    family: CHART_FONT,
    weight: '600',
  });
  registered = true;
}
