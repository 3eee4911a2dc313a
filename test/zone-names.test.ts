// Zone names in any form: the one comparison form, the one way messages show them.
import { describe, expect, it } from 'vitest';
import {
  zoneEitherForm,
  zoneKey,
  zoneLabel,
  zoneNameContains,
  zoneUnicode,
} from '../src/zone-names.js';

const IDN = 'xn--bcher-kva.example';

describe('zone names', () => {
  it.each([
    ['bücher.example', IDN],
    ['Bücher.Example.', IDN],
    [' BÜCHER.EXAMPLE ', IDN],
    ['xn--bcher-kva.example', IDN],
    ['XN--BCHER-KVA.EXAMPLE.', IDN],
    // Full-width letters and the ideographic full stop, as an IME types them.
    ['ｂüｃｈｅｒ。example', IDN],
    ['Example.COM.', 'example.com'],
    ['zone_AbC', 'zone_abc'],
    ['<!channel>', '<!channel>'],
  ])('compares %j as %j', (typed, key) => {
    expect(zoneKey(typed)).toBe(key);
  });

  it('shows an IDN in Unicode with its punycode beside it, any other name as it is', () => {
    expect(zoneLabel(IDN)).toBe('bücher.example (xn--bcher-kva.example)');
    expect(zoneLabel('XN--BCHER-KVA.EXAMPLE')).toBe('bücher.example (xn--bcher-kva.example)');
    expect(zoneLabel('bücher.example')).toBe('bücher.example (xn--bcher-kva.example)');
    expect(zoneLabel('example.com')).toBe('example.com');
    // Not valid punycode, or not a domain at all: shown as it is.
    expect(zoneLabel('xn--zz.example')).toBe('xn--zz.example');
    expect(zoneLabel('<!channel> xn--a')).toBe('<!channel> xn--a');
    expect(zoneUnicode(IDN)).toBe('bücher.example');
    expect(zoneEitherForm(IDN)).toBe('bücher.example or xn--bcher-kva.example');
    expect(zoneEitherForm('example.com')).toBe('example.com');
  });

  it.each([
    ['bücher', true],
    ['büch', true],
    ['BÜCH', true],
    ['ücher.ex', true],
    ['xn--bcher', true],
    ['EXAMPLE', true],
    ['münchen', false],
    ['bucher', false],
  ])('finds %j in the IDN: %s', (query, found) => {
    expect(zoneNameContains(IDN, query)).toBe(found);
  });
});
