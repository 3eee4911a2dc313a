// What to purge, from what a user typed or pasted: URLs and tags checked and grouped by zone
// before anything is sent. If anything is rejected, nothing is sent. The words arrive as typed:
// Slack's escapes are read before (src/text.ts).
import type { Zone } from '../../cdn/schemas.js';
import { zoneLabel } from '../../zone-names.js';

export const MAX_PURGE_ITEMS = 10_000;
const MAX_TAG_LENGTH = 1024;

export type PurgeArgs =
  /** `/cdn purge` alone, or `/cdn purge <zone>`: open the form. */
  | { kind: 'form'; zone?: string }
  /** Without a zone: the channel's default. */
  | { kind: 'everything'; zone?: string }
  | {
      kind: 'items';
      zone?: string;
      /** `--verify`: check the URLs at the edge once purged. */
      verify?: boolean;
      /** `--warm`: ask the edge for the URLs again once purged, to fill its cache. */
      warm?: boolean;
      urls: string[];
      tags: string[];
      unknown: string[];
      /** Paths (`/assets/app.css`): URLs of the zone named, or of the channel's default. */
      paths?: string[];
    };

const looksLikeUrl = (word: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(word);

/** A path of the zone's own host, as typed: `/assets/app.css`. */
const looksLikePath = (token: string) => /^\/(?!\/)/.test(token);

/** Words that are never a zone: a URL, a path, a tag, or `everything` alone. */
function notAZone(word: string, alone: boolean): boolean {
  return (
    looksLikeUrl(word) ||
    looksLikePath(word) ||
    /^tag:/i.test(word) ||
    (alone && word.toLowerCase() === 'everything')
  );
}

/**
 * Reads the words after `/cdn purge`. The first word is the zone unless it is a URL, a path, a
 * tag, or `everything` alone: then the zone is inferred from the URLs or is the channel's default.
 */
export function parsePurgeArgs(words: string[]): PurgeArgs {
  // `--verify` and `--warm` anywhere; Slack clients on some systems turn a typed `--` into an em dash.
  const verify = words.some(isFlag('verify'));
  const warm = words.some(isFlag('warm'));
  const parsed = parseItems(
    words.filter((word) => !isFlag('verify')(word) && !isFlag('warm')(word)),
  );
  if (parsed.kind !== 'items') return parsed;
  return { ...parsed, ...(verify ? { verify: true } : {}), ...(warm ? { warm: true } : {}) };
}

const isFlag = (name: string) => (word: string) =>
  new RegExp(`^(?:--|\u2014|\u2013)${name}$`, 'i').test(word);
/** A purge's flags (`--verify`, `--warm`), as typed or as some Slack clients turn their dashes. */
export const isPurgeFlag = (word: string) => isFlag('verify')(word) || isFlag('warm')(word);

function parseItems(args: string[]): PurgeArgs {
  const [first, ...rest] = args;
  if (first === undefined) return { kind: 'form' };
  if (args.length === 1 && first.toLowerCase() === 'everything') return { kind: 'everything' };
  const zone = notAZone(first, args.length === 1) ? undefined : first;
  const items = zone === undefined ? args : rest;
  if (zone !== undefined && items.length === 0) return { kind: 'form', zone };
  if (zone !== undefined && items.length === 1 && items[0]?.toLowerCase() === 'everything') {
    return { kind: 'everything', zone };
  }
  return { kind: 'items', ...(zone === undefined ? {} : { zone }), ...splitItems(items) };
}

/** Sorts typed or pasted words into URLs, `tag:` tags, paths, and what is none of these. */
export function splitItems(words: string[]): {
  urls: string[];
  tags: string[];
  unknown: string[];
  /** Present when there are any. */
  paths?: string[];
} {
  const urls: string[] = [];
  const tags: string[] = [];
  const unknown: string[] = [];
  const paths: string[] = [];
  for (const word of words) {
    if (/^tag:/i.test(word)) tags.push(word.slice(4));
    else if (looksLikeUrl(word)) urls.push(word);
    else if (looksLikePath(word)) paths.push(word);
    else unknown.push(word);
  }
  return { urls, tags, unknown, ...(paths.length > 0 ? { paths } : {}) };
}

export interface PurgeGroup {
  zone: Zone;
  files: string[];
  tags: string[];
}

/** A URL of a request that names a zone, served by another zone of the workspace or by none. */
export interface ElsewhereUrl {
  item: string;
  host: string;
  /** The zone that serves the host (the longest zone name it ends with), if one does. */
  servedBy?: string;
}

export interface PurgePlan {
  groups: PurgeGroup[];
  rejected: Array<{ item: string; reason: string }>;
  /**
   * URLs the zone named does not serve, when nothing else was refused and something is left to
   * purge: the rest goes ahead only once the person confirms. Otherwise they are in `rejected`.
   */
  elsewhere: ElsewhereUrl[];
  /** Items given more than once, sent once. */
  duplicates: number;
}

/**
 * Checks every item and groups them by zone. A URL belongs to the zone that serves its host: the
 * zone of that very name, else the longest zone name the host ends with (a zone is a domain name
 * and serves every name under it; docs/cdn-api-assumptions.md). With a zone named, a URL another
 * zone serves, or none, is set aside in `elsewhere`. Without one, each URL goes to the zone that
 * serves it. Tags need a zone.
 */
export function planPurge(
  input: { zone?: Zone; urls: string[]; tags: string[]; unknown?: string[]; paths?: string[] },
  zones: Zone[],
  limit = MAX_PURGE_ITEMS,
): PurgePlan {
  const rejected: PurgePlan['rejected'] = (input.unknown ?? []).map((item) => ({
    item,
    reason: 'not a URL, a /path, nor a tag written as tag:<name>',
  }));
  // A path is a URL of the zone's own host (https: the CDN serves and caches it so).
  const urls = [...input.urls];
  for (const path of input.paths ?? []) {
    if (input.zone) urls.push(`https://${input.zone.name.replace(/\.$/, '')}${path}`);
    else
      rejected.push({
        item: path,
        reason: 'a path needs a zone: /cdn purge <zone> /path, or /cdn use <zone> first',
      });
  }
  const live = zones.filter((zone) => zone.status !== 'deleted');
  // The zone named is a candidate even when the list at hand does not hold it yet.
  const named = input.zone;
  if (named && !live.some((zone) => sameZone(zone, named))) live.push(named);
  // A zone named explicitly may be a deleted one (resolve finds those too): nothing goes to it.
  if (input.zone?.status === 'deleted') {
    const reason = `the zone ${input.zone.name} is deleted`;
    for (const item of [...urls, ...input.tags.map((tag) => `tag:${tag}`)])
      rejected.push({ item, reason });
    return { groups: [], rejected, elsewhere: [], duplicates: 0 };
  }
  const groups = new Map<string, PurgeGroup>();
  const groupOf = (zone: Zone) => {
    // Two accounts may hold zones of the same id: a group is a zone of one account.
    const key = `${zone.accountId}/${zone.id}`;
    let group = groups.get(key);
    if (!group) {
      group = { zone, files: [], tags: [] };
      groups.set(key, group);
    }
    return group;
  };
  const serving = servingZones(live);
  const elsewhere: ElsewhereUrl[] = [];
  let duplicates = 0;
  const seen = new Set<string>();
  const add = (list: string[], item: string) => {
    if (seen.has(item)) duplicates++;
    else {
      seen.add(item);
      list.push(item);
    }
  };

  for (const raw of urls) {
    const url = URL.parse(raw);
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      rejected.push({ item: raw, reason: 'only http:// and https:// URLs can be purged' });
      continue;
    }
    // The fragment never reaches a CDN: purge the URL without it. (Setting hash re-serializes the
    // URL, so it is only done when there is one.)
    if (url.hash !== '') url.hash = '';
    const host = url.hostname;
    const zone = serving(host);
    if (named && !(zone && sameZone(zone, named))) {
      elsewhere.push({ item: raw, host, ...(zone ? { servedBy: zone.name } : {}) });
    } else if (!zone) {
      rejected.push({ item: raw, reason: `no zone in this workspace covers ${host}` });
    } else {
      add(groupOf(zone).files, url.href);
    }
  }
  for (const raw of input.tags) {
    const tag = raw.trim();
    if (!input.zone)
      rejected.push({
        item: `tag:${raw}`,
        reason: 'tags need a zone: /cdn purge <zone> tag:<name>, or /cdn use <zone> first',
      });
    else if (tag === '' || /\s/.test(tag))
      rejected.push({ item: `tag:${raw}`, reason: 'a tag is one word' });
    else if (tag.length > MAX_TAG_LENGTH)
      rejected.push({
        item: `tag:${raw.slice(0, 40)}…`,
        reason: `a tag has at most ${MAX_TAG_LENGTH} characters`,
      });
    else add(groupOf(input.zone).tags, tag);
  }
  const planned = [...groups.values()];
  const count = planned.reduce((sum, group) => sum + group.files.length + group.tags.length, 0);
  if (count > limit) {
    rejected.push({
      item: `${count} items`,
      reason: `at most ${limit.toLocaleString('en')} URLs and tags per purge`,
    });
  }
  // Confirming the rest makes sense only when there is a rest and nothing else is wrong.
  if (elsewhere.length > 0 && (rejected.length > 0 || planned.length === 0)) {
    for (const url of elsewhere.splice(0)) {
      rejected.push({
        item: url.item,
        reason: url.servedBy
          ? `served by the zone ${zoneLabel(url.servedBy)}, not ${zoneLabel(named?.name ?? '')}`
          : `no zone in this workspace serves ${url.host}`,
      });
    }
  }
  return { groups: planned, rejected, elsewhere, duplicates };
}

