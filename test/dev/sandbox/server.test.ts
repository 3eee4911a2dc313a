import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  SANDBOX_DEMO_KEY,
  type Sandbox,
  type SandboxOptions,
  startSandbox,
} from '../../../src/dev/sandbox/server.js';
import { InstantClock } from '../../helpers/clock.js';

let sandbox: Sandbox;
let clock: InstantClock;

afterEach(async () => {
  await sandbox?.close();
});

async function start(options: SandboxOptions = {}) {
  clock = new InstantClock();
  sandbox = await startSandbox({ clock, ...options });
  return sandbox;
}

async function call(
  method: 'GET' | 'POST',
  path: string,
  options: { body?: unknown; key?: string | null; contentType?: string | null } = {},
) {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? SANDBOX_DEMO_KEY}`;
  if (options.body !== undefined && options.contentType !== null) {
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  const response = await request(`${sandbox.baseUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? null : JSON.stringify(options.body),
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    headers: response.headers,
    // biome-ignore lint/suspicious/noExplicitAny: raw wire JSON; each test asserts the shape it reads.
    body: text === '' ? undefined : (JSON.parse(text) as Record<string, any>),
  };
}

const zoneId = (name: string) => sandbox.state.byName(name)?.id ?? `missing:${name}`;

describe('authentication', () => {
  it('answers 401 in the documented error format without a key or with a wrong one', async () => {
    await start();
    for (const key of [null, 'wrong']) {
      const response = await call('GET', '/zones', { key });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({
        success: false,
        errors: [{ code: 'unauthorized', message: expect.any(String) }],
      });
    }
    expect((await call('GET', '/zones')).status).toBe(200);
  });
});

describe('GET /zones', () => {
  it('applies the documented defaults and seeds every status', async () => {
    await start();
    const { body } = await call('GET', '/zones');
    expect(body?.meta).toEqual({ page: 1, per_page: 20, total: 9 });
    expect(new Set(body?.data.map((z: { status: string }) => z.status))).toEqual(
      new Set(['active', 'pending', 'deleted']),
    );
    expect(body?.data[0]).toEqual({
      id: expect.stringMatching(/^zone_[0-9a-f]{24}$/),
      name: 'example.com',
      status: 'active',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
    });
  });

  it.each([
    ['per_page=101', 'invalid_per_page'],
    ['per_page=0', 'invalid_per_page'],
    ['page=0', 'invalid_page'],
    ['page=two', 'invalid_page'],
    ['status=archived', 'invalid_status'],
  ])('refuses %s with 400', async (query, code) => {
    await start();
    const response = await call('GET', `/zones?${query}`);
    expect(response.status).toBe(400);
    expect(response.body?.errors[0].code).toBe(code);
  });

  it('pages and filters', async () => {
    await start({ bulkZones: 250 });
    const last = await call('GET', '/zones?page=3&per_page=100&status=active');
    expect(last.body?.meta).toEqual({ page: 3, per_page: 100, total: 255 });
    expect(last.body?.data).toHaveLength(55);
    const beyond = await call('GET', '/zones?page=9&per_page=100');
    expect(beyond.body?.data).toEqual([]);
  });
});

describe('POST /zones', () => {
  it('creates a pending zone that turns active after the activation delay', async () => {
    await start({ activationDelayMs: 60_000 });
    const created = await call('POST', '/zones', {
      body: { name: 'New.Example.dev', plan: 'pro' },
    });
    expect(created.status).toBe(201);
    expect(created.body?.data).toMatchObject({ name: 'new.example.dev', status: 'pending' });
    clock.advance(59_999);
    expect((await call('GET', '/zones?status=pending')).body?.meta.total).toBe(3);
    clock.advance(1);
    const active = await call('GET', '/zones?status=active');
    expect(active.body?.data.map((z: { name: string }) => z.name)).toContain('new.example.dev');
  });

  it.each([
    [{ name: 'https://a.com' }, 'invalid_name'],
    [{ name: 'a..com' }, 'invalid_name'],
    [{ name: 'bücher.example' }, 'invalid_name'],
    [{ name: 'localhost' }, 'invalid_name'],
    [{}, 'invalid_name'],
    [{ name: 'a.com', plan: 'platinum' }, 'invalid_plan'],
  ])('refuses %j with 400', async (body, code) => {
    await start();
    const response = await call('POST', '/zones', { body });
    expect(response.status).toBe(400);
    expect(response.body?.errors[0].code).toBe(code);
  });

  it('refuses a duplicate live zone with 409 but allows reusing a deleted name', async () => {
    await start();
    expect((await call('POST', '/zones', { body: { name: 'example.com' } })).status).toBe(409);
    expect((await call('POST', '/zones', { body: { name: 'old-site.example.com' } })).status).toBe(
      201,
    );
  });

  it('needs a JSON content type', async () => {
    await start();
    const response = await call('POST', '/zones', {
      body: { name: 'a.com' },
      contentType: 'text/plain',
    });
    expect(response.status).toBe(415);
  });

  it('can answer with the zone at the top level or with no body', async () => {
    await start({ createResponse: 'top-level' });
    expect((await call('POST', '/zones', { body: { name: 'a.dev' } })).body).toMatchObject({
      success: true,
      name: 'a.dev',
    });
    await sandbox.close();
    await start({ createResponse: 'empty' });
    const empty = await call('POST', '/zones', { body: { name: 'a.dev' } });
    expect([empty.status, empty.body]).toEqual([204, undefined]);
  });
});

