import { afterEach, describe, expect, it } from 'vitest';
import { CdnClient } from '../../src/cdn/client.js';
import { DEFAULT_CDN_LIMITS } from '../../src/cdn/limits.js';
import { CdnTransport, type HttpRequest, type HttpResponse } from '../../src/cdn/transport.js';
import { loadConfig } from '../../src/config.js';
import { SANDBOX_DEMO_KEY, type Sandbox } from '../../src/dev/sandbox/server.js';
import { cdnFixture, failure } from '../helpers/cdn.js';
import type { InstantClock } from '../helpers/clock.js';

const isList = (r: { method: string; path: string }) => r.method === 'GET' && r.path === '/zones';
const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

async function drain(zones: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _ of zones) count++;
  return count;
}

/** A page of `count` zones numbered from `from`, with the meta a server sends. */
function page(meta: { page: number; total: number }, from: number, count: number) {
  return {
    success: true,
    data: Array.from({ length: count }, (_, i) => ({
      id: `zone_${from + i}`,
      name: `z${from + i}.example`,
      status: 'active',
      created_at: '2026-01-01T00:00:00Z',
    })),
    meta: { page: meta.page, per_page: 100, total: meta.total },
  };
}

const transports: CdnTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

/** A client on a transport of its own, with these limits. */
function limitedClient(
  sandbox: Sandbox,
  clock: InstantClock,
  limits: ConstructorParameters<typeof CdnTransport>[0] & object,
  Transport: typeof CdnTransport = CdnTransport,
): CdnClient {
  const transport = new Transport(limits);
  transports.push(transport);
  return new CdnClient({
    baseUrl: sandbox.baseUrl,
    apiKey: SANDBOX_DEMO_KEY,
    transport,
    clock,
    random: () => 0.5,
  });
}

describe('pages per listing', () => {
  it('reads every page up to the cap', async () => {
    const { sandbox, clock } = await cdnFixture({ demoZones: false, bulkZones: 300 });
    const client = limitedClient(sandbox, clock, { limits: { maxPages: 3 } });
    expect(await drain(client.allZones())).toBe(300);
    expect(sandbox.requests.filter(isList)).toHaveLength(3);
  });

  it('refuses at once a listing whose total is over the cap', async () => {
    const { sandbox, clock } = await cdnFixture({ demoZones: false, bulkZones: 301 });
    const client = limitedClient(sandbox, clock, { limits: { maxPages: 3 } });
    const error = await failure(client.findZone('nope.example'));
    expect(error).toMatchObject({ code: 'unexpected_response', operation: 'GET /zones' });
    expect(error.message).toBe(
      'The CDN lists 301 zones, more than the 300 (3 pages) the bot reads',
    );
    expect(sandbox.requests).toHaveLength(1);
  });

  it('stops at the cap when zones keep appearing while it pages', async () => {
    const { client, sandbox } = await cdnFixture();
    // Within one page of growth each time, so only the cap ends it.
    sandbox.inject({ kind: 'status', status: 200, body: page({ page: 1, total: 200 }, 0, 100) });
    sandbox.inject({ kind: 'status', status: 200, body: page({ page: 2, total: 250 }, 100, 100) });
    const error = await failure(drain(client({ maxPages: 2 }).allZones()));
    expect(error.message).toBe('The zone list ran past 2 pages, the most the bot reads');
    expect(sandbox.requests).toHaveLength(2);
  });

  it('detects a server that ignores page and sends the same zones again', async () => {
    const { client, sandbox } = await cdnFixture({ demoZones: false, bulkZones: 150 });
    sandbox.inject({ kind: 'ignore-paging', total: 9_000, path: '/zones', times: Infinity });
    const error = await failure(client().findZone('nope.example'));
    expect(error).toMatchObject({ code: 'unexpected_response' });
    expect(error.message).toBe(
      'The CDN sent the same zones again for page 2 of the zone list: it seems to ignore paging',
    );
    expect(sandbox.requests.map((r) => r.query.page)).toEqual(['1', '2']);
  });

  it('detects a server that answers another page than the one asked for', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 200, body: page({ page: 1, total: 500 }, 0, 100) });
    sandbox.inject({ kind: 'status', status: 200, body: page({ page: 1, total: 500 }, 100, 100) });
    const error = await failure(drain(client().allZones()));
    expect(error.message).toBe(
      'The CDN answered page 1 when asked for page 2 of the zone list: it seems to ignore paging',
    );
    expect(sandbox.requests).toHaveLength(2);
  });

  it('detects a total that keeps growing', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'endless-paging', path: '/zones', times: Infinity });
    const error = await failure(client().findZone('nope.example'));
    expect(error.message).toBe(
      'The zone list kept growing while the bot read it (200 zones, then 400)',
    );
    expect(sandbox.requests).toHaveLength(3);
  });

  it('bounds even a server that ignores page behind a huge total, in one request', async () => {
    const { client, sandbox } = await cdnFixture({ demoZones: false, bulkZones: 150 });
    sandbox.inject({ kind: 'ignore-paging', total: 1_000_000, path: '/zones', times: Infinity });
    const error = await failure(client().findZone('nope.example'));
    expect(error.message).toBe(
      'The CDN lists 1,000,000 zones, more than the 10,000 (100 pages) the bot reads',
    );
    expect(sandbox.requests).toHaveLength(1);
  });
});

