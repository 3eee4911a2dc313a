// The edge prober against the sandbox edge over real HTTP: what it reads, and what it refuses.
import { afterEach, describe, expect, it } from 'vitest';
import { readCacheHeaders } from '../../src/cdn/cache-status.js';
import { EdgeProber } from '../../src/cdn/edge-probe.js';
import { type SandboxEdge, startSandboxEdge } from '../../src/dev/sandbox/edge.js';
import { SandboxState } from '../../src/dev/sandbox/state.js';
import { ManualClock } from '../helpers/clock.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

async function setup(options: { timeoutMs?: number } = {}) {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const state = new SandboxState(clock, 0);
  state.seedDemo();
  const edge: SandboxEdge = await startSandboxEdge(state, { clock });
  const prober = new EdgeProber({ edgeAddress: edge.address, ...options });
  open.push(edge, prober);
  const zone = state.byName('example.com');
  if (!zone) throw new Error('no demo zone');
  const onZone = (host: string) => host === 'example.com' || host.endsWith('.example.com');
  return { clock, state, edge, prober, zone, request: { onZone, sincePurgeMs: () => 5_000 } };
}

describe('readCacheHeaders', () => {
  it('reads RFC 9211 members from the client back: the nearest hit served it', () => {
    expect(readCacheHeaders({ 'cache-status': 'Edge; hit; ttl=30' }).verdict).toBe('cached');
    expect(readCacheHeaders({ 'cache-status': 'Edge; fwd=miss; stored' }).verdict).toBe('fresh');
    expect(readCacheHeaders({ 'cache-status': 'Shield; hit, Edge; fwd=miss' }).verdict).toBe(
      'cached',
    );
    expect(
      readCacheHeaders({ 'cache-status': 'Origin; fwd=uri-miss, "Edge, Inc"; fwd=stale' }).verdict,
    ).toBe('fresh');
  });

  it('counts a hit younger than the purge as fresh (refilled since)', () => {
    const headers = { 'cache-status': 'Edge; hit; ttl=86000', age: '4' };
    expect(readCacheHeaders(headers, { sincePurgeMs: 5_000 }).verdict).toBe('fresh');
    expect(readCacheHeaders(headers, { sincePurgeMs: 3_000 }).verdict).toBe('cached');
  });

  it('falls back to X-Cache, CF-Cache-Status and Age; nothing is unknown', () => {
    expect(readCacheHeaders({ 'x-cache': 'Hit from cloudfront' }).verdict).toBe('cached');
    expect(readCacheHeaders({ 'x-cache': 'HIT, MISS' }).verdict).toBe('fresh');
    expect(readCacheHeaders({ 'cf-cache-status': 'EXPIRED' }).verdict).toBe('fresh');
    expect(
      readCacheHeaders({ 'cf-cache-status': 'HIT', age: '900' }, { sincePurgeMs: 1_000 }).verdict,
    ).toBe('cached');
    expect(readCacheHeaders({ age: '0' }).verdict).toBe('fresh');
    expect(readCacheHeaders({ 'content-type': 'text/html' }).verdict).toBe('unknown');
  });
});

describe('EdgeProber against the sandbox edge', () => {
  it('sees the old copy until the purge, then a miss, then a hit refilled since', async () => {
    const { clock, state, prober, zone, request } = await setup();
    const url = 'https://example.com/app.css';
    expect(await prober.probe(url, request)).toMatchObject({ verdict: 'cached', method: 'HEAD' });
    state.recordPurge(zone.id, 'files', [url]);
    clock.advance(1_000);
    const first = await prober.probe(url, request);
    expect(first).toMatchObject({ verdict: 'fresh' });
    expect(first.verdict !== 'unchecked' && first.evidence).toContain('fwd=miss');
    clock.advance(2_000);
    expect(await prober.probe(url, request)).toMatchObject({ verdict: 'fresh' });
  });

  it('says unknown when the edge sends no cache header', async () => {
    const { edge, prober, request } = await setup();
    edge.setMode('example.com', 'none');
    expect(await prober.probe('http://example.com/a', request)).toMatchObject({
      verdict: 'unknown',
    });
  });

  it('refuses a URL off the zone, and a redirect off it, without following', async () => {
    const { edge, prober, request } = await setup();
    expect(await prober.probe('https://evil.example.net/x', request)).toMatchObject({
      verdict: 'unchecked',
      reason: expect.stringContaining('not on the zone'),
    });
    edge.behave('example.com/go', { kind: 'redirect', location: 'http://169.254.169.254/latest' });
    const result = await prober.probe('https://example.com/go', request);
    expect(result).toMatchObject({
      verdict: 'unchecked',
      reason: expect.stringContaining('off the zone'),
    });
    expect(edge.requests.filter((r) => r.host === '169.254.169.254')).toHaveLength(0);
  });

  it('follows a redirect within the zone', async () => {
    const { edge, prober, request } = await setup();
    edge.behave('example.com/old', { kind: 'redirect', location: '/new' });
    expect(await prober.probe('https://example.com/old', request)).toMatchObject({
      verdict: 'cached',
      status: 200,
    });
    expect(edge.requests.map((r) => r.path)).toEqual(['/old', '/new']);
  });

  it('asks with GET when HEAD is refused, and reads no body: a huge one is cut off', async () => {
    const { edge, prober, request } = await setup();
    edge.behave('example.com/big.iso', { kind: 'huge-body', bytes: 512 * 1024 * 1024 });
    const done = new Promise<void>((resolve) =>
      edge.on('request', (r) => r.method === 'GET' && resolve()),
    );
    const result = await prober.probe('https://example.com/big.iso', request);
    expect(result).toMatchObject({ verdict: 'cached', method: 'GET' });
    await done;
    const get = edge.requests.find((r) => r.method === 'GET');
    // The socket is closed after the headers: at most what was in flight, never the 512 MiB.
    expect(get?.bodyBytesSent).toBeLessThan(16 * 1024 * 1024);
  });

  it('bounds a slow edge by the per-request timeout', async () => {
    const { edge, prober, request } = await setup({ timeoutMs: 300 });
    edge.behave('example.com/slow', { kind: 'slow', ms: 5_000 });
    const started = performance.now();
    const result = await prober.probe('https://example.com/slow', request);
    expect(result).toMatchObject({
      verdict: 'unchecked',
      reason: expect.stringContaining('0.3 s'),
    });
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('in production mode, refuses a host that resolves to a private address', async () => {
    const prober = new EdgeProber({
      resolve: async () => [{ address: '10.0.0.7', family: 4 }],
    });
    open.push(prober);
    const result = await prober.probe('https://example.com/app.css', {
      onZone: () => true,
      sincePurgeMs: () => 0,
    });
    expect(result).toMatchObject({
      verdict: 'unchecked',
      reason: 'example.com is not a public address; only public addresses are allowed',
    });
    const literal = await prober.probe('http://127.0.0.1/x', {
      onZone: () => true,
      sincePurgeMs: () => 0,
    });
    expect(literal).toMatchObject({
      verdict: 'unchecked',
      reason: '127.0.0.1 is not a public address; only public addresses are allowed',
    });
  });
});