describe('POST /zones/{id}/purge', () => {
  it.each([
    [{ purge_everything: true, files: ['https://example.com/a'] }],
    [{ purge_everything: true, tags: ['x'] }],
    [{ files: ['https://example.com/a'], tags: ['x'] }],
    [{}],
    [{ purge_everything: false }],
    [{ files: [] }],
    [{ files: ['ftp://example.com/a'] }],
    [{ files: ['https://example.org/a'] }],
    [{ tags: [''] }],
  ])('refuses %j with 400', async (body) => {
    await start();
    const response = await call('POST', `/zones/${zoneId('example.com')}/purge`, { body });
    expect(response.status).toBe(400);
    expect(sandbox.state.purges).toEqual([]);
  });

  it('refuses a batch over the size limit', async () => {
    await start({ maxPurgeItems: 30 });
    const files = Array.from({ length: 31 }, (_, i) => `https://example.com/${i}`);
    const response = await call('POST', `/zones/${zoneId('example.com')}/purge`, {
      body: { files },
    });
    expect([response.status, response.body?.errors[0].code]).toEqual([400, 'too_many_items']);
  });

  it('purges URLs of the zone and its subdomains, and everything, returning an id', async () => {
    await start();
    const path = `/zones/${zoneId('example.com')}/purge`;
    const files = await call('POST', path, {
      body: { files: ['https://example.com/a.css', 'http://www.example.com/b'] },
    });
    expect(files.body).toEqual({ success: true, data: { id: expect.stringMatching(/^purge_/) } });
    expect((await call('POST', path, { body: { purge_everything: true } })).status).toBe(200);
    expect(sandbox.state.purges.map((p) => p.kind)).toEqual(['files', 'everything']);
  });

  it('answers 404 for an unknown or deleted zone', async () => {
    await start();
    for (const id of ['zone_nope', zoneId('old-site.example.com')]) {
      expect((await call('POST', `/zones/${id}/purge`, { body: { tags: ['a'] } })).status).toBe(
        404,
      );
    }
  });
});

