// Purges from CI against Slack's rate limits (issue 30), over real HTTP: 30 API purges of one
// channel's zones at once, with the fake Slack's one post a second per channel on and more 429s
// injected. Each purge's one message ends final, no call goes before a 429's Retry-After has
// passed, and neither the CDN work nor the API's status waits for Slack. The clock moves only when
// nothing else can happen (`drive`): every time below is the fake's.
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import type { ApiCall, RefusedCall } from '../../src/dev/fake-slack/server.js';
import { ADMIN, CHANNEL, type Harness, startHarness } from './harness.js';

const PURGES = 30;
/** 5 requests of 30 URLs, 4 at a time: each purge passes its first third while running. */
const URLS = 150;
const FINAL = `Purged ${URLS} items on example.com`;

function post(h: Harness, secret: string, n: number) {
  const urls = Array.from({ length: URLS }, (_, i) => `https://example.com/ci/${n}/${i}.css`);
  return fetch(`${h.url}/api/v1/purges`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ zone: 'example.com', urls }),
  });
}

/** The earliest time a job waits for (released to try again later), if any. */
async function nextRunAt(h: Harness): Promise<number | undefined> {
  const row = await h.store.db
    .selectFrom('jobs')
    .select(sql<number | null>`min(run_at)`.as('at'))
    .where('state', '=', 'queued')
    .where('run_at', '>', h.clock.now())
    .executeTakeFirst();
  return row?.at == null ? undefined : Number(row.at);
}

/**
 * Moves the clock until `done`, each time only once the bot is idle (no job running or due) or
 * waiting on the clock, and only as far as the next thing it waits for (a sleep, a job's retry).
 * Returns when done, or when nothing is left to wait for within `maxMs`.
 */
async function drive(h: Harness, done: () => boolean, maxMs = 10 * 60_000): Promise<void> {
  const end = h.clock.now() + maxMs;
  while (!done()) {
    await Promise.race([h.deps.runner.settled(), h.clock.sleepers(1)]);
    if (done()) return;
    const next = Math.min(h.clock.nextWake() ?? Infinity, (await nextRunAt(h)) ?? Infinity);
    if (!Number.isFinite(next) || next > end) return;
    h.clock.advance(Math.max(0, next - h.clock.now()));
    h.deps.runner.lookNow();
  }
}

/** Slack's window of a call: a post's is its channel's, an edit's the workspace's (Tier 3). */
function windowOf(call: { method: string; args: Record<string, unknown> }): string {
  return call.method === 'chat.postMessage'
    ? `${call.method}:${String(call.args.channel)}`
    : call.method;
}

/** Calls answered after a 429 of their window, and before its Retry-After had passed. */
function tooSoon(calls: ApiCall[], refused: RefusedCall[]) {
  const all = [...calls, ...refused];
  return refused.flatMap((r) =>
    all
      .filter(
        (c) =>
          c.seq > r.seq && windowOf(c) === windowOf(r) && c.at < r.at + r.retryAfterSeconds * 1_000,
      )
      .map(
        (c) => `${windowOf(c)} at +${c.at - r.at} ms after a 429 saying ${r.retryAfterSeconds} s`,
      ),
  );
}

/** Slack refusing `method` the next `times` calls, saying to wait `seconds`. */
function ratelimited(h: Harness, method: string, seconds: number, times: number) {
  h.slack.inject({
    method,
    kind: 'status',
    status: 429,
    // Slack's answer to a call over its rate: https://api.slack.com/apis/rate-limits.
    headers: { 'retry-after': String(seconds) },
    body: '{"ok":false,"error":"ratelimited"}',
    times,
  });
}

/**
 * 30 purges of 150 URLs at once, by a token of CHANNEL, with Slack's one post a second per channel
 * on; `refuse` says what Slack refuses besides, from the start (`before`) or once their CDN work is
done (`meanwhile`). Checks what must hold whatever Slack refuses:
 * the CDN asked once per batch and the API's statuses final before the clock moves (nothing waits
 * on Slack), then one final message per purge, no call before a 429's Retry-After had passed.
 */
