// A purge held because the zone named does not serve some of its URLs: each refused with the zone
// that serves it, and the rest purged only on the requester's word (a message, or the form's modal).
import type { KnownBlock, ModalView } from '@slack/types';
import type { HeldPurge } from '../services/purge/purge-holds.js';
import type { ElsewhereUrl } from '../services/purge/purge-targets.js';
import { zoneLabel } from '../zone-names.js';
import { summarise } from './fit.js';
import { PURGE_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { code, type Mrkdwn, md, mrkdwn, plain, truncate } from './text.js';

const SHOWN = 15;

const items = (count: number) => `${count.toLocaleString('en')} other${count === 1 ? '' : 's'}`;

/** "Purge the 2 others": the confirming button's (or submit's) label. */
const purgeLabel = (held: HeldPurge) => `Purge the ${items(held.count)}`;

/** One line per URL set aside, naming the zone that serves it, or saying no zone does. */
function elsewhereLines(urls: readonly ElsewhereUrl[]): Mrkdwn {
  return summarise(urls, SHOWN, (url) =>
    url.servedBy
      ? md`• ${code(truncate(url.item, 200))}: served by the zone *${truncate(zoneLabel(url.servedBy), 200)}*`
      : md`• ${code(truncate(url.item, 200))}: no zone of this workspace serves ${code(truncate(url.host, 200))}`,
  );
}

function headline(held: HeldPurge): Mrkdwn {
  const n = held.elsewhere.length;
  return md`${n.toLocaleString('en')} URL${n === 1 ? ' is' : 's are'} not served by *${zoneLabel(held.zoneName)}* and ${n === 1 ? 'was' : 'were'} refused. Nothing was purged yet.`;
}

/** The requester's question: purge the rest on the zone named, or nothing. */
export function purgeHoldMessage(held: HeldPurge): Message {
  const blocks: KnownBlock[] = [
    { type: 'section', text: mrkdwn(md`:warning: ${headline(held)}`) },
    { type: 'section', text: mrkdwn(elsewhereLines(held.elsewhere)) },
    {
      type: 'actions',
      block_id: PURGE_IDS.holdActions,
      elements: [
        {
          type: 'button',
          text: plain(purgeLabel(held), 75),
          action_id: PURGE_IDS.holdConfirm,
          value: held.id,
          style: 'primary',
        },
        {
          type: 'button',
          text: plain('Cancel'),
          action_id: PURGE_IDS.holdCancel,
          value: held.id,
        },
      ],
    },
  ];
  const n = held.elsewhere.length;
  return message(
    md`${purgeLabel(held)} on ${zoneLabel(held.zoneName)}? ${n.toLocaleString('en')} URL${n === 1 ? ' was' : 's were'} refused.`,
    blocks,
  );
}

/** The same question in the purge form: submitting purges the rest, closing purges nothing. */
export function purgeHoldModal(held: HeldPurge, metadata: string): ModalView {
  return {
    type: 'modal',
    callback_id: PURGE_IDS.holdCallback,
    title: plain('Purge the others?'),
    submit: plain(truncate(purgeLabel(held), 24)),
    close: plain('Cancel'),
    private_metadata: metadata,
    blocks: [
      { type: 'section', text: mrkdwn(md`:warning: ${headline(held)}`) },
      { type: 'section', text: mrkdwn(elsewhereLines(held.elsewhere)) },
      {
        type: 'context',
        elements: [
          mrkdwn(
            md`${purgeLabel(held)} on *${zoneLabel(held.zoneName)}*, or Cancel to purge nothing.`,
          ),
        ],
      },
    ],
  };
}

/** What the question becomes once answered. */
export function purgeHoldDecidedMessage(
  held: HeldPurge,
  decision: 'confirmed' | 'cancelled',
): Message {
  const text =
    decision === 'confirmed'
      ? md`:broom: Purging the ${items(held.count)} on *${zoneLabel(held.zoneName)}*; the ${held.elsewhere.length.toLocaleString('en')} refused ${held.elsewhere.length === 1 ? 'is' : 'are'} left out.`
      : md`Cancelled: nothing was purged.`;
  return message(text, [{ type: 'section', text: mrkdwn(text) }]);
}
