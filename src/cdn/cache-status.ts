// Whether an edge's answer came from its cache or from the origin, read from its headers: RFC 9211
// `Cache-Status` first, then the common `Age`, `X-Cache` and `CF-Cache-Status`-style headers.
//
// `Cache-Status` is an RFC 9651 structured list, read by the structured-headers library; a value
// it cannot parse tells nothing (tolerant: the other headers may still tell).
import { parseList } from 'structured-headers';

/** fresh: served by the origin, or refilled since the purge. cached: the copy from before it. */
export type EdgeVerdict = 'fresh' | 'cached' | 'unknown';

export interface CacheReading {
  verdict: EdgeVerdict;
  /** The header that told, as the edge sent it (cut short), or why nothing told. */
  evidence: string;
}

export interface ReadOptions {
  /** How long ago the purge finished, in ms: a hit younger than this was cached after it. */
  sincePurgeMs?: number;
}

type Headers = Record<string, string | undefined>;

const SHOWN = 120;

/** The verdict of an edge answer's headers (names lowercased, as undici gives them). */
export function readCacheHeaders(headers: Headers, options: ReadOptions = {}): CacheReading {
  const age = ageOf(headers.age);
  const said = (header: string) => `${header}: ${(headers[header] ?? '').slice(0, SHOWN)}`;
  const hit = (evidence: string): CacheReading =>
    age !== undefined && options.sincePurgeMs !== undefined && age * 1000 <= options.sincePurgeMs
      ? { verdict: 'fresh', evidence: `${evidence} (age ${age} s: cached since the purge)` }
      : { verdict: 'cached', evidence };

  const status = headers['cache-status'];
  if (status !== undefined) {
    const served = servedBy(status);
    if (served === 'cache') return hit(said('cache-status'));
    if (served === 'origin') return { verdict: 'fresh', evidence: said('cache-status') };
  }
  for (const name of ['cf-cache-status', 'x-cache-status', 'x-cache']) {
    const value = headers[name];
    if (value === undefined) continue;
    const served = servedByWord(value);
    if (served === 'cache') return hit(said(name));
    if (served === 'origin') return { verdict: 'fresh', evidence: said(name) };
  }
  if (age !== undefined) {
    if (age === 0) return { verdict: 'fresh', evidence: 'age: 0' };
    if (options.sincePurgeMs !== undefined) return hit(`age: ${age}`);
  }
  return { verdict: 'unknown', evidence: 'no cache header (Cache-Status, Age, X-Cache)' };
}

/**
 * RFC 9211: each cache appends its member, so the last is the one nearest the client. Walking
 * back from it, the first member with `hit` served the answer from its cache; a member with
 * `fwd` passed the request on to the one before it; every member forwarding means the origin.
 */
function servedBy(value: string): 'cache' | 'origin' | undefined {
  let members: ReturnType<typeof parseList>;
  try {
    members = parseList(value);
  } catch {
    return undefined;
  }
  let forwarded = false;
  for (const [, params] of members.reverse()) {
    if (params.has('hit')) return 'cache';
    if (params.has('fwd')) forwarded = true;
  }
  return forwarded ? 'origin' : undefined;
}

/**
 * `X-Cache: HIT`, `Hit from cloudfront`, `MISS, HIT` (shield, then edge: the last is nearest the
 * client), `CF-Cache-Status: EXPIRED`. Served stale or while updating is the cache's copy.
 */
function servedByWord(value: string): 'cache' | 'origin' | undefined {
  const last = value.split(',').at(-1)?.trim().toUpperCase() ?? '';
  const word = /^(?:TCP_)?([A-Z_]+)/.exec(last)?.[1] ?? '';
  // A refresh hit or a revalidated copy was checked with the origin just now: as good as fresh.
  if (/^(REFRESHHIT|REFRESH_HIT|REVALIDATED)/.test(word)) return 'origin';
  if (/^(HIT|STALE|UPDATING|MEM_HIT|IMS_HIT)/.test(word)) return 'cache';
  if (/^(MISS|EXPIRED|BYPASS|DYNAMIC|PASS|REFRESH)/.test(word)) return 'origin';
  return undefined;
}

function ageOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^\s*(\d{1,10})\s*$/.exec(value.split(',')[0] ?? '');
  return match ? Number(match[1]) : undefined;
}
