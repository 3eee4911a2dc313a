// The sandbox's zone endpoints: GET /zones (paged, filtered by status) and POST /zones.
import type { IncomingMessage } from 'node:http';
import { checkHostname } from '../../cdn/hostname.js';
import { ZONE_PLANS, ZONE_STATUSES, type ZonePlan } from '../../cdn/schemas.js';
import { fail, integerParam, isOneOf, jsonBody, ok, type Reply } from './http.js';
import type { SandboxState, SandboxZone } from './state.js';

export function listZones(state: SandboxState, query: URLSearchParams): Reply {
  const page = integerParam(query, 'page', 1);
  const perPage = integerParam(query, 'per_page', 20);
  const status = query.get('status');
  if (page === null || page < 1) return fail(400, 'invalid_page', 'page must be an integer ≥ 1');
  if (perPage === null || perPage < 1 || perPage > 100) {
    return fail(400, 'invalid_per_page', 'per_page must be an integer from 1 to 100');
  }
  if (status !== null && !isOneOf(status, ZONE_STATUSES)) {
    return fail(400, 'invalid_status', 'status must be one of active, pending, deleted');
  }
  const zones = state.list(status ?? undefined);
  const slice = zones.slice((page - 1) * perPage, page * perPage);
  return ok({
    data: slice.map((zone) => state.toJson(zone)),
    meta: { page, per_page: perPage, total: zones.length },
  });
}

export function createZone(
  state: SandboxState,
  req: IncomingMessage,
  text: string | undefined,
  createResponse: 'envelope' | 'top-level' | 'empty',
): Reply {
  const body = jsonBody(req, text);
  if ('status' in body) return body;
  const { name, plan } = body.value;
  if (typeof name !== 'string') return fail(400, 'invalid_name', 'name is required');
  const check = checkHostname(name);
  if (!check.ok || check.ascii !== name.toLowerCase()) {
    return fail(400, 'invalid_name', 'name must be a domain name in ASCII (punycode) form');
  }
  if (plan !== undefined && !isOneOf(plan, ZONE_PLANS)) {
    return fail(400, 'invalid_plan', 'plan must be one of free, pro, business, enterprise');
  }
  if (state.byName(name)) {
    return fail(409, 'zone_exists', `A zone named ${name.toLowerCase()} already exists`);
  }
  const zone = state.create(name, (plan as ZonePlan | undefined) ?? 'free');
  switch (createResponse) {
    case 'envelope':
      return { status: 201, body: { success: true, data: state.toJson(zone) } };
    case 'top-level':
      return { status: 201, body: { success: true, ...state.toJson(zone) } };
    case 'empty':
      return { status: 204 };
  }
}

/** The zone, unless it is missing or deleted (the zone endpoints answer 404 for both). */
export function liveZone(zone: SandboxZone | undefined): SandboxZone | undefined {
  return zone && !zone.deleted ? zone : undefined;
}
