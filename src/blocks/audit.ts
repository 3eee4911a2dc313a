// /cdn audit [zone]: the latest changes made from Slack.
import type { KnownBlock } from '@slack/types';
import type { VisibleAuditEntry } from '../services/activity.js';
import type { AuditEntry } from '../store/audit-log.js';
import { zoneLabel } from '../zone-names.js';
import { listBlocks } from './fit.js';
import { type Message, message } from './message.js';
import {
  clip,
  code,
  join,
  MAX_SENTENCE,
  type Mrkdwn,
  md,
  mrkdwn,
  plain,
  slackDate,
  truncate,
  user,
} from './text.js';

/** How many entries a message shows. */
const SHOWN = 20;

function summary(entry: VisibleAuditEntry): Mrkdwn {
  const detail = entry.detail ?? {};
  const facts: Mrkdwn[] = [];
  for (const key of ['files', 'tags', 'failed', 'purgeId', 'reason', 'note', 'error']) {
    const value = detail[key];
    if (value !== undefined && value !== null && value !== 0)
      facts.push(md`${key}: ${truncate(String(value), 120)}`);
  }
  if (Array.isArray(detail.purgeIds) && detail.purgeIds.length > 0)
    facts.push(md`purge ids: ${join(detail.purgeIds.slice(0, 3).map(String).map(code), ', ')}`);
  if (entry.withheld) facts.push(md`_details withheld: from a conversation you are not in_`);
  return join(facts, ' · ');
}

/** Who did it: a person, or the bot itself. */
const actor = (id: string): Mrkdwn => (id === 'system' ? md`_automatic_` : user(id));

/** One entry on one line: when, who, what, where, how it ended. */
export function auditLine(entry: AuditEntry): Mrkdwn {
  const where = entry.zoneName ? md` on *${zoneLabel(entry.zoneName)}*` : '';
  return clip(
    md`${slackDate(entry.at)} · ${actor(entry.actorId)} · ${code(entry.action)}${where} · ${entry.outcome}`,
    MAX_SENTENCE,
  );
}

export function auditMessage(entries: VisibleAuditEntry[], zone?: string): Message {
  const title = zone ? `Audit log: ${zone}` : 'Audit log';
  const blocks: KnownBlock[] = [{ type: 'header', text: plain(title, 150) }];
  if (entries.length === 0)
    blocks.push({ type: 'section', text: mrkdwn(md`No changes recorded yet.`) });
  blocks.push(
    ...listBlocks(entries, SHOWN, (entry) => {
      const extra = summary(entry);
      return {
        type: 'section',
        text: mrkdwn(extra.text ? md`${auditLine(entry)}\n${extra}` : auditLine(entry)),
      };
    }),
  );
  return message(md`${title}: ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`, blocks);
}
