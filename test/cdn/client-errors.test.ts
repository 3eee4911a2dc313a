import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CdnClient } from '../../src/cdn/client.js';
import { CDN_ERROR_CODES, type CdnError } from '../../src/cdn/errors.js';
import { CdnTransport } from '../../src/cdn/transport.js';
import { answer200, cdnFixture, failure } from '../helpers/cdn.js';
import { InstantClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import { freePort } from '../helpers/net.js';

describe('error codes', () => {
  it('maps every failure to its code', async () => {
    const { client, sandbox } = await cdnFixture();
    const seen = new Map<string, CdnError>();
    const record = async (promise: Promise<unknown>) => {
      const error = await failure(promise);
      seen.set(error.code, error);
    };
    const zoneId = sandbox.state.byName('example.com')?.id ?? '';
    const noRetry = client({ retry: { maxRetries: 0 } });

    await record(client({ apiKey: 'wrong' }).listZones());
    sandbox.inject({ kind: 'status', status: 403 });
    await record(noRetry.listZones());
    await record(
      noRetry.purge('zone_missing', { everything: true }).then((r) => {
        throw r.results[0]?.ok === false ? r.results[0].error : new Error('purge did not fail');
      }),
    );
    await record(noRetry.createZone({ name: 'example.com' }));
    await record(
      noRetry.purge(zoneId, { files: ['https://elsewhere.org/x'] }).then((r) => {
        throw r.results[0]?.ok === false ? r.results[0].error : new Error('purge did not fail');
      }),
    );
    sandbox.inject({ kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    await record(noRetry.listZones());
    sandbox.inject({ kind: 'status', status: 503 });
    await record(noRetry.listZones());
    sandbox.inject({ kind: 'hang' });
    await record(client({ timeoutMs: 200, retry: { maxRetries: 0 } }).listZones());
    await record(
      client({
        baseUrl: `http://127.0.0.1:${await freePort()}/v1`,
        retry: { maxRetries: 0 },
      }).listZones(),
    );
    sandbox.inject({ kind: 'malformed' });
    await record(noRetry.listZones());
    // A workspace's own base URL pointing at loopback: refused before any connection.
    await record(client({ untrusted: true, retry: { maxRetries: 0 } }).listZones());

    expect([...seen.keys()].sort()).toEqual([...CDN_ERROR_CODES].sort());
    expect(seen.get('unauthorized')).toMatchObject({ status: 401, message: 'Invalid API key' });
    expect(seen.get('not_found')).toMatchObject({ status: 404, message: 'No such zone' });
    expect(seen.get('invalid_request')?.message).toContain('outside the zone example.com');
    expect(seen.get('rate_limited')).toMatchObject({ status: 429, retryAfterMs: 1000 });
    expect(seen.get('timeout')?.message).toMatch(
      /^The CDN at 127\.0\.0\.1:\d+ did not answer within 0\.2 s$/,
    );
    expect(seen.get('network')?.message).toContain('connection refused (ECONNREFUSED)');
    expect(seen.get('blocked_address')?.message).toBe(
      '127.0.0.1 is not a public address; only public addresses are allowed',
    );
  });

  it('treats a 200 with success: false as a refusal', async () => {
    const { client, sandbox } = await cdnFixture();
    answer200(sandbox, { success: false, errors: [{ code: 1003, message: 'Zone is locked' }] });
    const zoneId = sandbox.state.byName('example.com')?.id ?? '';
    const report = await client().purge(zoneId, { everything: true });
    expect(report.ok).toBe(false);
    expect(report.results[0]).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });
});

describe('error messages in any common shape', () => {
  const shapes: Array<[string, unknown, string]> = [
    [
      'errors[].message',
      { success: false, errors: [{ code: 9, message: 'Bad zone' }] },
      'Bad zone',
    ],
    ['errors[] of strings', { errors: ['first', 'second'] }, 'first; second'],
    ['error string', { error: 'Quota exceeded' }, 'Quota exceeded'],
    ['error object', { error: { code: 'x', message: 'Nested message' } }, 'Nested message'],
    ['message', { message: 'Plain message' }, 'Plain message'],
    ['detail (RFC 7807)', { type: 'about:blank', title: 'Bad', detail: 'Detailed' }, 'Detailed'],
    [
      'detail list (FastAPI)',
      { detail: [{ loc: ['body'], msg: 'field required' }] },
      'field required',
    ],
    ['title only', { type: 'about:blank', title: 'Conflict title' }, 'Conflict title'],
    ['plain text', 'upstream connect error\nmore', 'upstream connect error'],
    ['HTML page', '<html><body>502 Bad Gateway</body></html>', '400 Bad Request'],
    ['empty body', '', '400 Bad Request'],
  ];

  it.each(shapes)('reads %s', async (_name, body, expected) => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 400, body });
    const error = await failure(client().listZones());
    expect(error.message).toBe(expected);
    expect(error.code).toBe('invalid_request');
  });

  it('keeps the request id header', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 400, headers: { 'x-request-id': 'req-42' } });
    expect(await failure(client().listZones())).toMatchObject({ requestId: 'req-42' });
  });
});

