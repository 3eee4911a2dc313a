// /cdn audit [zone]: the latest changes made from Slack.
import type { KnownBlock } from '@slack/types';
import type { AuditEntry } from '../store/audit-log.js';
import type { Message } from './message.js';
import { code, escapeMrkdwn, mrkdwn, plain, slackDate, truncate, user } from './text.js';

function summary(entry: AuditEntry): string {
  const detail = entry.detail ?? {};
  const facts: string[] = [];
  for (const key of ['files', 'tags', 'failed', 'purgeId', 'reason', 'note', 'error']) {
    const value = detail[key];
    if (value !== undefined && value !== null && value !== 0)
      facts.push(`${key}: ${escapeMrkdwn(truncate(String(value), 120))}`);
  }
  const ids =
    Array.isArray(detail.purgeIds) && detail.purgeIds.length > 0
      ? `purge ids: ${detail.purgeIds.slice(0, 3).map(String).map(code).join(', ')}`
      : '';
  return [...facts, ids].filter(Boolean).join(' · ');
}

export function auditMessage(entries: AuditEntry[], zone?: string): Message {
  const title = zone ? `Audit log: ${zone}` : 'Audit log';
  const blocks: KnownBlock[] = [{ type: 'header', text: plain(truncate(title, 150)) }];
  if (entries.length === 0)
    blocks.push({ type: 'section', text: mrkdwn('No changes recorded yet.') });
  for (const entry of entries.slice(0, 20)) {
    const where = entry.zoneName ? ` on *${escapeMrkdwn(entry.zoneName)}*` : '';
    const extra = summary(entry);
    blocks.push({
      type: 'section',
      text: mrkdwn(
        truncate(
          `${slackDate(entry.at)} · ${entry.actorId === 'system' ? '_automatic_' : user(entry.actorId)} · ${code(entry.action)}${where} · ${escapeMrkdwn(entry.outcome)}${extra ? `\n${extra}` : ''}`,
          3000,
        ),
      ),
    });
  }
  return {
    text: `${escapeMrkdwn(title)}: ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`,
    blocks,
  };
}
