// The sandbox's purge endpoint: POST /zones/{id}/purge, of everything, some URLs, or some tags.
import type { IncomingMessage } from 'node:http';
import { fail, jsonBody, ok, type Reply } from './http.js';
import type { SandboxState } from './state.js';
import { liveZone } from './zones.js';

export function purge(
  state: SandboxState,
  zoneId: string,
  req: IncomingMessage,
  text: string | undefined,
  maxItems: number,
): Reply {
  const zone = liveZone(state.byId(zoneId));
  if (!zone) return fail(404, 'zone_not_found', 'No such zone');
  const body = jsonBody(req, text);
  if ('status' in body) return body;
  const { purge_everything: everything, files, tags } = body.value;
  const given = [everything, files, tags].filter((value) => value !== undefined).length;
  if (everything !== undefined && typeof everything !== 'boolean') {
    return fail(400, 'invalid_purge', 'purge_everything must be a boolean');
  }
  if (given > 1) {
    return fail(
      400,
      'invalid_purge',
      'Send exactly one of purge_everything, files or tags in a purge request',
    );
  }
  if (everything === true) {
    return ok({ data: { id: state.recordPurge(zone.id, 'everything', []).id } });
  }
  const kind = files !== undefined ? 'files' : tags !== undefined ? 'tags' : undefined;
  const items = files ?? tags;
  if (kind === undefined || !Array.isArray(items) || items.length === 0) {
    return fail(400, 'invalid_purge', 'Nothing to purge: give files, tags or purge_everything');
  }
  if (items.length > maxItems) {
    return fail(400, 'too_many_items', `At most ${maxItems} ${kind} per purge request`);
  }
  for (const item of items) {
    const problem = kind === 'files' ? fileProblem(item, zone.name) : tagProblem(item);
    if (problem) return fail(400, 'invalid_purge', problem);
  }
  return ok({ data: { id: state.recordPurge(zone.id, kind, items as string[]).id } });
}

function fileProblem(item: unknown, zoneName: string): string | undefined {
  if (typeof item !== 'string') return 'files must be strings';
  const url = URL.parse(item);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return `Not an http(s) URL: ${item.slice(0, 200)}`;
  }
  if (url.hostname !== zoneName && !url.hostname.endsWith(`.${zoneName}`)) {
    return `URL is outside the zone ${zoneName}: ${item.slice(0, 200)}`;
  }
  return undefined;
}

function tagProblem(item: unknown): string | undefined {
  if (typeof item !== 'string' || item.trim() === '') return 'tags must be non-empty strings';
  if (item.length > 1024) return 'A tag is longer than 1024 characters';
  return undefined;
}
