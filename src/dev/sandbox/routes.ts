// The sandbox's endpoints under /v1: which handler answers each method and path.
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../../clock.js';
import { analytics } from './analytics.js';
import { fail, type Reply } from './http.js';
import { purge } from './purge.js';
import type { SandboxRules } from './rules.js';
import { settings } from './settings.js';
import type { SandboxState } from './state.js';
import { createZone, listZones } from './zones.js';

/** An authorized request, its body read: `path` is relative to /v1. */
export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  req: IncomingMessage;
  text: string | undefined;
}

export function route(
  state: SandboxState,
  clock: Clock,
  rules: SandboxRules,
  { method, path, query, req, text }: ApiRequest,
): Reply {
  const routes: Array<[RegExp, Record<string, (zone: string) => Reply>]> = [
    [
      /^\/zones$/,
      {
        GET: () => listZones(state, query),
        POST: () => createZone(state, req, text, rules.createResponse),
      },
    ],
    [
      /^\/zones\/([^/]+)\/purge$/,
      { POST: (zone) => purge(state, zone, req, text, rules.maxPurgeItems) },
    ],
    [
      /^\/zones\/([^/]+)\/analytics\/traffic$/,
      { GET: (zone) => analytics(state, zone, query, clock, rules) },
    ],
    [
      /^\/zones\/([^/]+)\/settings$/,
      { POST: (zone) => settings(state, zone, req, text, rules.settingsPath) },
    ],
  ];
  for (const [pattern, handlers] of routes) {
    const match = pattern.exec(path);
    if (!match) continue;
    const handler = handlers[method];
    if (!handler) {
      return {
        ...fail(405, 'method_not_allowed', `${method} is not supported here`),
        headers: { allow: Object.keys(handlers).join(', ') },
      };
    }
    let segment: string;
    try {
      segment = decodeURIComponent(match[1] ?? '');
    } catch {
      return fail(400, 'invalid_path', 'Malformed path segment');
    }
    return handler(segment);
  }
  return fail(404, 'not_found', `No such endpoint: ${method} ${path}`);
}
