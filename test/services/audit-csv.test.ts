// The audit export's CSV: RFC 4180 quoting, formula injection neutralised, header, UTC times.
import { describe, expect, it } from 'vitest';
import {
  AUDIT_CSV_HEADER,
  auditCsvHeader,
  auditCsvRow,
  csvCell,
} from '../../src/services/audit-csv.js';

describe('audit CSV', () => {
  it('quotes commas, quotes and line breaks (RFC 4180), and nothing else', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\r\nlf')).toBe('"cr\r\nlf"');
  });

  it('neutralises cells a spreadsheet would run as a formula', () => {
    for (const evil of ['=1+1', '+1', '-1', '@SUM(A1)', '\t=x', '\r=x'])
      expect(csvCell(evil).startsWith("'") || csvCell(evil).startsWith(`"'`)).toBe(true);
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvCell('a=b')).toBe('a=b');
  });

  it('has a header row and one row an entry, times in ISO 8601 UTC, rows ended by CRLF', () => {
    expect(auditCsvHeader()).toBe(`${AUDIT_CSV_HEADER.join(',')}\r\n`);
    const row = auditCsvRow({
      id: 7,
      workspaceId: 'T1',
      actorId: 'UBOB',
      action: 'purge.everything.requested',
      zoneId: 'zone_a',
      zoneName: 'a.example.com',
      outcome: 'ok',
      detail: { reason: '=cmd|" /C calc"!A0, then more' },
      at: Date.UTC(2026, 10, 20, 23, 30),
    });
    expect(row).toBe(
      '7,2026-11-20T23:30:00.000Z,UBOB,purge.everything.requested,purge-everything,zone_a,a.example.com,ok,,' +
        '"{""reason"":""=cmd|\\"" /C calc\\""!A0, then more""}",default\r\n',
    );
    const withheld = auditCsvRow({
      id: 8,
      workspaceId: 'T1',
      actorId: 'token:deploy',
      action: 'ratelimit.on',
      zoneId: null,
      zoneName: null,
      outcome: 'ok',
      detail: null,
      at: 0,
      withheld: true,
    });
    expect(withheld).toBe(
      '8,1970-01-01T00:00:00.000Z,token:deploy,ratelimit.on,ratelimit,,,ok,yes,,\r\n',
    );
  });

  it('names each entry’s CDN account: by name, by id once removed, `default` for a zone naming none', () => {
    const entry = {
      id: 9,
      workspaceId: 'T1',
      actorId: 'U1',
      action: 'purge.urls',
      zoneId: 'zone_s',
      zoneName: 'example.com',
      outcome: 'ok',
      detail: null,
      at: 0,
    };
    const cells = (row: string) => row.trimEnd().split(',');
    expect(
      cells(auditCsvRow({ ...entry, accountId: 'acc_1', accountName: 'staging' })).at(-1),
    ).toBe('staging');
    expect(cells(auditCsvRow({ ...entry, accountId: 'acc_gone' })).at(-1)).toBe('acc_gone');
    expect(cells(auditCsvRow(entry)).at(-1)).toBe('default');
    expect(cells(auditCsvRow({ ...entry, zoneId: null, zoneName: null })).at(-1)).toBe('');
  });
});