describe('retries', () => {
  it('retries a GET on 5xx with full-jitter backoff', async () => {
    const { client, sandbox, clock } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 503, times: 2 });
    const page = await client().listZones();
    expect(page.total).toBe(9);
    expect(sandbox.requests).toHaveLength(3);
    // random() = 0.5: half of 250 ms, then half of 500 ms.
    expect(clock.sleeps).toEqual([125, 250]);
  });

  it('draws each wait uniformly below the doubling ceiling', async () => {
    const { client, sandbox, clock } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 500, times: 3 });
    await client({ random: () => 0.999 }).listZones();
    expect(clock.sleeps).toEqual([249, 499, 999]);
  });

  it('honours Retry-After in seconds and as an HTTP date', async () => {
    const { client, sandbox, clock } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 429, headers: { 'retry-after': '3' } });
    sandbox.inject({
      kind: 'status',
      status: 503,
      headers: { 'retry-after': new Date(clock.now() + 3_000 + 5_000).toUTCString() },
    });
    await client().listZones();
    expect(clock.sleeps).toEqual([3_000, 5_000]);
  });

  it('gives up at once when Retry-After is beyond the 20 s budget', async () => {
    const { client, sandbox, clock } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 429, headers: { 'retry-after': '60' } });
    const error = await failure(client().listZones());
    expect(error).toMatchObject({ code: 'rate_limited', retryAfterMs: 60_000 });
    expect(clock.sleeps).toEqual([]);
    expect(sandbox.requests).toHaveLength(1);
  });

  it('stops after 3 retries', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'status', status: 502, times: 10 });
    await expect(client().listZones()).rejects.toMatchObject({ code: 'unavailable' });
    expect(sandbox.requests).toHaveLength(4);
  });

  it('retries a GET after a dropped connection and a timeout', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'reset' });
    sandbox.inject({ kind: 'hang' });
    const page = await client({ timeoutMs: 200 }).listZones();
    expect(page.total).toBe(9);
    expect(sandbox.requests).toHaveLength(3);
  });

  it('retries a POST on 429 but never on 5xx or a dropped connection', async () => {
    const { client, sandbox } = await cdnFixture();
    const zoneId = sandbox.state.byName('example.com')?.id ?? '';
    sandbox.inject({ kind: 'status', status: 429, method: 'POST' });
    expect((await client().purge(zoneId, { tags: ['a'] })).ok).toBe(true);
    expect(sandbox.requests).toHaveLength(2);

    sandbox.inject({ kind: 'status', status: 500, method: 'POST' });
    expect((await client().purge(zoneId, { tags: ['b'] })).ok).toBe(false);
    sandbox.inject({ kind: 'reset', method: 'POST' });
    expect((await client().purge(zoneId, { tags: ['c'] })).ok).toBe(false);
    expect(sandbox.requests).toHaveLength(4);
  });

  it('retries a POST whose connection was refused, since nothing was sent', async () => {
    const clock = new InstantClock();
    const transport = new CdnTransport();
    const client = new CdnClient({
      baseUrl: `http://127.0.0.1:${await freePort()}/v1`,
      apiKey: 'k',
      transport,
      clock,
      random: () => 0.5,
    });
    await expect(client.createZone({ name: 'a.example.dev' })).rejects.toMatchObject({
      code: 'network',
    });
    expect(clock.sleeps).toHaveLength(3);
    await transport.close();
  });

  it('stops waiting when the caller aborts', async () => {
    const { client, sandbox } = await cdnFixture();
    sandbox.inject({ kind: 'hang' });
    const controller = new AbortController();
    const pending = client().listZones({}, { signal: controller.signal });
    await sandbox.waitFor(() => true);
    controller.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
  });
});

describe('the API key', () => {
  it('never appears in logs, errors or the client', async () => {
    const apiKey = 'sk_live_9f8e7d6c5b4a39281706';
    const logs = captureLogs('trace');
    const { client, sandbox } = await cdnFixture({ apiKeys: [apiKey] });
    const c = client({ apiKey, logger: logs.logger });
    const errors: unknown[] = [];
    const zoneId = sandbox.state.byName('example.com')?.id ?? '';

    await c.listZones();
    sandbox.inject({ kind: 'status', status: 503, times: 2 });
    await c.listZones();
    // A server that echoes the request back, header included.
    sandbox.inject({ kind: 'status', status: 400, body: { error: `bad header Bearer ${apiKey}` } });
    errors.push(await failure(c.listZones()));
    sandbox.inject({ kind: 'hang' });
    errors.push(
      await failure(
        client({
          apiKey,
          logger: logs.logger,
          timeoutMs: 100,
          retry: { maxRetries: 0 },
        }).listZones(),
      ),
    );
    errors.push(await failure(client({ apiKey: 'other', logger: logs.logger }).listZones()));
    const report = await c.purge(zoneId, { files: ['https://evil.test/'] });
    errors.push(...report.results.flatMap((r) => (r.ok ? [] : [r.error])));

    expect(logs.lines.length).toBeGreaterThan(3);
    expect(errors).toHaveLength(4);
    const everything = [
      logs.text(),
      ...errors.map((e) => inspect(e, { depth: 10 })),
      ...errors.map((e) => JSON.stringify(e)),
      inspect(c, { depth: 10, showHidden: true }),
      JSON.stringify(c),
    ].join('\n');
    expect(everything).not.toContain(apiKey);
    expect((errors[0] as Error).message).toBe('bad header Bearer [redacted]');
  });
});
