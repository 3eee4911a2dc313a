// Zone names in any form: what a person types (Unicode or punycode, any case, a trailing dot) to
// the one form zones are compared in, and a zone's name as people read it. IDN conversion is
// Node's (WHATWG URL, UTS #46), the same as create's (src/cdn/hostname.ts) and browsers'.
import { domainToASCII, domainToUnicode } from 'node:url';

const NON_ASCII = /\P{ASCII}/u;
const PUNYCODE_LABEL = /(?:^|\.)xn--/i;

/**
 * The form zone names are compared in: ASCII (an IDN's labels as punycode), lowercase, without a
 * trailing dot. `Bücher.Example.` and `xn--bcher-kva.example` are both `xn--bcher-kva.example`.
 * What is not a domain name (a zone id, a typo) comes back trimmed and lowercased.
 */
export function zoneKey(name: string): string {
  const trimmed = name.trim().replace(/\.$/, '');
  const lower = trimmed.toLowerCase();
  if (!inUnicode(trimmed)) return lower;
  return (domainToASCII(trimmed) || lower).replace(/\.$/, '');
}

/** Whether a name (or part of one) is written with letters outside ASCII: `büch`. */
export function inUnicode(text: string): boolean {
  return NON_ASCII.test(text);
}

/** A zone's name with its punycode labels decoded (`bücher.example`); any other name as it is. */
export function zoneUnicode(name: string): string {
  if (!PUNYCODE_LABEL.test(name)) return name;
  return domainToUnicode(name) || name;
}

/**
 * A zone's name as messages show it: an IDN in Unicode with its punycode beside it,
 * `bücher.example (xn--bcher-kva.example)`; any other name as it is.
 */
export function zoneLabel(name: string): string {
  if (!PUNYCODE_LABEL.test(name) && !inUnicode(name)) return name;
  const ascii = domainToASCII(name);
  const unicode = domainToUnicode(name);
  if (ascii === '' || unicode === '' || ascii.toLowerCase() === unicode.toLowerCase()) return name;
  return `${unicode} (${ascii})`;
}

/** A zone's name as a person may type it back: `bücher.example or xn--bcher-kva.example`. */
export function zoneEitherForm(name: string): string {
  const unicode = zoneUnicode(name);
  return unicode === name ? name : `${unicode} or ${name}`;
}

/**
 * Whether a zone's name contains `query` in either form: `bücher`, `büch` and `xn--bcher` are all
 * in `xn--bcher-kva.example`.
 */
export function zoneNameContains(name: string, query: string): boolean {
  const wanted = zoneKey(query);
  if (zoneKey(name).includes(wanted)) return true;
  // The typed part mapped as domainToUnicode maps names (case, width, `。` for `.`).
  return inUnicode(query) && zoneUnicode(zoneKey(name)).includes(zoneUnicode(wanted));
}
