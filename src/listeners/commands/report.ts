// /cdn report <zone> daily [HH:MM] [#channel] · /cdn report list · /cdn report stop <id>
import { noticeMessage } from '../../blocks/errors.js';
import {
  scheduledMessage,
  scheduleListMessage,
  scheduleStoppedMessage,
} from '../../blocks/reports.js';
import { code, md } from '../../blocks/text.js';
import { parseTimeOfDay } from '../../services/report-times.js';
import type { SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn report <zone> daily [HH:MM] [#channel]`, `/cdn report list`, `/cdn report stop <id>`';

/** A channel as Slack escapes it in command text: `<#C123|name>` or `<#C123>`. */
function channelOf(token: string): string | undefined {
  return /^<#([A-Z0-9]+)(?:\|[^>]*)?>$/.exec(token)?.[1];
}

export const report: SubcommandHandler = async ({ args, deps, caller, command, respond }) => {
  const [first, ...rest] = args;
  if (first === undefined) {
    await respond(noticeMessage(USAGE));
    return;
  }
  if (first.toLowerCase() === 'list') {
    await respond(scheduleListMessage(await deps.schedules.list(caller)));
    return;
  }
  if (first.toLowerCase() === 'stop') {
    await respond(scheduleStoppedMessage(await deps.schedules.stopByPrefix(caller, rest[0] ?? '')));
    return;
  }
  const [cadence, ...options] = rest;
  if (cadence?.toLowerCase() !== 'daily') {
    await respond(noticeMessage(USAGE));
    return;
  }
  let timeOfDay = '09:00';
  let channelId = command.channel_id;
  for (const option of options) {
    const time = parseTimeOfDay(option);
    const channel = channelOf(option);
    if (time) timeOfDay = time;
    else if (channel) channelId = channel;
    else {
      await respond(
        noticeMessage(md`${code(option)} is not a time (HH:MM) or a #channel. ${USAGE}`),
      );
      return;
    }
  }
  const schedule = await deps.schedules.create(caller, { zone: first, channelId, timeOfDay });
  await respond(scheduledMessage(schedule));
};
