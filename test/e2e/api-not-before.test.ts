// Purges for later over the HTTP API (`not_before`), over real HTTP with an injected clock: stored
// as scheduled purges, run once at their time and not before (the crash repair leaves them be),
// checked again then (token, freezes), cancelled from Slack, and refused with a 400 problem when
// the time is not one they can wait for.
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS } from '../../src/blocks/ids.js';
import { hashApiToken } from '../../src/services/api/api-tokens.js';
import { SCHEDULED_PURGE_JOB } from '../../src/services/purge/scheduled-purges.js';
import { expectProblem, finalPurge, postPurge } from './api-flows.js';
import { commandReply, everythingRequests, openApprove } from './flows.js';
import { ADMIN, CHANNEL, type Harness, startHarness, textOf } from './harness.js';

const MINUTE = 60_000;

const urlPurges = (h: Harness) =>
  h.sandbox.requests.filter(
    (r) =>
      r.path.endsWith('/purge') && !(r.body as { purge_everything?: boolean }).purge_everything,
  );

async function token(h: Harness) {
  const { secret } = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
    name: 'deploy',
    zones: null,
    kinds: ['urls_tags', 'everything'],
    channelId: CHANNEL,
  });
  return secret;
}

async function read(h: Harness, secret: string, id: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${h.url}/api/v1/purges/${id}`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Moves the clock on and lets every job now due run. */
async function passTime(h: Harness, ms: number): Promise<void> {
  h.clock.advance(ms);
  await h.deps.runner.settled();
}

const iso = (ms: number) => new Date(ms).toISOString();

async function accepted(response: Response) {
  const body = (await response.json()) as { id: string; status: string; not_before?: string };
  expect(response.status, JSON.stringify(body)).toBe(202);
  return body;
}

describe('API purges with not_before', () => {
  it('runs once at its time and not before; its status says scheduled, then the outcome', async () => {
    const h = await startHarness();
    await h.login();
    const secret = await token(h);
    const due = h.clock.now() + 30 * MINUTE;
    const body = await accepted(
      await postPurge(h, secret, {
        zone: 'example.com',
        urls: ['https://example.com/app.css'],
        not_before: '2026-11-22T11:30:00+01:00',
      }),
    );
    expect(body).toMatchObject({ status: 'scheduled', not_before: iso(due) });
    expect(await read(h, secret, body.id)).toMatchObject({
      status: 'scheduled',
      not_before: iso(due),
      progress: { done: 0, total: 1 },
    });
    // The crash repair, run past its two minutes, leaves a purge waiting for its time alone.
    await passTime(h, 3 * MINUTE);
    expect(await h.deps.apiPurges.recover()).toBe(0);
    await passTime(h, 26 * MINUTE);
    expect(urlPurges(h)).toEqual([]);
    expect((await read(h, secret, body.id)).status).toBe('scheduled');
    // Listed in Slack beside the others, named as the token.
    const list = await commandReply(h, 'purge scheduled', { user: ADMIN });
    expect(textOf(list.blocks)).toContain('1 URL on *example.com*');
    expect(textOf(list.blocks)).toContain('CI token *deploy*');

    await passTime(h, MINUTE);
    expect(await finalPurge(h, secret, body.id)).toMatchObject({
      status: 'succeeded',
      progress: { done: 1, total: 1 },
    });
    expect(urlPurges(h).map((r) => r.body)).toEqual([{ files: ['https://example.com/app.css'] }]);
    await passTime(h, 60 * MINUTE);
    await h.deps.apiPurges.recover();
    expect(urlPurges(h)).toHaveLength(1);
    const actions = (await h.store.audit.recent(h.workspaceId, { limit: 20 }))
      .map((e) => e.action)
      .reverse();
    expect(actions).toEqual([
      'purge.scheduled',
      'api.purge.requested',
      'purge.scheduled.ran',
      'purge.urls',
    ]);
  });

  it('takes `in <duration>`, and refuses a past, too far or unreadable time with a 400 problem', async () => {
    const h = await startHarness();
    await h.login();
    const secret = await token(h);
    const request = (notBefore: string) =>
      postPurge(h, secret, { zone: 'example.com', tags: ['css'], not_before: notBefore });
    const later = await accepted(await request('in 1h30m'));
    expect(later).toMatchObject({
      status: 'scheduled',
      not_before: iso(h.clock.now() + 90 * MINUTE),
    });

    const past = await expectProblem(
      await request('2026-11-22T09:59:00Z'),
      400,
      'invalid-not-before',
    );
    expect(past.detail).toContain('has passed');
    const far = await expectProblem(await request('in 8d'), 400, 'invalid-not-before');
    expect(far.detail).toContain('at most 7 days ahead');
    await expectProblem(await request('in a while'), 400, 'invalid-not-before');
    const unreadable = await expectProblem(await request('tomorrow'), 400, 'invalid-body');
    expect(JSON.stringify(unreadable.errors)).toContain('not_before');
    // No offset: RFC 3339 wants one.
    await expectProblem(await request('2026-11-22T12:00:00'), 400, 'invalid-body');
    expect(await h.store.jobs.queuedOf(h.workspaceId, SCHEDULED_PURGE_JOB, 10)).toHaveLength(1);
  });

  it('everything: approved before its time, it runs then; unapproved, it expires and does not run', async () => {
    const h = await startHarness();
    await h.login();
    const secret = await token(h);
    const due = h.clock.now() + 2 * 60 * MINUTE;
    const body = await accepted(
      await postPurge(h, secret, {
        zone: 'example.com',
        everything: true,
        reason: 'night release',
        not_before: iso(due),
      }),
    );
    expect(body).toMatchObject({ status: 'waiting_for_approval', not_before: iso(due) });
    const [message] = await h.slack.waitForMessages(
      (m) => m.channel === CHANNEL && JSON.stringify(m.blocks ?? []).includes(APPROVAL_IDS.approve),
    );
    if (!message) throw new Error('no approval message');
    expect(textOf(message.blocks)).toContain('Scheduled for');
    const viewId = await openApprove(h, message, ADMIN);
    await h.submit(viewId, {}, { user: ADMIN });
    await h.deps.runner.settled();
    expect(await read(h, secret, body.id)).toMatchObject({
      status: 'scheduled',
      approved_by: ADMIN,
    });
    await passTime(h, 60 * MINUTE);
    expect(everythingRequests(h)).toEqual([]);
    await passTime(h, 60 * MINUTE);
    expect(await finalPurge(h, secret, body.id)).toMatchObject({ status: 'succeeded' });
    expect(everythingRequests(h)).toHaveLength(1);

    // Another, left unapproved: expired at its time, and nothing purged.
    const second = await accepted(
      await postPurge(h, secret, {
        zone: 'example.com',
        everything: true,
        not_before: 'in 1h',
      }),
    );
    await passTime(h, 60 * MINUTE);
    expect(await read(h, secret, second.id)).toMatchObject({ status: 'expired' });
    expect(everythingRequests(h)).toHaveLength(1);
  });

  it('is checked again when due: a revoked token or a freeze declared since refuses it', async () => {
    const h = await startHarness();
    await h.login();
    const secret = await token(h);
    const revokedFirst = await accepted(
      await postPurge(h, secret, { zone: 'example.com', tags: ['css'], not_before: 'in 30m' }),
    );
    const other = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
      name: 'release',
      zones: null,
      kinds: ['urls_tags'],
      channelId: CHANNEL,
    });
    const frozen = await accepted(
      await postPurge(h, other.secret, {
        zone: 'example.com',
        tags: ['js'],
        not_before: 'in 30m',
      }),
    );
    await commandReply(
      h,
      'freeze add example.com 2026-11-22 10:15 → 2026-11-22 12:00 tz:UTC --purges Incident review',
      { user: ADMIN },
    );
    const first = await h.store.apiTokens.byHash(hashApiToken(secret));
    if (!first) throw new Error('no token');
    await h.store.apiTokens.revoke(h.workspaceId, first.id, ADMIN);
    await passTime(h, 30 * MINUTE);
    expect(urlPurges(h)).toEqual([]);
    // The revoked token can no longer read; the record says why, as another token's would.
    const records = await h.store.apiPurges.many([revokedFirst.id, frozen.id]);
    expect(records.get(revokedFirst.id)).toMatchObject({
      status: 'rejected',
      error: 'not run at its time: its token was revoked',
    });
    expect(records.get(frozen.id)).toMatchObject({ status: 'rejected' });
    expect(records.get(frozen.id)?.error).toContain('Incident review');
  });

  it('an admin cancels it in Slack: its status says rejected, and it never runs', async () => {
    const h = await startHarness();
    await h.login();
    const secret = await token(h);
    const body = await accepted(
      await postPurge(h, secret, {
        zone: 'example.com',
        urls: ['https://example.com/a.js'],
        not_before: 'in 1h',
      }),
    );
    const [job] = await h.store.jobs.queuedOf(h.workspaceId, SCHEDULED_PURGE_JOB, 10);
    if (!job) throw new Error('not scheduled');
    const cancelled = await commandReply(h, `purge cancel ${job.id.slice(0, 8)}`, { user: ADMIN });
    expect(textOf(cancelled.blocks)).toContain(`Cancelled by <@${ADMIN}>`);
    expect(await read(h, secret, body.id)).toMatchObject({
      status: 'rejected',
      error: `cancelled in Slack by ${ADMIN}`,
    });
    await passTime(h, 2 * 60 * MINUTE);
    expect(urlPurges(h)).toEqual([]);
  });

  it('the crash repair reaches a stranded purge however many wait for their time before it', async () => {
    const h = await startHarness({ env: { API_RATE_LIMIT_PER_MINUTE: '0' } });
    await h.login();
    const secret = await token(h);
    // More purges waiting for their time than one round of the repair reads.
    const waiting: string[] = [];
    for (let i = 0; i < 101; i++) {
      const body = await accepted(
        await postPurge(h, secret, { zone: 'example.com', tags: [`t${i}`], not_before: 'in 2h' }),
      );
      waiting.push(body.id);
    }
    // Later, a purge stored by a bot that stopped before it stored its job.
    h.clock.advance(MINUTE);
    const made = await h.store.apiTokens.byHash(hashApiToken(secret));
    if (!made) throw new Error('no token');
    const { purge: stranded } = await h.store.apiPurges.insertOrGet({
      workspaceId: h.workspaceId,
      tokenId: made.id,
      tokenName: made.name,
      idempotencyKey: null,
      bodyHash: 'h',
      zoneId: 'z',
      zoneName: 'example.com',
      accountId: made.accountId ?? '',
      accountName: 'default',
      kind: 'tags',
      status: 'queued',
      total: 1,
      reason: null,
      context: null,
    });
    await passTime(h, 3 * MINUTE);
    let repaired = 0;
    for (let round = 0; round < 3; round++) repaired += await h.deps.apiPurges.recover();
    expect(repaired).toBe(1);
    expect(await read(h, secret, stranded.id)).toMatchObject({ status: 'failed' });
    const records = await h.store.apiPurges.many(waiting);
    expect([...records.values()].filter((p) => p.status !== 'queued')).toEqual([]);
    expect(await read(h, secret, waiting[100] ?? '')).toMatchObject({ status: 'scheduled' });
  });
});
