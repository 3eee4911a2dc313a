// Domain-name validation shared by the config, the bot's create command and the sandbox.
import { domainToASCII } from 'node:url';

export type HostnameCheck = { ok: true; ascii: string } | { ok: false; reason: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_LENGTH = 253;

/**
 * Normalizes a user-typed domain to its lowercase ASCII (punycode) form, or says why it is not one.
 * IDN conversion is Node's (WHATWG URL) so it matches what browsers and resolvers do.
 */
export function checkHostname(input: string): HostnameCheck {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '') return { ok: false, reason: 'it is empty' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    return { ok: false, reason: 'give the domain alone, without http:// or https://' };
  }
  // URL host parsing would quietly rewrite these (%41 → a, a\b → a), so they are refused first.
  if (/[/\\?#@:%[\]\s]/.test(trimmed)) {
    return { ok: false, reason: 'a domain has no path, port, spaces or credentials' };
  }
  const ascii = domainToASCII(trimmed);
  if (ascii === '') return { ok: false, reason: 'it is not a valid domain name' };
  if (ascii.length > MAX_LENGTH) return { ok: false, reason: 'it is longer than 253 characters' };
  const labels = ascii.split('.');
  if (labels.length < 2)
    return { ok: false, reason: 'it needs at least two labels, like example.com' };
  if (!labels.every((label) => LABEL.test(label))) {
    return {
      ok: false,
      reason:
        'each label must be 1–63 letters, digits or hyphens, not starting or ending with a hyphen',
    };
  }
  if (/^[0-9]+$/.test(labels.at(-1) ?? '')) {
    return { ok: false, reason: 'it looks like an IP address, not a domain name' };
  }
  return { ok: true, ascii };
}
