// A daily report: yesterday's traffic against the day before, and yesterday's chart, in the
// schedule's time zone.

import { escapeMrkdwn } from '../blocks/text.js';
import { formatBytes, formatCount, formatPercent } from '../charts/format.js';
import type { TrafficChartRenderer } from '../charts/traffic-chart.js';
import type { Store } from '../store/index.js';
import type { Schedule } from '../store/schedules.js';
import { markerOf } from './analytics.js';
import type { CdnAccess } from './cdn-access.js';
import { previousDay } from './report-times.js';

export interface DailyReport {
  /** The message: readable without the chart, and in notifications. */
  text: string;
  title: string;
  filename: string;
  /** Absent when yesterday had no traffic. */
  png?: Buffer;
}

/** "+12.3 %", "−4.0 %", or "new" when there is nothing to compare with. */
export function delta(now: number, before: number): string {
  if (before === 0) return now === 0 ? '±0 %' : 'new';
  const change = ((now - before) / before) * 100;
  const sign = change > 0.05 ? '+' : change < -0.05 ? '−' : '±';
  return `${sign}${Math.abs(change).toFixed(1)} %`;
}

export class DailyReportService {
  constructor(
    private readonly cdn: CdnAccess,
    private readonly store: Store,
    private readonly renderer: TrafficChartRenderer,
  ) {}

  /** The report for the occurrence due at `at` (so "yesterday" is the day before that one). */
  async build(schedule: Schedule, at: number): Promise<DailyReport> {
    const client = await this.cdn.clientFor(schedule.workspaceId);
    const day = previousDay(at, schedule.timeZone);
    const before = previousDay(day.start, schedule.timeZone);
    const range = (d: { start: number; end: number }) => ({
      since: new Date(d.start),
      until: new Date(d.end),
      granularity: 'hour' as const,
    });
    const [yesterday, dayBefore, entries] = await Promise.all([
      client.trafficAnalytics(schedule.zoneId, range(day)),
      client.trafficAnalytics(schedule.zoneId, range(before)),
      this.store.audit.forZoneBetween(schedule.workspaceId, schedule.zoneId, day.start, day.end),
    ]);
    const y = yesterday.totals;
    const b = dayBefore.totals;
    const points = ((y.cacheHitRate - b.cacheHitRate) * 100).toFixed(1);
    const text = [
      `:sunrise: *${escapeMrkdwn(schedule.zoneName)}* · ${day.label} (${escapeMrkdwn(schedule.timeZone)})`,
      `*${formatCount(y.requests)}* requests (${delta(y.requests, b.requests)} on the day before) · ` +
        `*${formatBytes(y.bandwidth)}* (${delta(y.bandwidth, b.bandwidth)}) · ` +
        `cache hit rate *${formatPercent(y.cacheHitRate)}* (${Number(points) >= 0 ? '+' : '−'}${Math.abs(Number(points)).toFixed(1)} pts)`,
    ].join('\n');
    const report: DailyReport = {
      text,
      title: `${schedule.zoneName} traffic, ${day.label}`,
      filename: `${schedule.zoneName}-daily-${new Date(day.start).toISOString().slice(0, 10)}.png`,
    };
    if (yesterday.series.length > 0 && y.requests > 0) {
      report.png = await this.renderer.render({
        zoneName: schedule.zoneName,
        traffic: yesterday,
        range: { since: day.start, until: day.end, granularity: 'hour', label: day.label },
        timeZone: schedule.timeZone,
        markers: entries.flatMap(markerOf),
      });
    }
    return report;
  }
}
