// The HTTP API for purges from CI (issue 30), over real HTTP: the bot's own server, the CDN
// sandbox, the fake Slack for approvals, SQLite (and PostgreSQL for replicas sharing a database).
// (Just over 400 lines: one status or refusal a test, sharing the token and request helpers.)
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { APPROVAL_IDS } from '../../src/blocks/ids.js';
import type { ApiTokenKind } from '../../src/services/api/api-tokens.js';
import { type ApiPurgeStatus, FINAL_STATUSES } from '../../src/store/api-purges.js';
import { BACKENDS } from '../helpers/store.js';
import { holdPurges } from './api-flows.js';
import { openApprove } from './flows.js';
import { ADMIN, CHANNEL, type Harness, startHarness } from './harness.js';

const PROBLEM = 'application/problem+json';

async function token(
  h: Harness,
  options: { zones?: string[] | null; kinds?: ApiTokenKind[]; name?: string } = {},
) {
  const { secret, token } = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
    name: options.name ?? 'deploy',
    zones: options.zones === undefined ? null : options.zones,
    kinds: options.kinds ?? ['urls_tags', 'everything'],
    channelId: CHANNEL,
  });
  return { secret, token };
}

function post(
  url: string,
  secret: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return fetch(`${url}/api/v1/purges`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(secret ? { authorization: `Bearer ${secret}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function read(url: string, secret: string, id: string, wait?: number) {
  const response = await fetch(
    `${url}/api/v1/purges/${id}${wait === undefined ? '' : `?wait=${wait}`}`,
    { headers: { authorization: `Bearer ${secret}` } },
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Reads until the status is one of `statuses`, each a final one: the first read answers at once,
 * each next one holds (`?wait`) until the status differs from the one that read starts from. The
 * error names what the reads answered.
 */
async function until(url: string, secret: string, id: string, statuses: string[]) {
  // A wait holds until the status differs from the one *it* starts from, not from the one the
  // read before it answered: waiting so for a status a purge leaves (`running`) may start on it
  // and hold its whole time. A final status ends a wait at once, so it cannot be missed.
  const notFinal = statuses.filter((s) => !FINAL_STATUSES.has(s as ApiPurgeStatus));
  if (notFinal.length > 0) throw new TypeError(`until() waits for final statuses, not ${notFinal}`);
  const answers: string[] = [];
  for (let i = 0; i < 20; i++) {
    const { status, body } = await read(url, secret, id, i === 0 ? undefined : 10);
    if (statuses.includes(String(body.status))) return body;
    answers.push(`${status} ${JSON.stringify(body)}`);
  }
  throw new Error(
    `purge ${id} never reached ${statuses.join('/')}; the reads answered (in order, each once):\n${[
      ...new Set(answers),
    ].join('\n')}`,
  );
}

/**
 * Waits until the purge's job has marked it running (read from the store, which takes no rate
 * slot), then reads it over the API. Not with `?wait` (see `until`): a read that answered `queued`,
 * then a wait that started once the purge was running, held on `running` for its 10 s, until the
 * held CDN call timed out and the purge became `unknown` (a CI failure: "never reached running").
 */
async function untilRunning(h: Harness, secret: string, id: string) {
  await vi.waitFor(
    async () =>
      expect(await h.store.apiPurges.get(id), 'the stored purge').toMatchObject({
        status: 'running',
      }),
    { timeout: 10_000, interval: 20 },
  );
  const { body } = await read(h.url, secret, id);
  expect(body.status).toBe('running');
  return body;
}

/**
 * For tests that hold the CDN's purge call (the sandbox's `hold`): its attempt never times out
 * within a test (by default it does after 10 s, and the purge becomes `unknown`).
 */
const HOLDING = { CDN_ATTEMPT_TIMEOUT_MS: '60000', CDN_OPERATION_TIMEOUT_MS: '60000' };

async function expectProblem(response: Response, status: number, type: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe(PROBLEM);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body.type).toBe(`tag:cdn-chatops,2026:problems/${type}`);
  expect(body.status).toBe(status);
  return body;
}

const purgeRows = (h: Harness) => h.store.db.selectFrom('api_purges').selectAll().execute();

describe('the purge API', () => {
  it('is off (404 problem) until the first token exists (its OpenAPI document aside: api-openapi.test.ts)', async () => {
    const h = await startHarness();
    await h.login();
    await expectProblem(await post(h.url, undefined, { zone: 'example.com' }), 404, 'not-found');
    await expectProblem(await fetch(`${h.url}/api/v1/purges/p1`), 404, 'not-found');
    const { secret } = await token(h);
    const body = { zone: 'example.com', urls: ['https://example.com/a'] };
    expect((await post(h.url, secret, body)).status).toBe(202);
  });

  it('purges URLs as a durable job: queued or running, then succeeded, audited with the token name', async () => {
    const h = await startHarness();
    await h.login();
    const { secret } = await token(h);
    const urls = Array.from({ length: 120 }, (_, i) => `https://example.com/a/${i}.css`);
    const response = await post(h.url, secret, { zone: 'example.com', urls });
    expect(response.status).toBe(202);
    const accepted = (await response.json()) as { id: string; status: string; url: string };
    expect(['queued', 'running']).toContain(accepted.status);
    expect(accepted.url).toBe(`/api/v1/purges/${accepted.id}`);
    const done = await until(h.url, secret, accepted.id, ['succeeded', 'failed', 'unknown']);
    expect(done).toEqual({
      id: accepted.id,
      status: 'succeeded',
      zone: 'example.com',
      account: 'default',
      kind: 'urls',
      progress: { done: 120, total: 120 },
    });
    expect(h.sandbox.state.purges.flatMap((p) => p.items)).toHaveLength(120);
    const audit = await h.store.audit.recent(h.workspaceId);
    expect(audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(['api.purge.requested', 'purge.urls']),
    );
    expect(audit.find((e) => e.action === 'api.purge.requested')?.detail?.token).toBe('deploy');
  });

  it('keeps a purge queued while no runner takes it, and a restarted bot finishes it under the same key', async () => {
    const h = await startHarness();
    await h.login();
    const { secret } = await token(h);
    // A process that stores the purge and stops before running it.
    await h.deps.runner.stop();
    const body = { zone: 'example.com', urls: ['https://example.com/a', 'https://example.com/b'] };
    const key = { 'idempotency-key': 'release-7' };
    const first = (await (await post(h.url, secret, body, key)).json()) as {
      id: string;
      status: string;
    };
    expect(first.status).toBe('queued');
    expect((await read(h.url, secret, first.id)).body).toMatchObject({
      status: 'queued',
      progress: { done: 0, total: 2 },
    });
    await h.restart();
    const again = (await (await post(h.url, secret, body, key)).json()) as { id: string };
    expect(again.id).toBe(first.id);
    expect((await until(h.url, secret, first.id, ['succeeded'])).progress).toEqual({
      done: 2,
      total: 2,
    });
    expect(h.sandbox.state.purges).toHaveLength(1);
  });

  it('shows a purge running while the CDN works on it, and a wait ends when it finishes', async () => {
    const h = await startHarness({ env: HOLDING });
    await h.login();
    const { secret } = await token(h);
    const release = holdPurges(h);
    const { id } = (await (
      await post(h.url, secret, { zone: 'example.com', urls: ['https://example.com/a'] })
    ).json()) as { id: string };
    expect((await untilRunning(h, secret, id)).progress).toEqual({ done: 0, total: 1 });
    const waiting = read(h.url, secret, id, 30);
    release();
    expect((await waiting).body).toMatchObject({
      status: 'succeeded',
      progress: { done: 1, total: 1 },
    });
  });

  it('is served on PORT in Socket Mode too', async () => {
    const h = await startHarness({ socket: true });
    await h.login();
    const { secret } = await token(h);
    const response = await post(h.url, secret, { zone: 'example.com', tags: ['a'] });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    expect((await until(h.url, secret, id, ['succeeded'])).status).toBe('succeeded');
  });

  it('says failed when the CDN refuses, and unknown when it never confirms', async () => {
    const h = await startHarness();
    await h.login();
    const { secret } = await token(h);
    h.sandbox.inject({ kind: 'status', status: 400, method: 'POST', path: /purge$/ });
    const failed = (await (
      await post(h.url, secret, { zone: 'example.com', tags: ['a'] })
    ).json()) as { id: string };
    const f = await until(h.url, secret, failed.id, ['succeeded', 'failed', 'unknown']);
    expect(f.status).toBe('failed');
    h.sandbox.inject({ kind: 'status', status: 503, method: 'POST', path: /purge$/, times: 10 });
    const unknown = (await (
      await post(h.url, secret, { zone: 'example.com', tags: ['b'] })
    ).json()) as { id: string };
    const u = await until(h.url, secret, unknown.id, ['succeeded', 'failed', 'unknown']);
    expect(u.status).toBe('unknown');
  });

  it('asks Slack for approval to purge everything: waiting, then running and succeeded', async () => {
    const h = await startHarness();
    await h.login();
    const { secret } = await token(h);
    const response = await post(h.url, secret, {
      zone: 'example.com',
      everything: true,
      reason: 'deploy 42',
    });
    expect(response.status).toBe(202);
    const { id, status } = (await response.json()) as { id: string; status: string };
    expect(status).toBe('waiting_for_approval');
    const [message] = await h.slack.waitForMessages(
      (m) => m.channel === CHANNEL && JSON.stringify(m.blocks ?? []).includes(APPROVAL_IDS.approve),
    );
    if (!message) throw new Error('no approval message');
    const viewId = await openApprove(h, message, ADMIN);
    await h.submit(viewId, {}, { user: ADMIN });
    const done = await until(h.url, secret, id, ['succeeded', 'failed', 'unknown']);
    expect(done).toMatchObject({ status: 'succeeded', approved_by: ADMIN, kind: 'everything' });
  });

  it('says rejected when denied, and expired when nobody decides in time', async () => {
    const h = await startHarness({ env: { API_APPROVAL_EXPIRY_MINUTES: '5' } });
    await h.login();
    const { secret } = await token(h);
    const first = (await (
      await post(h.url, secret, { zone: 'example.com', everything: true })
    ).json()) as { id: string };
    const approval = (await h.store.db.selectFrom('approvals').selectAll().execute())[0];
    if (!approval) throw new Error('no approval');
    expect(approval.expires_at - h.clock.now()).toBe(5 * 60_000);
    await h.deps.approvals.decide(approval.id, 'denied', { userId: ADMIN, note: 'not now' });
    expect((await read(h.url, secret, first.id)).body).toMatchObject({
      status: 'rejected',
      error: 'denied: not now',
    });
    const second = (await (
      await post(h.url, secret, { zone: 'example.com', everything: true })
    ).json()) as { id: string };
    h.clock.advance(5 * 60_000);
    expect((await read(h.url, secret, second.id)).body.status).toBe('expired');
  });

  it('refuses bad bodies, sizes, types and tokens with problem+json, and stores nothing', async () => {
    const h = await startHarness({ env: { API_MAX_ITEMS: '5', API_RATE_LIMIT_PER_MINUTE: '0' } });
    await h.login();
    const { secret } = await token(h, { zones: ['example.com'], kinds: ['urls_tags'] });
    await expectProblem(await post(h.url, undefined, { zone: 'example.com' }), 401, 'unauthorized');
    await expectProblem(
      await post(h.url, 'cdnb_not-a-real-token', { zone: 'example.com', tags: ['a'] }),
      401,
      'unauthorized',
    );
    await expectProblem(await post(h.url, secret, '{"zone":'), 400, 'invalid-json');
    const invalid = await expectProblem(
      await post(h.url, secret, { zone: 'example.com', urls: [], tags: ['a'] }),
      400,
      'invalid-body',
    );
    expect(Array.isArray(invalid.errors)).toBe(true);
    await expectProblem(
      await post(h.url, secret, 'zone=example.com', { 'content-type': 'text/plain' }),
      415,
      'unsupported-media-type',
    );
    await expectProblem(
      await post(h.url, secret, {
        zone: 'example.com',
        urls: Array.from({ length: 6 }, (_, i) => `https://example.com/${i}`),
      }),
      413,
      'too-many-items',
    );
    await expectProblem(
      await post(h.url, secret, { zone: 'example.com', tags: ['x'.repeat(1024 * 1024)] }),
      413,
      'body-too-large',
    );
    await expectProblem(
      await post(h.url, secret, { zone: 'static.example.com', tags: ['a'] }),
      403,
      'forbidden-zone',
    );
    await expectProblem(
      await post(h.url, secret, { zone: 'example.com', everything: true }),
      403,
      'forbidden-kind',
    );
    await expectProblem(
      await post(h.url, secret, { zone: 'example.com', urls: ['https://static.example.com/a'] }),
      400,
      'invalid-items',
    );
    const all = await token(h, { name: 'all zones' });
    await expectProblem(
      await post(h.url, all.secret, { zone: 'nope.example', tags: ['a'] }),
      404,
      'zone-not-found',
    );
    await fc.assert(
      fc.asyncProperty(fc.json(), async (body) => {
        const response = await post(h.url, secret, body);
        if (response.status === 202) return;
        expect(response.headers.get('content-type')).toBe(PROBLEM);
        await response.body?.cancel();
      }),
      { numRuns: 40 },
    );
    expect(await purgeRows(h)).toEqual([]);
    expect(h.sandbox.state.purges).toEqual([]);
  });

  it('fails a purge a crash left without its job or approval, after two minutes', async () => {
    const h = await startHarness();
    await h.login();
    const { secret, token: made } = await token(h);
    const stranded = (kind: 'urls' | 'everything') =>
      h.store.apiPurges.insertOrGet({
        workspaceId: h.workspaceId,
        tokenId: made.id,
        tokenName: made.name,
        idempotencyKey: null,
        bodyHash: 'h',
        zoneId: 'z',
        zoneName: 'example.com',
        accountId: made.accountId ?? '',
        accountName: 'default',
        kind,
        status: kind === 'urls' ? 'queued' : 'waiting_for_approval',
        total: 1,
        reason: null,
        context: null,
      });
    const urls = (await stranded('urls')).purge;
    const everything = (await stranded('everything')).purge;
    const started = (await (
      await post(h.url, secret, { zone: 'example.com', tags: ['a'] })
    ).json()) as { id: string };
    await until(h.url, secret, started.id, ['succeeded']);
    expect(await h.deps.apiPurges.recover()).toBe(0);
    h.clock.advance(3 * 60_000);
    expect(await h.deps.apiPurges.recover()).toBe(2);
    expect((await read(h.url, secret, urls.id)).body.status).toBe('failed');
    expect((await read(h.url, secret, everything.id)).body.status).toBe('failed');
    expect((await read(h.url, secret, started.id)).body.status).toBe('succeeded');
  });

  it('answers 429 with Retry-After past the per-token limit', async () => {
    const h = await startHarness({ env: { API_RATE_LIMIT_PER_MINUTE: '2' } });
    await h.login();
    const { secret } = await token(h);
    const missing = () =>
      fetch(`${h.url}/api/v1/purges/none`, {
        headers: { authorization: `Bearer ${secret}` },
      });
    await expectProblem(await missing(), 404, 'purge-not-found');
    await expectProblem(await missing(), 404, 'purge-not-found');
    const limited = await missing();
    await expectProblem(limited, 429, 'rate-limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('the purge API under a burst', () => {
  /**
   * A POST for a zone the index does not have, looked up at the CDN, which holds its answer until
   * `release`: it holds its turn meanwhile.
   */
  async function holdingTurn(h: Harness, secret: string) {
    let release = () => {};
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = new Promise<void>((onHeld) =>
      h.sandbox.inject({ kind: 'hold', until, onHeld, method: 'GET', path: /^\/zones/, times: 1 }),
    );
    const answered = post(h.url, secret, { zone: 'held.example', tags: ['held'] });
    await held;
    return { answered, release };
  }

  it('works on API_MAX_IN_FLIGHT requests at once, answers 503 busy past its queue; a wait holds no turn', async () => {
    const h = await startHarness({
      env: { API_MAX_IN_FLIGHT: '1', API_MAX_QUEUED: '0', ...HOLDING },
    });
    await h.login();
    const { secret } = await token(h);
    const { secret: holder } = await token(h, { name: 'holder' });
    const { id } = (await (
      await post(h.url, secret, { zone: 'example.com', urls: ['https://example.com/w'] })
    ).json()) as { id: string };
    await until(h.url, secret, id, ['succeeded']);
    // A POST in its turn holds the one turn (its zone looked up at the CDN).
    const first = await holdingTurn(h, holder);
    const busy = await post(h.url, secret, {
      zone: 'example.com',
      urls: ['https://example.com/b'],
    });
    await expectProblem(busy, 503, 'busy');
    expect(busy.headers.get('retry-after')).toBe('1');
    first.release();
    await expectProblem(await first.answered, 404, 'zone-not-found');
    // A read held by ?wait takes no turn: a POST beside it is answered, not refused as busy.
    const release = holdPurges(h);
    const { id: running } = (await (
      await post(h.url, secret, { zone: 'example.com', urls: ['https://example.com/r'] })
    ).json()) as { id: string };
    await untilRunning(h, secret, running);
    const waiting = read(h.url, secret, running, 30);
    // (Until the read has reached its wait, it holds the turn for a moment: asked again then.)
    await vi.waitFor(
      async () => {
        const beside = await post(h.url, secret, { zone: 'example.com', tags: ['beside'] });
        expect(beside.status).toBe(202);
      },
      { timeout: 10_000, interval: 50 },
    );
    release();
    expect((await waiting).body.status).toBe('succeeded');
  });
});

describe.each(BACKENDS)('the purge API on two replicas ($backend)', ({ backend, skip }) => {
  it.skipIf(skip)(
    'gives the same purge for the same Idempotency-Key on either replica, 409 for another body',
    async () => {
      const h = await startHarness({ backend });
      await h.login();
      const { secret } = await token(h);
      const other = await h.replica();
      const body = { zone: 'example.com', tags: ['release-1'] };
      const key = { 'idempotency-key': 'deploy-42' };
      const [a, b] = await Promise.all([
        post(h.url, secret, body, key),
        post(other.url, secret, body, key),
      ]);
      expect(a.status).toBe(202);
      expect(b.status).toBe(202);
      const idA = ((await a.json()) as { id: string }).id;
      const idB = ((await b.json()) as { id: string }).id;
      expect(idA).toBe(idB);
      await expectProblem(
        await post(other.url, secret, { ...body, tags: ['release-2'] }, key),
        409,
        'idempotency-conflict',
      );
      await until(h.url, secret, idA, ['succeeded']);
      expect(h.sandbox.state.purges).toHaveLength(1);
      expect(await purgeRows(h)).toHaveLength(1);
    },
  );

  it.skipIf(skip)(
    'holds a read on one replica until the approval decided on the other',
    async () => {
      const h = await startHarness({ backend });
      await h.login();
      const { secret } = await token(h);
      const other = await h.replica();
      const { id } = (await (
        await post(h.url, secret, { zone: 'example.com', everything: true })
      ).json()) as { id: string };
      const approval = (await h.store.db.selectFrom('approvals').select('id').execute())[0];
      if (!approval) throw new Error('no approval');
      const waiting = read(other.url, secret, id, 30);
      const started = Date.now();
      const denied = await h.deps.approvals.decide(approval.id, 'denied', { userId: ADMIN });
      expect(denied.won).toBe(true);
      expect((await waiting).body.status).toBe('rejected');
      expect(Date.now() - started).toBeLessThan(5_000);
    },
  );

  it.skipIf(skip)(
    'holds reads of URL purges until another replica changes them (one reader for all waits)',
    async () => {
      const h = await startHarness({ backend, env: HOLDING });
      await h.login();
      const { secret } = await token(h);
      const other = await h.replica();
      const release = holdPurges(h, 2);
      const ids: string[] = [];
      for (const url of ['https://example.com/x', 'https://example.com/y']) {
        const { id } = (await (
          await post(h.url, secret, { zone: 'example.com', urls: [url] })
        ).json()) as {
          id: string;
        };
        await untilRunning(h, secret, id);
        ids.push(id);
      }
      const [first, second] = ids as [string, string];
      const waits = [read(other.url, secret, first, 30), read(other.url, secret, second, 30)];
      // Written as another replica would: nothing on `other` is told but through the store.
      const started = Date.now();
      await h.store.apiPurges.update(first, { status: 'unknown', error: 'test' });
      await h.store.apiPurges.update(second, { status: 'failed', error: 'test' });
      expect((await waits[0])?.body.status).toBe('unknown');
      expect((await waits[1])?.body.status).toBe('failed');
      expect(Date.now() - started).toBeLessThan(5_000);
      release();
    },
  );

  it.skipIf(skip)('refuses a revoked token on the other replica within a second', async () => {
    const h = await startHarness({ backend });
    await h.login();
    const { secret, token: made } = await token(h);
    const other = await h.replica();
    const body = { zone: 'example.com', tags: ['a'] };
    expect((await post(other.url, secret, body)).status).toBe(202);
    await h.store.apiTokens.revoke(h.workspaceId, made.id, ADMIN);
    const started = Date.now();
    await expectProblem(await post(other.url, secret, body), 401, 'unauthorized');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