describe('GET /zones/{id}/analytics/traffic', () => {
  const path = (query: string) => `/zones/${zoneId('example.com')}/analytics/traffic?${query}`;

  it.each([
    ['until=2026-11-22T00:00:00Z&granularity=hour', 'invalid_since'],
    ['since=yesterday&until=2026-11-22T00:00:00Z&granularity=hour', 'invalid_since'],
    ['since=2026-11-21T00:00:00Z&granularity=hour', 'invalid_until'],
    ['since=2026-11-21T00:00:00Z&until=2026-11-22T00:00:00Z', 'invalid_granularity'],
    [
      'since=2026-11-21T00:00:00Z&until=2026-11-22T00:00:00Z&granularity=week',
      'invalid_granularity',
    ],
    ['since=2026-11-22T00:00:00Z&until=2026-11-21T00:00:00Z&granularity=hour', 'invalid_range'],
    ['since=2026-10-01T00:00:00Z&until=2026-11-22T00:00:00Z&granularity=minute', 'range_too_large'],
  ])('refuses %s with 400 (no defaults are assumed)', async (query, code) => {
    await start();
    const response = await call('GET', path(query));
    expect([response.status, response.body?.errors[0].code]).toEqual([400, code]);
  });

  it('gives totals equal to the sum of the series, the same every time', async () => {
    await start();
    const query = 'since=2026-11-21T00:00:00Z&until=2026-11-22T00:00:00Z&granularity=hour';
    const first = (await call('GET', path(query))).body?.data;
    const second = (await call('GET', path(query))).body?.data;
    expect(second).toEqual(first);
    expect(first.timeseries).toHaveLength(24);
    const sum = (key: string) =>
      first.timeseries.reduce(
        (total: number, point: Record<string, number>) => total + (point[key] ?? 0),
        0,
      );
    expect(first.totals.requests).toBe(sum('requests'));
    expect(first.totals.bandwidth).toBe(sum('bandwidth'));
    expect(first.totals.cache_hit_rate).toBeGreaterThan(0.5);
    expect(first.totals.cache_hit_rate).toBeLessThanOrEqual(1);
    expect(first.timeseries[0]).toEqual({
      timestamp: '2026-11-21T00:00:00Z',
      requests: expect.any(Number),
      bandwidth: expect.any(Number),
    });
  });

  it('agrees across granularities: a day is its hours is its minutes', async () => {
    await start();
    const range = 'since=2026-11-20T00:00:00Z&until=2026-11-21T00:00:00Z';
    const totals = await Promise.all(
      ['minute', 'hour', 'day'].map(
        async (granularity) =>
          (await call('GET', path(`${range}&granularity=${granularity}`))).body?.data.totals,
      ),
    );
    expect(totals[1]).toEqual(totals[0]);
    expect(totals[2]).toEqual(totals[0]);
  });

  it('has no traffic in the future or for a pending zone', async () => {
    await start();
    const future = await call(
      'GET',
      path('since=2026-11-22T11:00:00Z&until=2026-11-22T14:00:00Z&granularity=hour'),
    );
    expect(future.body?.data.timeseries).toHaveLength(1);
    const pending = await call(
      'GET',
      `/zones/${zoneId('staging.example.com')}/analytics/traffic?since=2026-11-21T00:00:00Z&until=2026-11-22T00:00:00Z&granularity=hour`,
    );
    expect(pending.body?.data).toEqual({
      totals: { requests: 0, bandwidth: 0, cache_hit_rate: 0 },
      timeseries: [],
    });
  });
});

describe('POST /zones/{zone}/settings', () => {
  const body = { limits: { enabled: true, mode: 'automatic' } };

  it('accepts the id or the name by default', async () => {
    await start();
    expect((await call('POST', `/zones/${zoneId('example.com')}/settings`, { body })).status).toBe(
      200,
    );
    const byName = await call('POST', '/zones/example.com/settings', { body });
    expect(byName.body).toEqual({ success: true, data: body });
  });

  it('can be made to accept only names or only ids', async () => {
    await start({ settingsPath: 'name-only' });
    expect((await call('POST', `/zones/${zoneId('example.com')}/settings`, { body })).status).toBe(
      404,
    );
    await sandbox.close();
    await start({ settingsPath: 'id-only' });
    expect((await call('POST', '/zones/example.com/settings', { body })).status).toBe(404);
  });

  it.each([
    [{ limits: { enabled: true } }],
    [{ limits: { enabled: true, mode: 'manual' } }],
    [{ limits: { enabled: 'yes', mode: 'automatic' } }],
    [{ limits: { enabled: true, mode: 'automatic' }, cache_level: 'aggressive' }],
  ])('refuses %j with 400', async (bad) => {
    await start();
    expect((await call('POST', '/zones/example.com/settings', { body: bad })).status).toBe(400);
  });
});