describe('bytes per response', () => {
  it('cuts a streamed 1 GiB body off at the limit, and the pool stays usable', async () => {
    const { sandbox, clock } = await cdnFixture();
    const client = limitedClient(sandbox, clock, { limits: { maxResponseBytes: MIB } });
    sandbox.inject({ kind: 'huge-body', bytes: GIB, path: '/zones' });
    const error = await failure(client.listZones());
    expect(error).toMatchObject({ code: 'unexpected_response', operation: 'GET /zones' });
    expect(error.message).toBe(
      "The CDN's answer to GET /zones was larger than 1 MiB, the most the bot reads",
    );
    const [sent] = await sandbox.waitFor((r) => r.bodyBytesSent !== undefined);
    // The sandbox stopped once the client hung up: socket buffers' worth past the limit, not 1 GiB.
    expect(sent?.bodyBytesSent).toBeLessThan(64 * MIB);
    expect((await client.listZones()).total).toBe(9);
  });

  it('does not read a body declared longer than the limit', async () => {
    const { sandbox, clock } = await cdnFixture();
    const client = limitedClient(sandbox, clock, { limits: { maxResponseBytes: MIB } });
    sandbox.inject({ kind: 'huge-body', bytes: GIB, declareLength: true, path: '/zones' });
    const error = await failure(client.listZones());
    expect(error.message).toContain('larger than 1 MiB');
    const [sent] = await sandbox.waitFor((r) => r.bodyBytesSent !== undefined);
    expect(sent?.bodyBytesSent).toBeLessThan(64 * MIB);
  });

  it('reads a body just under the limit (the sandbox streams valid JSON)', async () => {
    const { sandbox, clock } = await cdnFixture();
    const client = limitedClient(sandbox, clock, { limits: { maxResponseBytes: MIB } });
    sandbox.inject({ kind: 'huge-body', bytes: MIB - 10, path: '/zones' });
    const result = await client.listZones();
    expect(result.zones.length).toBeGreaterThan(1_000);
    expect(result.zones.at(-1)?.name).toBe('end.example');
  });

  it('is undici’s maxResponseSize, checked when the transport is built', () => {
    expect(new CdnTransport().limits).toEqual(DEFAULT_CDN_LIMITS);
    expect(() => new CdnTransport({ limits: { maxResponseBytes: 0 } })).toThrow(
      'limits.maxResponseBytes must be a whole number of at least 1',
    );
  });
});

