// The words that go with a traffic chart: totals first, so it reads well without the image.
import { formatBytes, formatCount, formatPercent, timeFormatter } from '../charts/format.js';
import { BUCKET_WORDS, windowText } from '../charts/window.js';
import type { AnalyticsReport } from '../services/analytics/analytics.js';
import { zoneLabel } from '../zone-names.js';
import { summarise } from './fit.js';
import { clip, MAX_SENTENCE, type Mrkdwn, md, user } from './text.js';

const fromDefault = (report: AnalyticsReport) =>
  report.fromDefault ? " (this channel's default)" : '';

/** Who asked for it, said with every chart posted. */
const requestedBy = (report: AnalyticsReport): Mrkdwn | '' =>
  report.requestedBy ? md` · requested by ${user(report.requestedBy)}` : '';

export function analyticsComment(report: AnalyticsReport): Mrkdwn {
  const { traffic, range, zone } = report;
  const head = md`:bar_chart: *${zoneLabel(zone.name)}*${fromDefault(report)} · ${range.label} by ${BUCKET_WORDS[range.granularity]} (${report.timeZone})${requestedBy(report)}`;
  // The totals count exactly this window, as the chart's subtitle says.
  const totals = md`*${formatCount(traffic.totals.requests)}* requests · *${formatBytes(traffic.totals.bandwidth)}* · cache hit rate *${formatPercent(traffic.totals.cacheHitRate)}*\n${windowText(range, report.timeZone)}`;
  if (report.markers.length === 0) return clip(md`${head}\n${totals}`, MAX_SENTENCE);
  const at = timeFormatter(report.timeZone, range.until - range.since);
  const marked = summarise(report.markers, 5, (m) => md`${m.label} (${at(m.at)})`, ', ');
  return clip(md`${head}\n${totals}\nMarked on the chart: ${marked}.`, MAX_SENTENCE);
}

export function noTrafficText(report: AnalyticsReport): Mrkdwn {
  const status = report.zone.status !== 'active' ? md` (the zone is ${report.zone.status})` : '';
  return md`:zzz: No traffic on *${zoneLabel(report.zone.name)}*${fromDefault(report)} in the ${report.range.label}${status}.${report.requestedBy ? md` Requested by ${user(report.requestedBy)}.` : ''}`;
}
