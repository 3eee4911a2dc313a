// A purge whose zone name is in several CDN accounts: one button per account ("… in
// staging"); the requester's click continues the same purge in that account.
import type { KnownBlock } from '@slack/types';
import type { AccountPick } from '../services/accounts/account-picks.js';
import { zoneLabel } from '../zone-names.js';
import { PURGE_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { code, md, mrkdwn, plain, truncate } from './text.js';

/** Slack's limit of elements in one actions block. */
const MAX_BUTTONS = 25;

/** The value a pick button carries: the pick's id and the account's name (a slug: no colon). */
const pickValue = (id: string, account: string) => `${id}:${account}`;

/** The requester's question: which account's zone to purge. */
export function accountPickMessage(pick: AccountPick): Message {
  const zone = zoneLabel(pick.zoneName);
  const shown = pick.accounts.slice(0, MAX_BUTTONS);
  const left = pick.accounts.length - shown.length;
  const question = md`${code(zone)} is in several CDN accounts. Which one do you mean? Nothing was purged yet.`;
  const blocks: KnownBlock[] = [
    { type: 'section', text: mrkdwn(md`:question: ${question}`) },
    {
      type: 'actions',
      block_id: PURGE_IDS.pickActions,
      elements: shown.map((account, index) => ({
        type: 'button' as const,
        text: plain(truncate(`${zone} in ${account}`, 75), 75),
        action_id: `${PURGE_IDS.pickAccount}_${index}`,
        value: pickValue(pick.id, account),
      })),
    },
  ];
  if (left > 0)
    blocks.push({
      type: 'context',
      elements: [
        mrkdwn(md`${left.toLocaleString('en')} more: write ${code(`<account>/${pick.zoneName}`)}.`),
      ],
    });
  return message(question, blocks);
}

/** What the question becomes once answered. */
export function accountPickedMessage(pick: AccountPick, account: string): Message {
  const text = md`Purging on *${zoneLabel(pick.zoneName)}* in the CDN account ${code(account)}.`;
  return message(text, [{ type: 'section', text: mrkdwn(text) }]);
}
