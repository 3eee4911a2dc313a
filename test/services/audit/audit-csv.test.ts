// The audit export's CSV: every cell quoted (RFC 4180), formula injection neutralised in every cell
// and every piece a spreadsheet may split one into, header, UTC times.
import { describe, expect, it } from 'vitest';
import {
  AUDIT_CSV_HEADER,
  auditCsvHeader,
  auditCsvRow,
  csvCell,
  csvRow,
  neutralise,
} from '../../../src/services/audit/audit-csv.js';
import { anyText, fc, RUNS } from '../../helpers/property.js';

/** RFC 4180 read back, as the export writes it: every cell quoted, quotes doubled, CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '"') throw new Error(`unquoted cell at ${i}: ${JSON.stringify(text.slice(i))}`);
    let cell = '';
    for (i++; ; i++) {
      if (i >= text.length) throw new Error('unterminated cell');
      if (text[i] === '"') {
        if (text[i + 1] !== '"') break;
        i++;
      }
      cell += text[i];
    }
    row.push(cell);
    i++;
    if (text[i] === ',') i++;
    else if (text.startsWith('\r\n', i)) {
      rows.push(row);
      row = [];
      i += 2;
    } else throw new Error(`no separator at ${i}`);
  }
  return rows;
}

/** What a spreadsheet would run as a formula, behind any double quotes. */
const FORMULA = /^"*[=+\-@\t\r]/;

/**
 * Whether `text`, or any piece of it between `,` `;` or tab (or also a line break), starts as a
 * formula.
 */
const formulaPiece = (text: string) =>
  [/[,;\t]/, /[,;\t\r\n]/].some((breaks) =>
    text.split(breaks).some((piece) => FORMULA.test(piece)),
  );

describe('audit CSV', () => {
  it('quotes every cell, its quotes doubled (RFC 4180)', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('')).toBe('""');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\r\nlf')).toBe('"cr\r\nlf"');
  });

  it('neutralises cells a spreadsheet would run as a formula', () => {
    for (const evil of ['=1+1', '+1', '-1', '@SUM(A1)', '\t=x', '\r=x'])
      expect(csvCell(evil).startsWith(`"'`)).toBe(true);
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvCell('a=b')).toBe('"a=b"');
  });

  it('neutralises a formula after a `;`, where Excel splits cells in most of Europe', () => {
    expect(csvCell("x;=1+cmd|'/C calc'!A0")).toBe(`"x;'=1+cmd|'/C calc'!A0"`);
    expect(neutralise('a;+1;-2;@x')).toBe("a;'+1;'-2;'@x");
  });

  it('neutralises a formula after a `,`, a tab or a line break, and a cell starting with a tab or CR', () => {
    expect(neutralise('a,=1')).toBe("a,'=1");
    expect(neutralise('a\t=1')).toBe("a\t'=1");
    expect(neutralise('\t=1')).toBe("'\t'=1");
    expect(neutralise('\r\n=1')).toBe("'\r\n'=1");
    expect(neutralise('a;\r=1')).toBe("a;'\r'=1");
    expect(neutralise('a\n@x')).toBe("a\n'@x");
    // A piece that opens with a quote: the formula behind it too.
    expect(neutralise('a;"=1')).toBe(`a;'"=1`);
    // Signs inside a piece are left alone.
    expect(neutralise('a-b; c+d, e=f')).toBe('a-b; c+d, e=f');
  });

  it('no cell and no piece of one starts with a formula character, as written or read back', () => {
    const cellText = fc.oneof(
      anyText(60),
      fc
        .array(
          fc.oneof(
            fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', '"', ';', ',', "'", ' '),
            fc.string({ maxLength: 4 }),
          ),
          { maxLength: 12 },
        )
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(fc.array(cellText, { minLength: 1, maxLength: 5 }), (cells) => {
        const row = csvRow(cells);
        const [read] = parseCsv(row);
        // As written, whatever separator a spreadsheet splits the line on; and as read back.
        return (
          !formulaPiece(row.slice(0, -2)) &&
          read?.length === cells.length &&
          !read.some(formulaPiece)
        );
      }),
      { numRuns: RUNS.pure },
    );
  });

  it('round-trips ordinary values: read back, each cell is what was written', () => {
    const ordinary = anyText(60).filter((text) => !formulaPiece(text));
    fc.assert(
      fc.property(fc.array(ordinary, { minLength: 1, maxLength: 6 }), (cells) => {
        const [read] = parseCsv(csvRow(cells));
        return read?.length === cells.length && read.every((cell, i) => cell === cells[i]);
      }),
      { numRuns: RUNS.pure },
    );
  });

  it('has a header row and one row an entry, times in ISO 8601 UTC, rows ended by CRLF', () => {
    expect(auditCsvHeader()).toBe(`${AUDIT_CSV_HEADER.map((name) => `"${name}"`).join(',')}\r\n`);
    const row = auditCsvRow({
      id: 7,
      workspaceId: 'T1',
      actorId: 'UBOB',
      action: 'purge.everything.requested',
      zoneId: 'zone_a',
      zoneName: 'a.example.com',
      accountId: 'acc_1',
      accountName: 'default',
      outcome: 'ok',
      detail: { reason: '=cmd|" /C calc"!A0, then more' },
      at: Date.UTC(2026, 10, 20, 23, 30),
    });
    expect(row).toBe(
      '"7","2026-11-20T23:30:00.000Z","UBOB","purge.everything.requested","purge-everything",' +
        '"zone_a","a.example.com","ok","","{""reason"":""=cmd|\\"" /C calc\\""!A0, then more""}",' +
        '"default"\r\n',
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
      '"8","1970-01-01T00:00:00.000Z","token:deploy","ratelimit.on","ratelimit","","","ok","yes","",""\r\n',
    );
  });

  it('neutralises a zone or token name the CDN or a user chose, after a `;`', () => {
    const row = auditCsvRow({
      id: 9,
      workspaceId: 'T1',
      actorId: "token:x;=1+cmd|'/C calc'!A0",
      action: 'purge.urls',
      zoneId: 'zone_x',
      zoneName: "x;=1+cmd|'/C calc'!A0",
      outcome: 'ok',
      detail: null,
      at: 0,
    });
    const [cells] = parseCsv(row);
    expect(cells?.[2]).toBe("token:x;'=1+cmd|'/C calc'!A0");
    expect(cells?.[6]).toBe("x;'=1+cmd|'/C calc'!A0");
    expect(formulaPiece(row.slice(0, -2))).toBe(false);
  });

  it('names each entry’s CDN account: by name, by id once removed, none for an entry naming no zone', () => {
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
    const cells = (row: string) => parseCsv(row)[0] ?? [];
    expect(
      cells(auditCsvRow({ ...entry, accountId: 'acc_1', accountName: 'staging' })).at(-1),
    ).toBe('staging');
    expect(cells(auditCsvRow({ ...entry, accountId: 'acc_gone' })).at(-1)).toBe('acc_gone');
    // `default` is an account as any other: named only when the entry names it.
    expect(
      cells(auditCsvRow({ ...entry, accountId: 'acc_0', accountName: 'default' })).at(-1),
    ).toBe('default');
    expect(cells(auditCsvRow({ ...entry, zoneId: null, zoneName: null })).at(-1)).toBe('');
  });
});