describe('faults and the request log', () => {
  it('answers an injected status after doing the work when asked', async () => {
    await start();
    sandbox.inject({ kind: 'status', status: 500, after: true, method: 'POST' });
    expect((await call('POST', '/zones', { body: { name: 'x.dev' } })).status).toBe(500);
    expect(sandbox.state.byName('x.dev')).toBeDefined();
  });

  it('answers an injected status instead of the work by default, `times` times', async () => {
    await start();
    sandbox.inject({ kind: 'status', status: 429, headers: { 'retry-after': '7' }, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const response = await call('POST', '/zones', { body: { name: `y${i}.dev` } });
      statuses.push([response.status, response.headers['retry-after']]);
    }
    expect(statuses).toEqual([
      [429, '7'],
      [429, '7'],
      [201, undefined],
    ]);
    expect(sandbox.state.byName('y0.dev')).toBeUndefined();
  });

  it('records every request with its outcome', async () => {
    await start();
    await call('GET', '/zones?page=2', { key: 'wrong' });
    expect(sandbox.requests).toEqual([
      {
        method: 'GET',
        path: '/zones',
        query: { page: '2' },
        body: undefined,
        status: 401,
        at: clock.now(),
      },
    ]);
  });

  it('answers 404 outside the API and 405 for a wrong method', async () => {
    await start();
    expect((await call('GET', '/nothing')).status).toBe(404);
    const wrong = await call('GET', `/zones/${zoneId('example.com')}/purge`);
    expect([wrong.status, wrong.headers.allow]).toEqual([405, 'POST']);
  });
});

describe('faults that make a CDN run away', () => {
  it('ignores paging: page 1 again for every page, the page asked echoed, the total given', async () => {
    await start({ demoZones: false, bulkZones: 150 });
    sandbox.inject({ kind: 'ignore-paging', total: 5_000, path: '/zones', times: 2 });
    const first = await call('GET', '/zones?page=1&per_page=100');
    const third = await call('GET', '/zones?page=3&per_page=100');
    expect(third.body?.data).toEqual(first.body?.data);
    expect(third.body?.data).toHaveLength(100);
    expect(third.body?.meta).toEqual({ page: 3, per_page: 100, total: 5_000 });
    // Only a request the sandbox would have answered: a wrong key still gets its 401.
    sandbox.inject({ kind: 'ignore-paging', total: 5_000, path: '/zones' });
    expect((await call('GET', '/zones', { key: 'wrong' })).status).toBe(401);
  });

  it('pages endlessly: full pages of new zones, a total always one page ahead', async () => {
    await start();
    sandbox.inject({ kind: 'endless-paging', path: '/zones', times: 2 });
    const one = await call('GET', '/zones?page=1&per_page=50');
    const two = await call('GET', '/zones?page=2&per_page=50');
    expect(one.body?.data).toHaveLength(50);
    expect(two.body?.meta).toEqual({ page: 2, per_page: 50, total: 150 });
    const zones: Array<{ id: string }> = [...(one.body?.data ?? []), ...(two.body?.data ?? [])];
    expect(new Set(zones.map((zone) => zone.id)).size).toBe(100);
  });

  it('streams a body of the size asked, valid JSON, chunked or with its length', async () => {
    await start();
    sandbox.inject({ kind: 'huge-body', bytes: 300_000, path: '/zones' });
    sandbox.inject({ kind: 'huge-body', bytes: 300_000, declareLength: true, path: '/zones' });
    for (const declared of [undefined, '300000']) {
      const response = await request(`${sandbox.baseUrl}/zones`, {
        headers: { authorization: `Bearer ${SANDBOX_DEMO_KEY}` },
      });
      const text = await response.body.text();
      expect(response.headers['content-length']).toBe(declared);
      expect(text).toHaveLength(300_000);
      expect(JSON.parse(text).data.at(-1).name).toBe('end.example');
    }
    expect(sandbox.requests.map((r) => r.bodyBytesSent)).toEqual([300_000, 300_000]);
  });

  it('stops streaming once the client hangs up', async () => {
    await start();
    sandbox.inject({ kind: 'huge-body', bytes: 1024 ** 3, path: '/zones' });
    const response = await request(`${sandbox.baseUrl}/zones`, {
      headers: { authorization: `Bearer ${SANDBOX_DEMO_KEY}` },
    });
    let read = 0;
    for await (const chunk of response.body) {
      read += chunk.length;
      if (read > 1024 ** 2) break;
    }
    const [record] = await sandbox.waitFor((r) => r.bodyBytesSent !== undefined);
    expect(record?.bodyBytesSent).toBeLessThan(64 * 1024 ** 2);
  });

  it('holds a request until released, then answers it as usual', async () => {
    await start();
    let release = () => {};
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = new Promise<void>((onHeld) => sandbox.inject({ kind: 'hold', until, onHeld }));
    const answer = call('GET', '/zones');
    await held;
    expect(sandbox.requests).toEqual([]);
    release();
    expect((await answer).body?.meta.total).toBe(9);
  });
});
