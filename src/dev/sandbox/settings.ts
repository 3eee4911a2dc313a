// The sandbox's settings endpoint: POST /zones/{id or name}/settings, of which only limits exist.
import type { IncomingMessage } from 'node:http';
import { fail, jsonBody, ok, type Reply } from './http.js';
import type { SandboxState } from './state.js';
import { liveZone } from './zones.js';

export function settings(
  state: SandboxState,
  idOrName: string,
  req: IncomingMessage,
  text: string | undefined,
  accepts: 'id-or-name' | 'id-only' | 'name-only',
): Reply {
  const zone = liveZone(
    (accepts !== 'name-only' ? state.byId(idOrName) : undefined) ??
      (accepts !== 'id-only' ? state.byName(idOrName) : undefined),
  );
  if (!zone) return fail(404, 'zone_not_found', 'No such zone');
  const body = jsonBody(req, text);
  if ('status' in body) return body;
  const unknown = Object.keys(body.value).filter((key) => key !== 'limits');
  if (unknown.length > 0) {
    return fail(400, 'unknown_setting', `Unknown setting: ${unknown.join(', ')}`);
  }
  const limits = body.value.limits as Record<string, unknown> | undefined;
  if (typeof limits !== 'object' || limits === null || typeof limits.enabled !== 'boolean') {
    return fail(400, 'invalid_limits', 'limits.enabled must be a boolean');
  }
  if (limits.mode !== 'automatic') {
    return fail(400, 'invalid_limits', 'limits.mode must be "automatic"');
  }
  state.setLimits(zone, limits.enabled);
  return ok({ data: { limits: zone.limits } });
}
