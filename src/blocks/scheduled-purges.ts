// Scheduled purges as people see them: the confirmation (with the time in the requester's zone,
// named, and in UTC), the list with a Cancel button each, the cancellation, and why one did not run.
import type { KnownBlock } from '@slack/types';
import type { Problem } from '../errors.js';
import type { ScheduledPurge } from '../services/purge/scheduled-purges.js';
import { zoneLabel } from '../zone-names.js';
import { actorLabel } from './actors.js';
import { headedList } from './fit.js';
import { SCHEDULED_PURGE_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { problemText } from './problems.js';
import { channel, clip, code, MAX_SENTENCE, type Mrkdwn, md, mrkdwn, plain, user } from './text.js';

/** How many zones a purge's line names (the rest counted). */
const ZONES_NAMED = 3;
/** How many purges a list shows, each with its button (Slack takes 50 blocks). */
const SHOWN = 20;

/** "3 URLs and 1 tag on *example.com*", or "everything on *example.com*". */
function whatOf(purge: ScheduledPurge): Mrkdwn {
  const named = purge.zoneNames.slice(0, ZONES_NAMED).map((name) => zoneLabel(name).slice(0, 253));
  const more = purge.zoneNames.length - named.length;
  const zones = `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  if (purge.everything) return md`everything on *${zones}*`;
  const parts = [
    ...(purge.files > 0 ? [`${purge.files} URL${purge.files === 1 ? '' : 's'}`] : []),
    ...(purge.tags > 0 ? [`${purge.tags} tag${purge.tags === 1 ? '' : 's'}`] : []),
  ];
  return md`${parts.join(' and ')} on *${zones}*`;
}

/** "2026-12-03 02:00 Europe/Paris (01:00 UTC)": the zone said, whatever it is. */
export function dueText(purge: ScheduledPurge): Mrkdwn {
  const utc = new Date(purge.dueAt).toISOString().slice(0, 16).replace('T', ' ');
  return purge.timeZone === 'UTC'
    ? md`${purge.localTime} UTC`
    : md`${purge.localTime} ${purge.timeZone} (${utc} UTC)`;
}

function cancelButton(purge: ScheduledPurge, index = 0) {
  return {
    type: 'button' as const,
    text: plain('Cancel'),
    action_id: `${SCHEDULED_PURGE_IDS.cancel}_${index}`,
    value: purge.id,
  };
}

/** One purge waiting for its time: its short id, what, when, who asked, where. */
export function scheduledPurgeLine(purge: ScheduledPurge): Mrkdwn {
  const where = purge.channelId ? md` in ${channel(purge.channelId)}` : '';
  return clip(
    md`${code(purge.shortId)} ${whatOf(purge)} at ${dueText(purge)}, by ${actorLabel(purge.requesterId)}${where}`,
    MAX_SENTENCE,
  );
}

/** The purge just scheduled; for everything, its request waits for a second person. */
export function scheduledPurgeMessage(purge: ScheduledPurge): Message {
  const approval = purge.everything
    ? md` It needs a second person's approval before then (the request is posted in the channel); unapproved at its time, it does not run.`
    : '';
  const text = md`:calendar: Scheduled: purge ${whatOf(purge)} at ${dueText(purge)}.${approval} It is checked again when it runs. Cancel it here or with ${code(`/cdn purge cancel ${purge.shortId}`)}; ${code('/cdn purge scheduled')} lists them.`;
  return message(md`Purge scheduled for ${dueText(purge)}`, [
    { type: 'section', text: mrkdwn(text), accessory: cancelButton(purge) },
  ]);
}

/** The purges waiting for their time that the reader may see, and how many others there are. */
export function scheduledPurgeListMessage(listing: {
  shown: ScheduledPurge[];
  hidden: number;
}): Message {
  const { shown, hidden } = listing;
  const blocks: KnownBlock[] = headedList('Scheduled purges', {
    items: shown,
    shown: SHOWN,
    render: (purge, index) => ({
      type: 'section',
      text: mrkdwn(scheduledPurgeLine(purge)),
      accessory: cancelButton(purge, index),
    }),
    none: {
      type: 'section',
      text: mrkdwn(md`None. Add \`at 02:00\` or \`in 30m\` to a \`/cdn purge\` to schedule one.`),
    },
    hidden,
  });
  return message(md`${shown.length} scheduled purge${shown.length === 1 ? '' : 's'}`, blocks);
}

export function scheduledPurgeCancelledMessage(purge: ScheduledPurge, by: string): Message {
  const text = md`:heavy_multiplication_x: Cancelled by ${user(by)}: the purge of ${whatOf(purge)} at ${dueText(purge)}. Nothing will be purged.`;
  return message(md`Scheduled purge cancelled`, [{ type: 'section', text: mrkdwn(text) }]);
}

/** Said to the requester when their purge came due and was refused. */
export function scheduledPurgeSkippedMessage(purge: ScheduledPurge, problem: Problem): Message {
  const text = md`:no_entry_sign: Your scheduled purge of ${whatOf(purge)} (${dueText(purge)}) did not run. ${problemText(problem)}`;
  return message(md`Your scheduled purge did not run`, [{ type: 'section', text: mrkdwn(text) }]);
}
