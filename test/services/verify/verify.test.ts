// Purge verification as the app builds it: purges through the CDN sandbox, then each URL asked of
// the sandbox edge over real HTTP by the verify job (real store, real job runner): fresh, still
// cached (and purged again through the purge service), no headers, bounded in time.
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { JobRunner } from '../../../src/jobs/runner.js';
import { createLogger } from '../../../src/logger.js';
import type { ReplyTo } from '../../../src/services/reply.js';
import { VERIFY_JOB } from '../../../src/services/verify/verify.js';
import { BACKENDS, type Backend } from '../../helpers/store.js';
import { callerOf, opened, purgeSetup } from '../purge-setup.js';

const ALICE = callerOf('U1');
const CHANNEL = 'C1';
const REPLY: ReplyTo = { userId: 'U1', channelId: CHANNEL, issuedAt: 0, visibility: 'in_channel' };
const URLS = ['https://example.com/app.css', 'https://example.com/app.js'];

afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

async function setup(backend: Backend, options: Parameters<typeof purgeSetup>[1] = {}) {
  const t = await purgeSetup(backend, options);
  /** `/cdn purge <words>`, as the command starts it, run to its end (and its verification's). */
  const purge = async (words: string) => {
    const args = t.items(words);
    const plan = await t.purges.plan(ALICE, CHANNEL, args);
    await t.purges.start(plan, REPLY, args.verify ? { verify: true } : {});
    await t.runner.settled();
    return t.finished.at(-1);
  };
  return { ...t, purge };
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`verifying a purge at the edge (${backend})`, () => {
    it('a purge asked with --verify checks its URLs by itself: fresh once the edge dropped them', async () => {
      const t = await setup(backend);
      await t.purge(`example.com ${URLS.join(' ')} --verify`);
      expect(t.verified).toHaveLength(1);
      const [summary] = t.verified;
      expect(summary?.counts).toEqual({ fresh: 2, cached: 0, unknown: 0, unchecked: 0 });
      expect(summary?.auto).toBe(true);
      expect(summary?.results.map((r) => r.url)).toEqual(URLS);
      // HEAD only, to the purged URLs' own host.
      expect(t.edge.requests.map((r) => `${r.method} ${r.host}${r.path}`)).toEqual([
        'HEAD example.com/app.css',
        'HEAD example.com/app.js',
      ]);
    });

    it('says still cached while the edge serves the old copy, and "Purge again" purges just those', async () => {
      const t = await setup(backend, { purgeDelayMs: 60_000 });
      const outcome = await t.purge(`example.com ${URLS.join(' ')}`);
      expect(t.verified).toHaveLength(0);
      const record = outcome?.runs[0]?.job.id ?? '';
      const asked = await t.verify.verify(ALICE, CHANNEL, record, REPLY);
      expect(asked.created).toBe(true);
      // A second click in the same window: the same verification, not a second one.
      expect((await t.verify.verify(ALICE, CHANNEL, record, REPLY)).created).toBe(false);
      await t.runner.settled();
      expect(t.verified[0]?.counts).toMatchObject({ fresh: 0, cached: 2 });
      expect(t.verified[0]?.auto).toBe(false);

      const before = t.purgeRequests().length;
      await t.verify.purgeAgain(ALICE, CHANNEL, asked.jobId, REPLY);
      await t.runner.settled();
      expect(t.purgeRequests().slice(before)).toEqual([{ zone: 'example.com', files: URLS }]);
    });

    it('says unknown when the edge sends no cache header', async () => {
      const t = await setup(backend);
      t.edge.setMode('example.com', 'none');
      await t.purge(`example.com ${URLS[0]} --verify`);
      expect(t.verified[0]?.counts).toMatchObject({ unknown: 1 });
    });

    it('refuses to verify a purge of tags only, a purge of another workspace, and an empty re-purge', async () => {
      const t = await setup(backend);
      const outcome = await t.purge('example.com tag:css');
      const record = outcome?.runs[0]?.job.id ?? '';
      await expect(t.verify.verify(ALICE, CHANNEL, record, REPLY)).rejects.toMatchObject({
        problem: { code: 'nothing_to_verify' },
      });
      const outsider = { ...ALICE, workspaceId: 'T2' };
      await expect(t.verify.verify(outsider, CHANNEL, record, REPLY)).rejects.toBeInstanceOf(
        AppError,
      );
      await t.purge(`example.com ${URLS[0]} --verify`);
      await expect(
        t.verify.purgeAgain(ALICE, CHANNEL, t.verified[0]?.jobId ?? '', REPLY),
      ).rejects.toMatchObject({ problem: { code: 'nothing_to_repurge' } });
    });

    it('bounds a slow edge by the whole check’s time: what is left is not checked, and says why', async () => {
      const t = await setup(backend, {
        verifyLimits: { totalMs: 1_500 },
        probe: { timeoutMs: 30_000 },
      });
      t.edge.behave('example.com/app.js', { kind: 'slow', ms: 20_000 });
      await t.purge(`example.com ${URLS.join(' ')}`);
      const started = performance.now();
      await t.verify.verify(ALICE, CHANNEL, t.finished[0]?.runs[0]?.job.id ?? '', REPLY);
      await t.runner.settled();
      // The whole check's 1.5 s, not the edge's 20 s nor the request's 30 s.
      expect(performance.now() - started).toBeLessThan(10_000);
      const results = t.verified[0]?.results ?? [];
      expect(results.find((r) => r.url === URLS[0])?.verdict).toBe('fresh');
      expect(results.find((r) => r.url === URLS[1])).toMatchObject({
        verdict: 'unchecked',
        reason: 'the verification ran out of time',
      });
    });

    it('refuses a redirect off the zone, and reads no body of a GET when HEAD is refused', async () => {
      const t = await setup(backend);
      t.edge.behave('example.com/app.css', { kind: 'redirect', location: 'https://evil.test/x' });
      t.edge.behave('example.com/app.js', { kind: 'huge-body', bytes: 256 * 1024 * 1024 });
      await t.purge(`example.com ${URLS.join(' ')} --verify`);
      const results = t.verified[0]?.results ?? [];
      expect(results.find((r) => r.url === URLS[0])).toMatchObject({
        verdict: 'unchecked',
        reason: 'redirected off the zone, to evil.test; not followed',
      });
      expect(results.find((r) => r.url === URLS[1])).toMatchObject({
        verdict: 'fresh',
        method: 'GET',
      });
      const get = await new Promise<number>((resolve) => {
        const check = () => {
          const sent = t.edge.requests.find((r) => r.method === 'GET');
          if (sent) resolve(sent.bodyBytesSent);
          else t.edge.once('request', check);
        };
        check();
      });
      expect(get).toBeLessThan(16 * 1024 * 1024);
      expect(t.edge.requests.some((r) => r.host === 'evil.test')).toBe(false);
    });

    it('in production, refuses a URL whose host resolves to a private address: nothing is asked', async () => {
      const t = await setup(backend, {
        production: true,
        probe: { resolve: async () => [{ address: '192.168.1.20', family: 4 }] },
      });
      await t.purge(`example.com ${URLS[0]} --verify`);
      expect(t.verified[0]?.results[0]).toMatchObject({
        verdict: 'unchecked',
        reason: 'example.com is not a public address; only public addresses are allowed',
      });
      expect(t.edge.requests).toEqual([]);
    });

    it('asks the edge for at most `concurrency` URLs at once', async () => {
      const t = await setup(backend, { verifyLimits: { concurrency: 3 } });
      const urls = Array.from({ length: 12 }, (_, i) => `https://example.com/f${i}.css`);
      // Each answer takes a while, so the requests in flight pile up to the bound.
      for (const url of urls) t.edge.behave(url.slice('https://'.length), { kind: 'slow', ms: 40 });
      let inFlight = 0;
      let peak = 0;
      t.edge.on('arrived', () => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
      });
      t.edge.on('request', () => {
        inFlight -= 1;
      });
      await t.purge(`example.com ${urls.join(' ')} --verify`);
      expect(t.verified[0]?.counts).toMatchObject({ fresh: 12 });
      expect(t.edge.requests).toHaveLength(12);
      expect(peak).toBeLessThanOrEqual(3);
      expect(peak).toBeGreaterThan(1);
    });

    it('a stop pauses it between URLs, and another process finishes it, asking each URL once', async () => {
      const t = await setup(backend, { verifyLimits: { concurrency: 1 }, purgeDelayMs: 60_000 });
      t.edge.behave('example.com/app.css', { kind: 'slow', ms: 300 });
      const outcome = await t.purge(`example.com ${URLS.join(' ')}`);
      await t.verify.verify(ALICE, CHANNEL, outcome?.runs[0]?.job.id ?? '', REPLY);
      // The first URL is being asked: the process stops; that answer is kept, the next not asked.
      await new Promise<void>((resolve) => t.edge.once('arrived', () => resolve()));
      await t.runner.stop();
      expect(t.verified).toEqual([]);
      expect(t.edge.requests.map((r) => r.path)).toEqual(['/app.css']);
      const next = new JobRunner({
        jobs: t.store.jobs,
        clock: t.clock,
        logger: createLogger({ level: 'silent' }),
        pollMs: 20,
      });
      next.register(VERIFY_JOB, t.verify.job);
      next.start();
      opened.push(() => next.stop());
      await next.settled();
      expect(t.edge.requests.map((r) => r.path)).toEqual(['/app.css', '/app.js']);
      expect(t.verified).toHaveLength(1);
      expect(t.verified[0]?.counts).toMatchObject({ cached: 2 });
    });
  });
}