describe('time per operation', () => {
  /** Each request takes 4 s of the (instant) clock. */
  const slowTransport = (clock: InstantClock) =>
    class SlowTransport extends CdnTransport {
      override async send(request: HttpRequest): Promise<HttpResponse> {
        clock.advance(4_000);
        return super.send(request);
      }
    };

  it('bounds a whole listing, not only each page', async () => {
    const { sandbox, clock } = await cdnFixture({ demoZones: false, bulkZones: 500 });
    const client = limitedClient(
      sandbox,
      clock,
      { limits: { operationTimeoutMs: 10_000 } },
      slowTransport(clock),
    );
    const error = await failure(client.findZone('nope.example'));
    expect(error).toMatchObject({ code: 'timeout', operation: 'GET /zones' });
    expect(error.message).toBe(
      `The CDN at ${new URL(sandbox.baseUrl).host} did not finish GET /zones within 10 s`,
    );
    // Pages 1 and 2 end at 8 s, page 3 at 12 s: page 4 is never asked for.
    expect(sandbox.requests).toHaveLength(3);
  });

  it('ends an attempt when the operation runs out, before the attempt’s own deadline', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'hang' });
    const error = await failure(client({ timeoutMs: 10_000, operationTimeoutMs: 200 }).listZones());
    expect(error).toMatchObject({ code: 'timeout' });
    expect(error.message).toBe(
      `The CDN at ${new URL(sandbox.baseUrl).host} did not finish GET /zones within 0.2 s`,
    );
    expect(sandbox.requests).toHaveLength(1);
  });

  it('gives each attempt the transport’s CDN_ATTEMPT_TIMEOUT_MS unless the client is told', async () => {
    const { sandbox, clock } = await cdnFixture();
    sandbox.inject({ kind: 'hang', times: 10 });
    const client = limitedClient(sandbox, clock, { limits: { attemptTimeoutMs: 200 } });
    const error = await failure(client.listZones());
    expect(error).toMatchObject({ code: 'timeout' });
    expect(error.message).toBe(
      `The CDN at ${new URL(sandbox.baseUrl).host} did not answer within 0.2 s`,
    );
  });

  it('does not wait for a retry that would end past the deadline', async () => {
    const { client, sandbox, clock } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 503, headers: { 'retry-after': '10' }, times: 5 });
    const error = await failure(client({ operationTimeoutMs: 15_000 }).listZones());
    // The server's own answer, not a made-up timeout: it is what the user needs to hear.
    expect(error).toMatchObject({ code: 'unavailable', status: 503 });
    expect(clock.sleeps).toEqual([10_000]);
    expect(sandbox.requests).toHaveLength(2);
  });

  it('still looks for a created zone after the create used up its time', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'hang', after: true, method: 'POST' });
    const result = await client({ operationTimeoutMs: 300 }).createZone({
      name: 'slow.example.dev',
    });
    expect(result).toMatchObject({ kind: 'created', confirmedBy: 'listing' });
    expect(sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});

describe('configuration', () => {
  const HTTP = {
    SLACK_SIGNING_SECRET: 'signing-secret-value',
    SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
    CDN_API_BASE_URL: 'https://api.cdn.example/v1',
    CDN_EDGE_CNAME_TARGET: 'edge.cdn.example',
  };

  it('has defaults, and reads CDN_MAX_PAGES, CDN_MAX_RESPONSE_BYTES, CDN_OPERATION_TIMEOUT_MS, CDN_ATTEMPT_TIMEOUT_MS', () => {
    expect(loadConfig(HTTP).cdnLimits).toEqual(DEFAULT_CDN_LIMITS);
    expect(
      loadConfig({
        ...HTTP,
        CDN_MAX_PAGES: '5',
        CDN_MAX_RESPONSE_BYTES: '1048576',
        CDN_OPERATION_TIMEOUT_MS: '',
        CDN_ATTEMPT_TIMEOUT_MS: '2500',
      }).cdnLimits,
    ).toEqual({
      maxPages: 5,
      maxResponseBytes: MIB,
      operationTimeoutMs: 30_000,
      attemptTimeoutMs: 2_500,
    });
    expect(DEFAULT_CDN_LIMITS.attemptTimeoutMs).toBe(10_000);
  });

  it.each([
    ['CDN_MAX_PAGES', '0', 'CDN_MAX_PAGES: must be at least 1'],
    ['CDN_MAX_PAGES', '2.5', 'CDN_MAX_PAGES: must be a whole number'],
    ['CDN_MAX_RESPONSE_BYTES', '1000', 'CDN_MAX_RESPONSE_BYTES: must be at least 65536'],
    ['CDN_MAX_RESPONSE_BYTES', 'lots', 'CDN_MAX_RESPONSE_BYTES: must be a number of bytes'],
    ['CDN_OPERATION_TIMEOUT_MS', '999999', 'CDN_OPERATION_TIMEOUT_MS: must be at most 600000'],
    ['CDN_ATTEMPT_TIMEOUT_MS', '50', 'CDN_ATTEMPT_TIMEOUT_MS: must be at least 100'],
    [
      'CDN_ATTEMPT_TIMEOUT_MS',
      '30001',
      'CDN_ATTEMPT_TIMEOUT_MS: must be at most CDN_OPERATION_TIMEOUT_MS',
    ],
  ])('refuses %s=%s, naming it', (name, value, message) => {
    expect(() => loadConfig({ ...HTTP, [name]: value })).toThrow(message);
  });
});
