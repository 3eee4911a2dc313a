// The words that go with a traffic chart: totals first, so it reads well without the image.
import { formatBytes, formatCount, formatPercent, timeFormatter } from '../charts/format.js';
import type { AnalyticsReport } from '../services/analytics.js';
import { escapeMrkdwn } from './text.js';

export function analyticsComment(report: AnalyticsReport): string {
  const { traffic, range, zone } = report;
  const head = `:bar_chart: *${escapeMrkdwn(zone.name)}*${report.fromDefault ? " (this channel's default)" : ''} · ${escapeMrkdwn(range.label)} by ${range.granularity} (${escapeMrkdwn(report.timeZone)})`;
  const totals = `*${formatCount(traffic.totals.requests)}* requests · *${formatBytes(traffic.totals.bandwidth)}* · cache hit rate *${formatPercent(traffic.totals.cacheHitRate)}*`;
  if (report.markers.length === 0) return `${head}\n${totals}`;
  const at = timeFormatter(report.timeZone, range.until - range.since);
  const shown = report.markers.slice(0, 5).map((m) => `${escapeMrkdwn(m.label)} (${at(m.at)})`);
  const more = report.markers.length > 5 ? `, and ${report.markers.length - 5} more` : '';
  return `${head}\n${totals}\nMarked on the chart: ${shown.join(', ')}${more}.`;
}

export function noTrafficText(report: AnalyticsReport): string {
  return `:zzz: No traffic on *${escapeMrkdwn(report.zone.name)}*${report.fromDefault ? " (this channel's default)" : ''} in the ${escapeMrkdwn(report.range.label)}${report.zone.status !== 'active' ? ` (the zone is ${escapeMrkdwn(report.zone.status)})` : ''}.`;
}
