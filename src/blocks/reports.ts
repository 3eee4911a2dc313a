// Daily report schedules as users see them: confirmation, the list, and the Stop buttons' ids.
import type { KnownBlock } from '@slack/types';
import { formatBytes, formatCount, formatPercent } from '../charts/format.js';
import type { DailyReport } from '../services/daily-report.js';
import type { Schedule } from '../store/schedules.js';
import { noticeMessage } from './errors.js';
import type { Message } from './message.js';
import { code, escapeMrkdwn, mrkdwn, plain, slackDate } from './text.js';

/** Schedules are named by the first characters of their id. */
export const shortId = (schedule: Pick<Schedule, 'id'>) => schedule.id.slice(0, 8);

export function scheduleLine(schedule: Schedule): string {
  const state =
    schedule.status === 'paused'
      ? ` · :double_vertical_bar: paused: ${escapeMrkdwn(schedule.pausedReason ?? '')}`
      : ` · next ${slackDate(schedule.nextRunAt)}`;
  return `${code(shortId(schedule))} *${escapeMrkdwn(schedule.zoneName)}* → <#${schedule.channelId}> daily at ${escapeMrkdwn(schedule.timeOfDay)} (${escapeMrkdwn(schedule.timeZone)})${state}`;
}

export function scheduledMessage(schedule: Schedule): Message {
  const text = `:calendar: Daily traffic report of *${escapeMrkdwn(schedule.zoneName)}* scheduled: <#${schedule.channelId}> at ${escapeMrkdwn(schedule.timeOfDay)} ${escapeMrkdwn(schedule.timeZone)}, first one ${slackDate(schedule.nextRunAt)}. Stop it with \`/cdn report stop ${shortId(schedule)}\`.`;
  return {
    text: `Daily report of ${escapeMrkdwn(schedule.zoneName)} scheduled`,
    blocks: [{ type: 'section', text: mrkdwn(text) }],
  };
}

export function scheduleListMessage(schedules: Schedule[]): Message {
  const blocks: KnownBlock[] = [{ type: 'header', text: plain('Daily reports') }];
  if (schedules.length === 0) {
    blocks.push({
      type: 'section',
      text: mrkdwn('None yet. Schedule one with `/cdn report <zone> daily [HH:MM] [#channel]`.'),
    });
  }
  for (const schedule of schedules.slice(0, 45))
    blocks.push({ type: 'section', text: mrkdwn(scheduleLine(schedule)) });
  return { text: `${schedules.length} daily report${schedules.length === 1 ? '' : 's'}`, blocks };
}

/** "+12.3 %", "−4.0 %", or "new" when there is nothing to compare with. */
export function delta(now: number, before: number): string {
  if (before === 0) return now === 0 ? '±0 %' : 'new';
  const change = ((now - before) / before) * 100;
  const sign = change > 0.05 ? '+' : change < -0.05 ? '−' : '±';
  return `${sign}${Math.abs(change).toFixed(1)} %`;
}

/** A daily report's message: readable without the chart, and in notifications. */
export function dailyReportText(report: DailyReport): string {
  const y = report.yesterday;
  const b = report.dayBefore;
  const points = (y.cacheHitRate - b.cacheHitRate) * 100;
  return [
    `:sunrise: *${escapeMrkdwn(report.zoneName)}* · ${escapeMrkdwn(report.dayLabel)} (${escapeMrkdwn(report.timeZone)})`,
    `*${formatCount(y.requests)}* requests (${delta(y.requests, b.requests)} on the day before) · ` +
      `*${formatBytes(y.bandwidth)}* (${delta(y.bandwidth, b.bandwidth)}) · ` +
      `cache hit rate *${formatPercent(y.cacheHitRate)}* (${Number(points.toFixed(1)) >= 0 ? '+' : '−'}${Math.abs(points).toFixed(1)} pts)`,
  ].join('\n');
}

/** The DM to a schedule's creator when it pauses. */
export function reportPausedText(schedule: Schedule, reason: string): string {
  return `:double_vertical_bar: Your daily report of *${escapeMrkdwn(schedule.zoneName)}* for <#${schedule.channelId}> is paused. ${reason}`;
}

export function scheduleStoppedMessage(schedule: Schedule) {
  return noticeMessage(
    `Daily report \`${shortId(schedule)}\` of *${escapeMrkdwn(schedule.zoneName)}* stopped.`,
    ':white_check_mark:',
  );
}
