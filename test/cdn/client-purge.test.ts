import { describe, expect, it } from 'vitest';
import { type PurgeProgress, planPurge } from '../../src/cdn/purge.js';
import { cdnFixture } from '../helpers/cdn.js';

const urls = (count: number, host = 'example.com') =>
  Array.from({ length: count }, (_, i) => `https://${host}/assets/${i}.js`);

const isPurge = (r: { path: string }) => r.path.endsWith('/purge');

describe('planPurge', () => {
  it('never mixes purge_everything, files and tags, and removes duplicates', () => {
    expect(planPurge({ everything: true }, 30)).toEqual([{ kind: 'everything', items: [] }]);
    const plan = planPurge({ files: ['a', 'b', 'a', 'c'], tags: ['t1', 't1'] }, 2);
    expect(plan).toEqual([
      { kind: 'files', items: ['a', 'b'] },
      { kind: 'files', items: ['c'] },
      { kind: 'tags', items: ['t1'] },
    ]);
    expect(planPurge({ files: [], tags: [] }, 30)).toEqual([]);
  });
});

describe('purge', () => {
  it('sends 95 URLs as 4 requests of at most 30', async () => {
    const { client, sandbox } = await cdnFixture();
    const zoneId = sandbox.state.byName('example.com')?.id ?? '';
    const report = await client().purge(zoneId, { files: urls(95) });

    const requests = sandbox.requests.filter(isPurge);
    expect(requests.map((r) => (r.body as { files: string[] }).files.length).sort()).toEqual(
      [30, 30, 30, 5].sort(),
    );
    expect(requests.every((r) => Object.keys(r.body as object).join() === 'files')).toBe(true);
    expect(report.ok).toBe(true);
    expect(report.purgeIds).toHaveLength(4);
    expect(sandbox.state.purges.flatMap((p) => p.items).sort()).toEqual(urls(95).sort());
  });

  it('sends files and tags in separate requests', async () => {
    const { client, sandbox } = await cdnFixture();
    const zoneId = sandbox.state.byName('example.com')?.id ?? '';
    await client().purge(zoneId, { files: urls(2), tags: ['product-42', 'css'] });
    expect(sandbox.requests.map((r) => r.body)).toEqual(
      expect.arrayContaining([{ files: urls(2) }, { tags: ['product-42', 'css'] }]),
    );
    expect(sandbox.requests).toHaveLength(2);
  });

  it('purges everything with exactly one request that carries nothing else', async () => {
    const { client, sandbox } = await cdnFixture();
    const zoneId = sandbox.state.byName('example.com')?.id ?? '';
    const report = await client().purge(zoneId, { everything: true });
    expect(sandbox.requests.map((r) => r.body)).toEqual([{ purge_everything: true }]);
    expect(report.purgeIds).toEqual([sandbox.state.purges[0]?.id]);
  });

  it('reports a failed batch as partial and retries just its URLs', async () => {
    const { client, sandbox } = await cdnFixture();
    const zoneId = sandbox.state.byName('example.com')?.id ?? '';
    // Batches run concurrently: the one that reaches the sandbox first is the one that fails.
    sandbox.inject({ kind: 'status', status: 503, method: 'POST', path: /purge$/ });
    const progress: PurgeProgress[] = [];
    const report = await client().purge(
      zoneId,
      { files: urls(95) },
      {
        onProgress: (p) => progress.push(p),
      },
    );

    expect(report.ok).toBe(false);
    expect(report.results.filter((r) => !r.ok)).toHaveLength(1);
    expect(report.failed.files).toHaveLength(report.results.find((r) => !r.ok)?.items.length ?? -1);
    expect(report.failed.tags).toEqual([]);
    expect(progress.at(-1)).toEqual({ done: 95, total: 95, failed: report.failed.files.length });
    expect(progress.map((p) => p.done)).toEqual(
      [...progress.map((p) => p.done)].sort((a, b) => a - b),
    );
    // No automatic resend of a POST that may have been applied.
    expect(sandbox.requests.filter(isPurge)).toHaveLength(4);

    const retry = await client().purge(zoneId, { files: report.failed.files });
    expect(retry.ok).toBe(true);
    expect(new Set(sandbox.state.purges.flatMap((p) => p.items))).toEqual(new Set(urls(95)));
  });

  it('keeps at most `concurrency` purge requests in flight', async () => {
    const { client, sandbox } = await cdnFixture();
    const zoneId = sandbox.state.byName('example.com')?.id ?? '';
    // Long enough that batches sent together overlap at the server even on a loaded machine.
    sandbox.inject({ kind: 'latency', ms: 150, path: /purge$/, times: 12 });
    const report = await client({ purge: { batchSize: 5, concurrency: 3 } }).purge(zoneId, {
      files: urls(60),
    });
    expect(report.results).toHaveLength(12);
    expect(report.ok).toBe(true);
    expect(sandbox.load.peak).toBeLessThanOrEqual(3);
    expect(sandbox.load.peak).toBeGreaterThanOrEqual(2);
  });

  it('refuses an empty purge without a request', async () => {
    const { client, sandbox } = await cdnFixture();
    await expect(client().purge('zone_x', { files: [] })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    expect(sandbox.requests).toHaveLength(0);
  });
});
