// /cdn report <zone> daily [HH:MM] [#channel] · /cdn report list · /cdn report stop <id>
import { noticeMessage } from '../../blocks/errors.js';
import {
  scheduledMessage,
  scheduleListMessage,
  scheduleStoppedMessage,
} from '../../blocks/reports.js';
import { code, md } from '../../blocks/text.js';
import { parseTimeOfDay } from '../../services/reports/report-times.js';
import { accountWords } from './account-words.js';
import type { SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn report <zone> daily [HH:MM] [#channel]`, `/cdn report list`, `/cdn report stop <id>`';

export const report: SubcommandHandler = async (context) => {
  const { deps, caller, command, respond } = context;
  const { args, account } = accountWords(context);
  // The options are read from the tokens: an `account:<name>` among them is not one.
  const tokens = context.tokens.filter((token) => !/^account:/i.test(token.text));
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
  if (rest[0]?.toLowerCase() !== 'daily') {
    await respond(noticeMessage(USAGE));
    return;
  }
  let timeOfDay = '09:00';
  let channelId = command.channel_id;
  // A channel is read from its mention (`<#C123|ops>`): Slack sends its id only when linked.
  for (const option of tokens.slice(2)) {
    const time = parseTimeOfDay(option.text);
    if (time) timeOfDay = time;
    else if (option.kind === 'channel') channelId = option.id;
    else {
      await respond(
        noticeMessage(md`${code(option.text)} is not a time (HH:MM) or a #channel. ${USAGE}`),
      );
      return;
    }
  }
  const { schedule, created } = await deps.schedules.create(caller, {
    zone: first,
    channelId,
    timeOfDay,
    ...(account === undefined ? {} : { account }),
  });
  await respond(scheduledMessage(schedule, created));
};
