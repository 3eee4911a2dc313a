// The audit export's CSV: one header row, then one row an entry, every cell quoted (RFC 4180, by
// csv-stringify), ISO 8601 UTC times, and nothing a spreadsheet would run as a formula, whatever
// separator it splits on (neutralise: no CSV library guards the pieces of a cell).
import { stringify } from 'csv-stringify/sync';
import { auditKindOf } from '../../audit-kinds.js';
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
 * What a spreadsheet would run as a formula, read from a position: text starting with = + - @, or
 * with a tab or carriage return that some strip first, behind any double quotes (a field that
 * opens with a quote is read as quoted, and the rest of it may follow the closing one).
 */
const FORMULA_START = /"*[=+\-@\t\r]/y;

/**
 * Where a spreadsheet may start a new cell inside one of ours: the comma, the semicolon most of
 * Europe's Excel splits on, the tab, and a line break (a new row for a reader that misreads the
 * quoting).
 */
const PIECE_BREAK = /[,;\t\r\n]/g;

/** Whether the text at `at` starts as a formula. */
function formulaAt(cell: string, at: number): boolean {
  FORMULA_START.lastIndex = at;
  return FORMULA_START.test(cell);
}

/**
 * The cell with a leading apostrophe (OWASP, "CSV Injection") on itself and on every piece after a
 * PIECE_BREAK that starts as a formula: `x;=1+cmd` becomes `x;'=1+cmd`, so a spreadsheet that
 * splits on `;` or tab sees text there too. Anything else is left as it was.
 */
export function neutralise(cell: string): string {
  let out = formulaAt(cell, 0) ? "'" : '';
  let from = 0;
  for (const found of cell.matchAll(PIECE_BREAK)) {
    const at = found.index + 1;
    if (!formulaAt(cell, at)) continue;
    out += `${cell.slice(from, at)}'`;
    from = at;
  }
  return out + cell.slice(from);
}

/** Every cell quoted, empty ones too, its quotes doubled; each record ended by CRLF (RFC 4180). */
const RFC_4180 = { quoted: true, quoted_empty: true, record_delimiter: 'windows' } as const;

/** One cell as a record holds it: neutralised, quoted, its quotes doubled. */
export function csvCell(value: string): string {
  return csvRow([value]).slice(0, -2);
}

/** One record of neutralised cells. */
export function csvRow(cells: readonly string[]): string {
  return stringify([cells.map(neutralise)], RFC_4180);
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
 * The entry's CDN account: its name; the id of one removed since (the audit outlives it); empty
 * for a workspace-wide change (a setting, a role).
 */
function accountCell(entry: VisibleAuditEntry): string {
  return entry.accountName ?? entry.accountId ?? '';
}
