// Daily report schedules as users see them: confirmation, the list, and the Stop buttons' ids.
import type { KnownBlock } from '@slack/types';
import type { Schedule } from '../store/schedules.js';
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
