// `/cdn audit`'s words naming a CDN account (issue 29): `account:<name>`, or the zone written
// `<account>/<zone>`; an account given twice, or empty, is refused.
import { describe, expect, it } from 'vitest';
import { parseAuditQuery } from '../../src/commands/audit-query.js';
import { parseSlackText } from '../../src/text.js';

const parse = (text: string) => parseAuditQuery(parseSlackText(text));

describe('the audit filter’s CDN account', () => {
  it('is read from account:<name> or <account>/<zone>, anywhere among the words', () => {
    expect(parse('staging/example.com kind:purge')).toEqual({
      ok: true,
      export: false,
      query: { account: 'staging', zone: 'example.com', kind: 'purge' },
    });
    expect(parse('export example.com account:prod')).toEqual({
      ok: true,
      export: true,
      query: { zone: 'example.com', account: 'prod' },
    });
    expect(parse('zone:prod/example.com')).toMatchObject({
      query: { account: 'prod', zone: 'example.com' },
    });
    expect(parse('prod/')).toMatchObject({ query: { account: 'prod' } });
  });

  it('names none for a zone alone, and refuses two accounts or an empty one', () => {
    expect(parse('example.com')).toEqual({
      ok: true,
      export: false,
      query: { zone: 'example.com' },
    });
    expect(parse('account:prod staging/example.com')).toEqual({
      ok: false,
      word: 'staging/example.com',
      reason: 'repeated',
    });
    expect(parse('account:')).toEqual({ ok: false, word: 'account:', reason: 'unknown' });
  });
});