async function thirtyAtOnce(
  refuse: { before?: (h: Harness) => void; meanwhile?: (h: Harness) => void } = {},
) {
  const h = await startHarness({
    slack: { channelRateLimit: true },
    env: { API_RATE_LIMIT_PER_MINUTE: '0' },
  });
  await h.login();
  const { secret } = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
    name: 'deploy-bot',
    zones: ['example.com'],
    kinds: ['urls_tags'],
    channelId: CHANNEL,
  });
  refuse.before?.(h);
  const start = h.clock.now();
  const ids = await Promise.all(
    Array.from({ length: PURGES }, async (_, n) => {
      const response = await post(h, secret, n);
      expect(response.status).toBe(202);
      return ((await response.json()) as { id: string }).id;
    }),
  );

  // The CDN work and the API's status first, with the clock standing still.
  const statuses = async () =>
    [...(await h.store.apiPurges.many(ids)).values()].map((purge) => purge.status);
  const finalAtOnce = await vi
    .waitFor(async () => expect(await statuses()).toEqual(ids.map(() => 'succeeded')), {
      timeout: 10_000,
      interval: 50,
    })
    .then(
      () => true,
      () => false,
    );
  expect.soft(finalAtOnce, 'every purge succeeded before the clock moved').toBe(true);
  const purgeRequests = () =>
    h.sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/purge'));
  expect.soft(purgeRequests().length, 'CDN requests before the clock moved').toBe(PURGES * 5);

  // Then Slack, as its limits allow.
  refuse.meanwhile?.(h);
  const posted = () => h.slack.messages.filter((m) => m.via === 'api' && m.channel === CHANNEL);
  await drive(h, () => posted().filter((m) => m.text === FINAL).length >= PURGES);

  // One message per purge, each final, whatever Slack refused on the way.
  const messages = posted();
  const owners = messages.map((m) =>
    ids.findIndex((_, n) => JSON.stringify(m.blocks).includes(`/ci/${n}/0.css`)),
  );
  expect.soft(owners.sort((a, b) => a - b)).toEqual(ids.map((_, n) => n));
  expect.soft(messages.filter((m) => m.text !== FINAL).map((m) => m.text)).toEqual([]);
  // Every 429 honoured: nothing of its window until its Retry-After had passed.
  expect.soft(tooSoon(h.slack.calls, h.slack.refusedCalls)).toEqual([]);
  // The CDN was asked once per batch, never again, and all of it before the clock moved.
  expect(purgeRequests()).toHaveLength(PURGES * 5);
  expect(purgeRequests().filter((r) => r.at !== start)).toEqual([]);
  expect(await statuses()).toEqual(ids.map(() => 'succeeded'));
  return { h, messages, elapsedMs: h.clock.now() - start };
}

describe('purges from CI against Slack’s rate limits', () => {
  it('30 at once in one channel: one post a second, the purges and their statuses never waiting', async () => {
    const { h, messages, elapsedMs } = await thirtyAtOnce();
    // Paced (a post every 1.2 s), so Slack's own limit never had to refuse one.
    expect(h.slack.refusedCalls).toEqual([]);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(messages.length);
    expect(elapsedMs).toBeLessThanOrEqual(PURGES * 1_200);
  }, 90_000);

  it('30 at once while Slack refuses posts and edits again and again: none lost, none left "Purging…"', async () => {
    const { h, messages } = await thirtyAtOnce({
      // The edit of those that said "Purging…", from the start; once the purges are done, their
      // results' posts.
      before: (h) => ratelimited(h, 'chat.update', 20, 3),
      meanwhile: (h) => ratelimited(h, 'chat.postMessage', 10, 12),
    });
    const refused = h.slack.refusedCalls.filter((r) => r.by === 'fault').map((r) => r.method);
    expect(refused.filter((m) => m === 'chat.postMessage')).toHaveLength(12);
    expect(refused.filter((m) => m === 'chat.update')).toHaveLength(3);
    // Those that said "Purging…" first were edited into their result, however long it took.
    const edited = messages.filter((m) => m.history.length > 0);
    expect(edited.length).toBeGreaterThan(0);
    for (const m of edited) expect(m.history[0]?.text).toMatch(/^Purging: /);
  }, 90_000);
});
