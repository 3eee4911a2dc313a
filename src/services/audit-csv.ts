// The audit export's CSV: one header row, then one row an entry, RFC 4180 quoting, ISO 8601 UTC
// times, and no cell a spreadsheet would run as a formula.
import { auditKindOf } from '../audit-kinds.js';
import { DEFAULT_ACCOUNT } from '../store/accounts.js';
import type { VisibleAuditEntry } from './activity.js';

export const AUDIT_CSV_HEADER = [
  'id',
  'time_utc',
  'actor',
  'action',
  'kind',
  'zone_id',
  'zone_name',
  'outcome',
  'withheld',
  'detail',
  'account',
] as const;

/**
 * A cell that a spreadsheet would read as a formula (it starts with = + - @, or a tab or carriage
 * return that some strip first) gets a leading apostrophe (OWASP, "CSV Injection").
 */
export function neutralise(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}

/** One cell, quoted when it holds a comma, a quote or a line break (RFC 4180, 2.6 and 2.7). */
export function csvCell(value: string): string {
  const cell = neutralise(value);
  return /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/** One record, ended by CRLF (RFC 4180, 2.1). */
export function csvRow(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export function auditCsvHeader(): string {
  return csvRow(AUDIT_CSV_HEADER);
}

export function auditCsvRow(entry: VisibleAuditEntry): string {
  return csvRow([
    String(entry.id),
    new Date(entry.at).toISOString(),
    entry.actorId,
    entry.action,
    auditKindOf(entry.action) ?? '',
    entry.zoneId ?? '',
    entry.zoneName ?? '',
    entry.outcome,
    entry.withheld ? 'yes' : '',
    entry.detail && Object.keys(entry.detail).length > 0 ? JSON.stringify(entry.detail) : '',
    accountCell(entry),
  ]);
}

/**
 * The entry's CDN account (issue 29): its name; the id of one removed since (the audit outlives
 * it); `default` for a zone's entry that names none (written before accounts, or by `default`);
 * empty for a workspace-wide change (a setting, a role).
 */
function accountCell(entry: VisibleAuditEntry): string {
  if (entry.accountName !== undefined) return entry.accountName;
  if (entry.accountId !== undefined) return entry.accountId;
  return entry.zoneId ? DEFAULT_ACCOUNT : '';
}
