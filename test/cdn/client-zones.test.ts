import { describe, expect, it } from 'vitest';
import { isCdnError } from '../../src/cdn/errors.js';
import { answer200, cdnFixture } from '../helpers/cdn.js';

const isList = (r: { method: string; path: string }) => r.method === 'GET' && r.path === '/zones';
const isCreate = (r: { method: string; path: string }) =>
  r.method === 'POST' && r.path === '/zones';

describe('listZones', () => {
  it('sends page and per_page explicitly and returns the documented meta', async () => {
    const { client, sandbox } = await cdnFixture();
    const page = await client().listZones();
    expect(sandbox.requests[0]?.query).toEqual({ page: '1', per_page: '20' });
    expect(page).toMatchObject({ page: 1, perPage: 20, total: 9, pages: 1 });
    expect(page.zones[0]).toEqual({
      id: expect.stringMatching(/^zone_/),
      name: 'example.com',
      status: 'active',
      createdAt: expect.any(String),
    });
  });

  it('filters by status', async () => {
    const { client, sandbox } = await cdnFixture();
    const page = await client().listZones({ status: 'deleted' });
    expect(sandbox.requests[0]?.query.status).toBe('deleted');
    expect(page.zones.map((zone) => zone.name)).toEqual([
      'old-site.example.com',
      'legacy.example.org',
    ]);
  });

  it('refuses a page size over 100 without sending anything', async () => {
    const { client, sandbox } = await cdnFixture();
    await expect(client().listZones({ perPage: 101 })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(client().listZones({ page: 0 })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    expect(sandbox.requests).toHaveLength(0);
  });

  it('pages through 250 zones in three requests of at most 100', async () => {
    const { client, sandbox } = await cdnFixture({ demoZones: false, bulkZones: 250 });
    const names: string[] = [];
    for await (const zone of client().allZones()) names.push(zone.name);
    expect(names).toHaveLength(250);
    expect(new Set(names).size).toBe(250);
    expect(sandbox.requests.map((r) => r.query)).toEqual([
      { page: '1', per_page: '100' },
      { page: '2', per_page: '100' },
      { page: '3', per_page: '100' },
    ]);
  });

  it('stops on a short page even when total claims more', async () => {
    const { client, sandbox } = await cdnFixture();
    answer200(
      sandbox,
      { success: true, data: [], meta: { page: 1, per_page: 100, total: 5000 } },
      '/zones',
    );
    const zones = [];
    for await (const zone of client().allZones()) zones.push(zone);
    expect(zones).toEqual([]);
    expect(sandbox.requests).toHaveLength(1);
  });

  it('finds a zone by id or by name, preferring a live zone', async () => {
    const { client } = await cdnFixture({ bulkZones: 150 });
    const byName = await client().findZone('Static.Example.com.');
    expect(byName?.name).toBe('static.example.com');
    expect((await client().findZone(byName?.id ?? ''))?.name).toBe('static.example.com');
    expect(await client().findZone('nope.example.com')).toBeUndefined();
  });

  it('rejects a documented field of the wrong type as unexpected_response', async () => {
    const { client, sandbox } = await cdnFixture();
    answer200(sandbox, {
      success: true,
      data: [{ id: 7, name: 'a.com', status: 'active', created_at: 'x' }],
      meta: { page: 1, per_page: 20, total: 1 },
    });
    const error = await client()
      .listZones()
      .catch((e: unknown) => e);
    expect(isCdnError(error, 'unexpected_response')).toBe(true);
    expect((error as Error).message).toContain('data.0.id');
  });

  it('ignores fields the spec does not document', async () => {
    const { client, sandbox } = await cdnFixture();
    answer200(sandbox, {
      success: true,
      data: [{ id: 'z1', name: 'a.com', status: 'moved', created_at: 'x', plan: 'pro' }],
      meta: { page: 1, per_page: 20, total: 1, cursor: 'abc' },
      result_info: {},
    });
    const page = await client().listZones();
    expect(page.zones).toEqual([{ id: 'z1', name: 'a.com', status: 'moved', createdAt: 'x' }]);
  });
});

describe('createZone', () => {
  it('reads the zone from data and sends the plan', async () => {
    const { client, sandbox } = await cdnFixture();
    const result = await client().createZone({ name: 'new.example.dev', plan: 'business' });
    expect(result).toMatchObject({
      kind: 'created',
      confirmedBy: 'response',
      zone: { name: 'new.example.dev', status: 'pending' },
    });
    expect(sandbox.requests[0]?.body).toEqual({ name: 'new.example.dev', plan: 'business' });
  });

  it('reads the zone from the top level', async () => {
    const { client } = await cdnFixture({ createResponse: 'top-level' });
    const result = await client().createZone({ name: 'top.example.dev' });
    expect(result).toMatchObject({ kind: 'created', confirmedBy: 'response' });
  });

  it('looks the zone up when the response has no body', async () => {
    const { client, sandbox } = await cdnFixture({ createResponse: 'empty' });
    const result = await client().createZone({ name: 'quiet.example.dev' });
    expect(result).toMatchObject({
      kind: 'created',
      confirmedBy: 'listing',
      zone: { name: 'quiet.example.dev' },
    });
    expect(sandbox.requests.filter(isCreate)).toHaveLength(1);
  });

  it('says "accepted" when a 2xx zone cannot be found yet', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 202, method: 'POST', path: '/zones', body: '' });
    const result = await client().createZone({ name: 'later.example.dev' });
    expect(result).toEqual({ kind: 'accepted', name: 'later.example.dev' });
  });

  it('does not resend a create that timed out, and finds the zone it made', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'hang', after: true, method: 'POST', path: '/zones' });
    const result = await client({ timeoutMs: 300 }).createZone({ name: 'slow.example.dev' });
    expect(result).toMatchObject({ kind: 'created', confirmedBy: 'listing' });
    expect(sandbox.requests.filter(isCreate)).toHaveLength(1);
    expect(sandbox.state.list().filter((zone) => zone.name === 'slow.example.dev')).toHaveLength(1);
  });

  it('checks the listing after a 5xx and reports success when the zone exists', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 502, after: true, method: 'POST', path: '/zones' });
    const result = await client().createZone({ name: 'flaky.example.dev' });
    expect(result).toMatchObject({ kind: 'created', confirmedBy: 'listing' });
    expect(sandbox.requests.filter(isCreate)).toHaveLength(1);
  });

  it('reports the failure after a 5xx when no zone was made, without resending', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 503, method: 'POST', path: '/zones' });
    await expect(client().createZone({ name: 'down.example.dev' })).rejects.toMatchObject({
      code: 'unavailable',
      status: 503,
    });
    expect(sandbox.requests.filter(isCreate)).toHaveLength(1);
    expect(sandbox.requests.filter(isList).length).toBeGreaterThan(0);
  });

  it('maps a duplicate to conflict with the server message', async () => {
    const { client } = await cdnFixture();
    await expect(client().createZone({ name: 'example.com' })).rejects.toMatchObject({
      code: 'conflict',
      status: 409,
      message: 'A zone named example.com already exists',
    });
  });
});
