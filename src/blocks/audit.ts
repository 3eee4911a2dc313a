// /cdn audit [filters]: the changes made from Slack, a page at a time, and the export's notices.
import type { KnownBlock } from '@slack/types';
import { TOKEN_ACTOR_PREFIX } from '../audit-kinds.js';
import type {
  AuditPage,
  AuditPageAt,
  AuditQuery,
  VisibleAuditEntry,
} from '../services/audit/activity.js';
import type { AuditEntry } from '../store/audit-log.js';
import { zoneLabel } from '../zone-names.js';
import { actorLabel, tokenLabel } from './actors.js';
import { AUDIT_IDS } from './ids.js';
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

function summary(entry: VisibleAuditEntry): Mrkdwn {
  const detail = entry.detail ?? {};
  const facts: Mrkdwn[] = [];
  for (const key of [
    'files',
    'tags',
    'failed',
    'unconfirmed',
    'purgeId',
    'reason',
    'note',
    'error',
  ]) {
    const value = detail[key];
    if (value !== undefined && value !== null && value !== 0)
      facts.push(md`${key}: ${truncate(String(value), 120)}`);
  }
  if (Array.isArray(detail.purgeIds) && detail.purgeIds.length > 0)
    facts.push(md`purge ids: ${join(detail.purgeIds.slice(0, 3).map(String).map(code), ', ')}`);
  if (entry.withheld) facts.push(md`_details withheld: from a conversation you are not in_`);
  return join(facts, ' · ');
}

/** Who did it: a person, a CI token (`token:<name>`, with its CI's actor), or the bot itself. */
const actor = (entry: AuditEntry): Mrkdwn => {
  const ci = entry.detail?.actor;
  return entry.actorId.startsWith(TOKEN_ACTOR_PREFIX) && typeof ci === 'string'
    ? tokenLabel(entry.actorId.slice(TOKEN_ACTOR_PREFIX.length), ci)
    : actorLabel(entry.actorId);
};

/** One entry on one line: when, who, what, where, how it ended. */
export function auditLine(entry: AuditEntry & { accountName?: string }): Mrkdwn {
  // The account is named when the workspace has several (ActivityService.search sets it).
  const account = entry.accountName ? md` in ${code(entry.accountName)}` : '';
  const where = entry.zoneName ? md` on *${zoneLabel(entry.zoneName)}*${account}` : account;
  return clip(
    md`${slackDate(entry.at)} · ${actor(entry)} · ${code(entry.action)}${where} · ${entry.outcome}`,
    MAX_SENTENCE,
  );
}

/** What a pager button carries: the filters and where its page starts, so no state is kept. */
export interface AuditPagerValue {
  q: AuditQuery;
  at: AuditPageAt;
}

/** The filters in words, for the header and the export's notices. */
function auditFilterWords(query: AuditQuery): string {
  const actor = query.actor;
  return [
    query.account === undefined
      ? query.zone
      : query.zone === undefined
        ? `account:${query.account}`
        : `${query.account}/${query.zone}`,
    actor?.kind === 'token'
      ? `token:${actor.name}`
      : actor?.kind === 'name'
        ? `@${actor.name}`
        : undefined,
    query.kind ? `kind:${query.kind}` : undefined,
    query.since ? `since ${query.since}` : undefined,
    query.until ? `until ${query.until}` : undefined,
  ]
    .filter((word): word is string => word !== undefined)
    .join(' · ');
}

function pagerButton(id: string, label: string, value: AuditPagerValue) {
  return {
    type: 'button' as const,
    text: plain(label),
    action_id: id,
    value: JSON.stringify(value),
  };
}

/** One page of a search, with Previous/Next buttons that keep its filters. */
export function auditPageMessage(page: AuditPage, query: AuditQuery): Message {
  const words = auditFilterWords(query);
  const person = query.actor?.kind === 'user' ? md` by ${user(query.actor.userId)}` : '';
  const title = words ? `Audit log · ${words}` : 'Audit log';
  const blocks: KnownBlock[] = [{ type: 'header', text: plain(title, 150) }];
  if (person || query.since || query.until)
    blocks.push({
      type: 'context',
      elements: [
        mrkdwn(
          md`Changes${person}${query.since || query.until ? md`, dates in ${page.timeZone}` : ''}.`,
        ),
      ],
    });
  if (page.entries.length === 0)
    blocks.push({ type: 'section', text: mrkdwn(md`No changes match.`) });
  for (const entry of page.entries) {
    const extra = summary(entry);
    blocks.push({
      type: 'section',
      text: mrkdwn(extra.text ? md`${auditLine(entry)}\n${extra}` : auditLine(entry)),
    });
  }
  const first = page.entries[0];
  const last = page.entries.at(-1);
  const buttons = [
    ...(page.hasPrevious && first
      ? [
          pagerButton(AUDIT_IDS.previous, 'Previous', {
            q: query,
            at: { before: { at: first.at, id: first.id } },
          }),
        ]
      : []),
    ...(page.hasNext && last
      ? [
          pagerButton(AUDIT_IDS.next, 'Next', {
            q: query,
            at: { after: { at: last.at, id: last.id } },
          }),
        ]
      : []),
  ];
  // A button's value holds at most 2,000 characters: a query too long for it gets no pager.
  if (buttons.length > 0 && buttons.every((b) => b.value.length <= 2000))
    blocks.push({ type: 'actions', block_id: AUDIT_IDS.pagerBlock, elements: buttons });
  return message(
    md`${title}: ${page.entries.length} entr${page.entries.length === 1 ? 'y' : 'ies'}`,
    blocks,
  );
}

/** The export was asked for: it is made in the background and arrives as a file. */
export function auditExportStartedText(query: AuditQuery): Mrkdwn {
  const words = auditFilterWords(query);
  return md`:hourglass_flowing_sand: Making your audit export${words ? md` (${words})` : ''}. The CSV file arrives in your DM with me; I'll say there when it is done.`;
}

/** The export's file is shared: its comment. */
export function auditExportDoneText(rows: number, query: AuditQuery): Mrkdwn {
  const words = auditFilterWords(query);
  return md`:white_check_mark: Your audit export${words ? md` (${words})` : ''}: ${rows.toLocaleString('en')} entr${rows === 1 ? 'y' : 'ies'}, times in UTC.`;
}

/** The export failed for good. */
export function auditExportFailedText(reason: string): Mrkdwn {
  return md`:x: Your audit export could not be made: ${truncate(reason, 300)}. Try again later.`;
}

/** The export was not made: the requester may no longer read the audit log (`reason`). */
export function auditExportRefusedText(reason: string): Mrkdwn {
  return md`:no_entry_sign: Your audit export was not made: ${truncate(reason, 300)}`;
}