/** The same zone of the same CDN account. */
function sameZone(a: Zone, b: Zone): boolean {
  return a.id === b.id && a.accountId === b.accountId;
}

/** A zone's name as URL hosts are written: lower case, no final dot, IDNs in punycode. */
function hostOfZone(zoneName: string): string {
  const name = zoneName.trim().toLowerCase().replace(/\.$/, '');
  return URL.parse(`http://${name}/`)?.hostname ?? name;
}

/**
 * The zone that serves a host: the one of that very name, else the longest zone name it ends
 * with (a name under the zone's: `a.b.example.com` under `example.com`). Each zone's host is
 * worked out once, and a host looks up its own name and each name above it: a purge of many URLs
 * in a workspace of many zones costs a few lookups a URL, not a pass over every zone.
 */
function servingZones(zones: Zone[]): (host: string) => Zone | undefined {
  const byHost = new Map<string, Zone>();
  for (const zone of zones) {
    const host = hostOfZone(zone.name);
    // Of two zones with the same host, the first listed serves it.
    if (!byHost.has(host)) byHost.set(host, zone);
  }
  return (host) => {
    for (let at = 0; at >= 0; ) {
      const zone = byHost.get(host.slice(at));
      if (zone) return zone;
      const dot = host.indexOf('.', at);
      at = dot < 0 ? -1 : dot + 1;
    }
    return undefined;
  };
}
