// /cdn report <zone> daily [HH:MM] [#channel] · /cdn report list · /cdn report stop <id>
import { noticeMessage } from '../../blocks/errors.js';
import { scheduledMessage, scheduleListMessage, shortId } from '../../blocks/reports.js';
import { code } from '../../blocks/text.js';
import { safeTimeZone } from '../../charts/format.js';
import { AppError } from '../../errors.js';
import { nextOccurrence, parseTimeOfDay } from '../../services/report-times.js';
import { webDirectory } from '../../slack/directory.js';
import { requireOperatorIn, type SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn report <zone> daily [HH:MM] [#channel]`, `/cdn report list`, `/cdn report stop <id>`';

/** A channel as Slack escapes it in command text: `<#C123|name>` or `<#C123>`. */
function channelOf(token: string): string | undefined {
  return /^<#([A-Z0-9]+)(?:\|[^>]*)?>$/.exec(token)?.[1];
}

export const report: SubcommandHandler = async (context) => {
  const { args, deps, workspaceId, command, respond, client } = context;
  const [first, ...rest] = args;
  if (first === undefined) {
    await respond(noticeMessage(USAGE));
    return;
  }
  await requireOperatorIn(context, command.user_id, 'manage daily reports');
  if (first.toLowerCase() === 'list') {
    await respond(scheduleListMessage(await deps.store.schedules.listForWorkspace(workspaceId)));
    return;
  }
  if (first.toLowerCase() === 'stop') {
    const prefix = (rest[0] ?? '').toLowerCase();
    const matches = (await deps.store.schedules.listForWorkspace(workspaceId)).filter(
      (s) => prefix.length >= 4 && s.id.startsWith(prefix),
    );
    if (matches.length !== 1 || !matches[0]) {
      throw new AppError(
        'invalid_input',
        `No single daily report has the id ${code(prefix)}. \`/cdn report list\` shows them.`,
      );
    }
    await deps.store.schedules.stop(matches[0].id, workspaceId);
    await deps.store.audit.record({
      workspaceId,
      actorId: command.user_id,
      action: 'report.stopped',
      zoneId: matches[0].zoneId,
      zoneName: matches[0].zoneName,
      outcome: 'ok',
      detail: { schedule: matches[0].id },
    });
    await respond(
      noticeMessage(
        `Daily report \`${shortId(matches[0])}\` of *${matches[0].zoneName}* stopped.`,
        ':white_check_mark:',
      ),
    );
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
      await respond(noticeMessage(`${code(option)} is not a time (HH:MM) or a #channel. ${USAGE}`));
      return;
    }
  }
  const zone = await deps.zones.resolve(workspaceId, first);
  // The requester's time zone, as Slack knows it.
  // An unknown zone would make every occurrence unreadable: UTC instead.
  const timeZone = safeTimeZone(
    (await webDirectory(client, workspaceId, deps.groups).user(command.user_id)).timeZone,
  );
  const schedule = await deps.store.schedules.create({
    workspaceId,
    zoneId: zone.id,
    zoneName: zone.name,
    channelId,
    createdBy: command.user_id,
    timeOfDay,
    timeZone,
    nextRunAt: nextOccurrence(timeOfDay, timeZone, deps.clock.now()),
  });
  await deps.store.audit.record({
    workspaceId,
    actorId: command.user_id,
    action: 'report.scheduled',
    zoneId: zone.id,
    zoneName: zone.name,
    outcome: 'ok',
    detail: { schedule: schedule.id, timeOfDay, timeZone, channel: channelId },
  });
  await respond(scheduledMessage(schedule));
};
