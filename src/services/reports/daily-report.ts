// A daily report: yesterday's traffic against the day before, and yesterday's chart, in the
// schedule's time zone.

import type { TrafficTotals } from '../../cdn/schemas.js';
import type { ChartRenderer } from '../../charts/traffic-chart.js';
import { windowText } from '../../charts/window.js';
import type { Store } from '../../store/index.js';
import type { Schedule } from '../../store/schedules.js';
import type { CdnAccess } from '../accounts/cdn-access.js';
import { markerOf } from '../analytics/analytics.js';
import { trafficOver } from '../analytics/traffic-window.js';
import { previousDay } from './report-times.js';

export interface DailyReport {
  zoneName: string;
  /** The day reported on, as its label ("Sun 22 Nov 2026"), in `timeZone`. */
  dayLabel: string;
  timeZone: string;
  yesterday: TrafficTotals;
  dayBefore: TrafficTotals;
  title: string;
  filename: string;
  /** Who set the report up: every report names them. */
  setUpBy: string;
  /** Absent when yesterday had no traffic. */
  png?: Buffer;
}

export class DailyReportService {
  constructor(
    private readonly cdn: CdnAccess,
    private readonly store: Store,
    private readonly renderer: ChartRenderer,
  ) {}

  /** The report for the occurrence due at `at` (so "yesterday" is the day before that one). */
  async build(schedule: Schedule, at: number): Promise<DailyReport> {
    // The report's own account: its key, its base URL.
    const client = await this.cdn.clientFor(schedule.workspaceId, schedule.accountId, 'reports');
    const day = previousDay(at, schedule.timeZone);
    const before = previousDay(day.start, schedule.timeZone);
    // The days of the schedule's time zone: their hours need not be the CDN's (India's start at
    // half past), so each day's edge hours are summed from minutes (traffic-window.ts).
    const window = (d: { start: number; end: number }) => ({
      since: d.start,
      until: d.end,
      granularity: 'hour' as const,
    });
    const [yesterday, dayBefore, entries] = await Promise.all([
      trafficOver(client, schedule.zoneId, window(day)),
      trafficOver(client, schedule.zoneId, window(before)),
      this.store.audit.forZoneBetween(schedule.workspaceId, schedule.zoneId, day.start, day.end),
    ]);
    const report: DailyReport = {
      zoneName: schedule.zoneName,
      dayLabel: day.label,
      timeZone: schedule.timeZone,
      yesterday: yesterday.totals,
      dayBefore: dayBefore.totals,
      title: `${schedule.zoneName} traffic, ${day.label}`,
      setUpBy: schedule.createdBy,
      filename: `${schedule.zoneName}-daily-${new Date(day.start).toISOString().slice(0, 10)}.png`,
    };
    if (yesterday.series.length > 0 && yesterday.totals.requests > 0) {
      const range = { ...window(day), label: day.label };
      report.png = await this.renderer.render(
        {
          zoneName: schedule.zoneName,
          traffic: yesterday,
          range,
          timeZone: schedule.timeZone,
          markers: entries.flatMap(markerOf),
          subtitle: windowText(range, schedule.timeZone),
        },
        // A report is background work: it waits for a free chart worker instead of being refused.
        { wait: true },
      );
    }
    return report;
  }
}
