// Daily report schedules as users see them: confirmation, the list, and the Stop buttons' ids.
import { formatBytes, formatCount, formatPercent } from '../charts/format.js';
import type { DailyReport } from '../services/reports/daily-report.js';
import type { Schedule } from '../store/schedules.js';
import { zoneLabel } from '../zone-names.js';
import { noticeMessage } from './errors.js';
import { headedList } from './fit.js';
import { NO_KEY_REASON } from './logout.js';
import { type Message, message } from './message.js';
import { channel, clip, code, MAX_SENTENCE, type Mrkdwn, md, mrkdwn, slackDate } from './text.js';

/** Schedules are named by the first characters of their id. */
export const shortId = (schedule: Pick<Schedule, 'id'>) => schedule.id.slice(0, 8);

/** How many schedules a list shows. */
const SHOWN = 45;

/**
 * A report's line: where and when, and its next time, or why it is paused (its own reason, or its
 * CDN account has no key: its own `keyed`, else `keySet`, the login account's key).
 */
export function scheduleLine(schedule: Schedule & { keyed?: boolean }, keySet = true): Mrkdwn {
  const state =
    schedule.status === 'paused'
      ? md` · :double_vertical_bar: paused: ${schedule.pausedReason ?? ''}`
      : (schedule.keyed ?? keySet)
        ? md` · next ${slackDate(schedule.nextRunAt)}`
        : md` · :double_vertical_bar: paused: ${NO_KEY_REASON}`;
  return clip(
    md`${code(shortId(schedule))} *${zoneLabel(schedule.zoneName)}* → ${channel(schedule.channelId)} daily at ${schedule.timeOfDay} (${schedule.timeZone})${state}`,
    MAX_SENTENCE,
  );
}

/** The new schedule; or (`created` false) the same report, which already existed. */
export function scheduledMessage(schedule: Schedule, created = true): Message {
  const text = created
    ? md`:calendar: Daily traffic report of *${zoneLabel(schedule.zoneName)}* scheduled: ${channel(schedule.channelId)} at ${schedule.timeOfDay} ${schedule.timeZone}, first one ${slackDate(schedule.nextRunAt)}. Stop it with \`/cdn report stop ${shortId(schedule)}\`.`
    : md`:calendar: That report exists already: *${zoneLabel(schedule.zoneName)}* in ${channel(schedule.channelId)} at ${schedule.timeOfDay} ${schedule.timeZone}, id ${code(shortId(schedule))}. Nothing new was scheduled.`;
  return message(
    md`Daily report of ${zoneLabel(schedule.zoneName)} ${created ? 'scheduled' : 'exists already'}`,
    [{ type: 'section', text: mrkdwn(text) }],
  );
}

/**
 * The reports the reader may see, whether the workspace has a key (none: they wait for one), and
 * (`hidden`) how many others are in conversations the reader is not in.
 */
export function scheduleListMessage(listing: {
  schedules: Array<Schedule & { keyed?: boolean }>;
  keySet: boolean;
  hidden?: number;
}): Message {
  const { schedules, keySet, hidden = 0 } = listing;
  const blocks = headedList('Daily reports', {
    items: schedules,
    shown: SHOWN,
    render: (schedule) => ({ type: 'section', text: mrkdwn(scheduleLine(schedule, keySet)) }),
    none: {
      type: 'section',
      text: mrkdwn(
        md`None yet. Schedule one with \`/cdn report <zone> daily [HH:MM] [#channel]\`.`,
      ),
    },
    hidden,
  });
  return message(md`${schedules.length} daily report${schedules.length === 1 ? '' : 's'}`, blocks);
}

/** "+12.3 %", "−4.0 %", or "new" when there is nothing to compare with. */
export function delta(now: number, before: number): string {
  if (before === 0) return now === 0 ? '±0 %' : 'new';
  const change = ((now - before) / before) * 100;
  const sign = change > 0.05 ? '+' : change < -0.05 ? '−' : '±';
  return `${sign}${Math.abs(change).toFixed(1)} %`;
}

/** A creator's name as a report shows it: Slack allows 80 characters (display names). */
const MAX_CREATOR_NAME = 80;

/**
 * A daily report's message: readable without the chart, and in notifications. The creator is
 * named as plain text (`creatorName`, as Slack shows them; a member when unknown), never
 * mentioned: a mention in an app's message notifies the person mentioned
 * (https://docs.slack.dev/messaging/formatting-message-text/#mentioning-users), every day here.
 */
export function dailyReportText(report: DailyReport, creatorName?: string): Mrkdwn {
  const y = report.yesterday;
  const b = report.dayBefore;
  const points = (y.cacheHitRate - b.cacheHitRate) * 100;
  const sign = Number(points.toFixed(1)) >= 0 ? '+' : '−';
  return clip(
    md`:sunrise: *${zoneLabel(report.zoneName)}* · ${report.dayLabel} (${report.timeZone})
*${formatCount(y.requests)}* requests (${delta(y.requests, b.requests)} on the day before) · *${formatBytes(y.bandwidth)}* (${delta(y.bandwidth, b.bandwidth)}) · cache hit rate *${formatPercent(y.cacheHitRate)}* (${sign}${Math.abs(points).toFixed(1)} pts)
_Report set up by ${creatorName ? clip(md`${creatorName}`, MAX_CREATOR_NAME) : 'a workspace member'}._`,
    MAX_SENTENCE,
  );
}

/** The DM to a schedule's creator when it pauses; the reason is literal text (as stored). */
export function reportPausedText(schedule: Schedule, reason: string): Mrkdwn {
  return md`:double_vertical_bar: Your daily report of *${zoneLabel(schedule.zoneName)}* for ${channel(schedule.channelId)} is paused. ${reason}`;
}

export function scheduleStoppedMessage(schedule: Schedule) {
  return noticeMessage(
    md`Daily report ${code(shortId(schedule))} of *${zoneLabel(schedule.zoneName)}* stopped.`,
    ':white_check_mark:',
  );
}
