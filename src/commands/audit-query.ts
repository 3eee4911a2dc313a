// Parsing the words after `/cdn audit` (and `/cdn audit export`): zone, person or token, kind and
// dates. Pure: names become ids and dates become times in the service (src/services/audit-search.ts).
import type { AuditKindName } from '../audit-kinds.js';
import type { SlackToken } from '../text.js';
import { readAccount } from './parse.js';

/** Other spellings people type for the kinds. */
const KIND_ALIASES: Record<string, AuditKindName> = {
  purge: 'purge',
  purges: 'purge',
  'purge-everything': 'purge-everything',
  everything: 'purge-everything',
  purge_everything: 'purge-everything',
  ratelimit: 'ratelimit',
  'rate-limit': 'ratelimit',
  rate_limit: 'ratelimit',
  key: 'key',
  keys: 'key',
  credentials: 'key',
  config: 'config',
  settings: 'config',
  freeze: 'freeze',
  freezes: 'freeze',
};

/** Who made the change: a person by id (a mention), by name as typed, or a CI token by name. */
export type AuditActorQuery =
  | { kind: 'user'; userId: string }
  | { kind: 'name'; name: string }
  | { kind: 'token'; name: string };

/** The filters as typed; dates are calendar days (`YYYY-MM-DD`), `until` included. */
export interface AuditQueryText {
  zone?: string;
  /** A CDN account by name: `account:<name>`, or a zone written `<account>/<zone>`. */
  account?: string;
  actor?: AuditActorQuery;
  kind?: AuditKindName;
  since?: string;
  until?: string;
}

export type AuditQueryParse =
  | { ok: true; export: boolean; query: AuditQueryText }
  | { ok: false; word: string; reason: AuditQueryRefusal };

/** Why a word of the filter was refused (worded in src/blocks/problems.ts). */
export type AuditQueryRefusal = 'kind' | 'date' | 'range' | 'repeated' | 'unknown';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a real calendar day written `YYYY-MM-DD`. */
export function isIsoDay(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/**
 * `[export] [zone] [@person | token:<name>] [kind:<kind>] [since:YYYY-MM-DD] [until:YYYY-MM-DD]
 * [account:<name>]`, in any order. A bare word is the zone (also `zone:<name>`, and
 * `<account>/<zone>` for a zone of one CDN account); a kind may be given bare too.
 */
export function parseAuditQuery(tokens: readonly SlackToken[]): AuditQueryParse {
  const query: AuditQueryText = {};
  let rest = tokens;
  const exporting = rest[0]?.kind === 'word' && rest[0].text.toLowerCase() === 'export';
  if (exporting) rest = rest.slice(1);
  const refuse = (word: string, reason: AuditQueryRefusal): AuditQueryParse => ({
    ok: false,
    word,
    reason,
  });
  for (const token of rest) {
    if (token.kind === 'user') {
      if (query.actor) return refuse(token.text, 'repeated');
      query.actor = { kind: 'user', userId: token.id };
      continue;
    }
    if (token.kind !== 'word' && token.kind !== 'link') return refuse(token.text, 'unknown');
    const word = token.text.trim();
    if (word === '') continue;
    const colon = word.indexOf(':');
    const key = colon > 0 ? word.slice(0, colon).toLowerCase() : '';
    const value = colon > 0 ? word.slice(colon + 1) : word;
    if (key === 'since' || key === 'until' || key === 'from' || key === 'to') {
      const field = key === 'since' || key === 'from' ? 'since' : 'until';
      if (!isIsoDay(value)) return refuse(word, 'date');
      if (query[field]) return refuse(word, 'repeated');
      query[field] = value;
    } else if (key === 'kind' || (!key && KIND_ALIASES[word.toLowerCase()])) {
      const kind = KIND_ALIASES[value.toLowerCase()];
      if (!kind) return refuse(word, 'kind');
      if (query.kind) return refuse(word, 'repeated');
      query.kind = kind;
    } else if (key === 'token') {
      if (!value || query.actor) return refuse(word, query.actor ? 'repeated' : 'unknown');
      query.actor = { kind: 'token', name: value };
    } else if (!key && word.startsWith('@') && word.length > 1) {
      if (query.actor) return refuse(word, 'repeated');
      query.actor = { kind: 'name', name: word.slice(1) };
    } else if (key === 'account') {
      if (!value || query.account) return refuse(word, query.account ? 'repeated' : 'unknown');
      query.account = value;
    } else if (key === 'zone' || (!key && token.kind === 'link') || !key) {
      if (!value || query.zone) return refuse(word, query.zone ? 'repeated' : 'unknown');
      // `<account>/<zone>` (as every command reads it); a URL or a path is no such pair.
      const pair = token.kind === 'word' ? readAccount([value]) : { args: [value] };
      const [zone] = pair.args;
      if (pair.account !== undefined) {
        if (query.account) return refuse(word, 'repeated');
        query.account = pair.account;
      }
      if (zone) query.zone = zone;
      else if (pair.account === undefined) return refuse(word, 'unknown');
    } else {
      return refuse(word, 'unknown');
    }
  }
  if (query.since && query.until && query.since > query.until)
    return refuse(`since:${query.since} until:${query.until}`, 'range');
  return { ok: true, export: exporting, query };
}
