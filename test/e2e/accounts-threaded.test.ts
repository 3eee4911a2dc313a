// Features beyond purges threaded through CDN accounts (issue 29): two sandboxes hold the same zone
// name; a rate limit, a zone list, a watch and a report on `staging` reach staging's sandbox only.
import { describe, expect, it, vi } from 'vitest';
import { WATCH_IDS } from '../../src/blocks/ids.js';
import { ask, twoAccounts } from './account-flows.js';
import { alerts, interval } from './flows.js';
import { textOf } from './harness.js';

type Requests = Array<{ method: string; path: string }>;
const posts = (requests: Requests) => requests.filter((r) => r.method === 'POST');
const reads = (requests: Requests) => requests.filter((r) => r.path.includes('/analytics/'));
const MINUTE = 60_000;
const lists = (requests: Requests) =>
  requests.filter((r) => r.method === 'GET' && r.path === '/zones');

describe('features on a zone of the account staging', () => {
  it('/cdn ratelimit staging/<zone> changes staging only', async () => {
    const { h, staging } = await twoAccounts([], { slack: { fileReadyMs: 0 } });
    const before = posts(h.sandbox.requests).length;
    await h.command('ratelimit staging/shop.example.org on');
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'api');
    expect(reply?.text).toContain('propagating');
    expect(staging.state.byName('shop.example.org')?.limits.enabled).toBe(true);
    expect(h.sandbox.state.byName('shop.example.org')?.limits.enabled).not.toBe(true);
    expect(posts(h.sandbox.requests)).toHaveLength(before);

    await h.command('ratelimit account:default shop.example.org on');
    await h.slack.waitForMessages((m) => m.via === 'api', 2);
    expect(h.sandbox.state.byName('shop.example.org')?.limits.enabled).toBe(true);
    await staging.close();
  });

  it('/cdn zones account:staging lists staging’s zones, and says whose they are', async () => {
    const { h, staging } = await twoAccounts([], { slack: { fileReadyMs: 0 } });
    const before = lists(h.sandbox.requests).length;
    const reply = await ask(h, 'zones account:staging');
    expect(textOf(reply.blocks)).toContain('Zones in staging');
    expect(textOf(reply.blocks)).toContain('only-in-staging.example');
    expect(lists(staging.requests).length).toBeGreaterThan(0);
    expect(lists(h.sandbox.requests)).toHaveLength(before);

    const named = await ask(h, 'zones account:staging only-in');
    expect(textOf(named.blocks)).toContain('only-in-staging.example');
    // Without an account named, in a workspace of two, the command asks which (neither is the
    // other's default).
    const plain = await ask(h, 'zones');
    expect(textOf(plain.blocks)).toContain(
      'This workspace has several CDN accounts: name one, as in `/cdn zones account:default` or `/cdn zones account:staging`.',
    );
    expect(textOf(plain.blocks)).not.toContain('only-in-staging.example');
    await staging.close();
  });

  it('a watch on staging/<zone> reads, alerts on and rate-limits staging only', async () => {
    const { h, staging } = await twoAccounts([], { slack: { fileReadyMs: 0 } });
    const reply = await ask(h, 'watch staging/shop.example.org');
    expect(reply.text).toContain('Watching');
    await interval(h, 2);
    expect(reads(staging.requests).length).toBeGreaterThan(0);
    expect(reads(h.sandbox.requests)).toHaveLength(0);

    // A spike in staging's zone alerts; the same zone name in `default` is never read.
    const zone = staging.state.byName('shop.example.org');
    if (!zone) throw new Error('no zone');
    const from = Math.ceil(h.clock.now() / MINUTE) * MINUTE - MINUTE;
    staging.state.shape(zone.id, { kind: 'spike', from, to: from + 5 * MINUTE });
    await interval(h, 3);
    const [alert] = alerts(h);
    if (!alert) throw new Error('no alert');
    expect(alert.text).toContain('shop.example.org');
    expect(reads(h.sandbox.requests)).toHaveLength(0);
    const job = (await h.store.db.selectFrom('jobs').select('key').execute()).find((j) =>
      j.key?.startsWith('watch:'),
    );
    const account = await h.store.accounts.byName(h.workspaceId, 'staging');
    expect(job?.key).toContain(`:${account?.id}:${zone.id}:`);

    // Turning rate limiting on from the alert changes staging's zone.
    await h.click(alert, WATCH_IDS.rateLimit);
    await h.slack.waitForMessages((m) => m.threadTs === alert.ts);
    expect(zone.limits.enabled).toBe(true);
    expect(posts(h.sandbox.requests)).toHaveLength(0);
    await staging.close();
  });

  it('a daily report on staging/<zone> reads staging’s analytics only', async () => {
    const { h, staging } = await twoAccounts([], { slack: { fileReadyMs: 0 } });
    const reply = await ask(h, 'report staging/shop.example.org daily account:staging');
    expect(textOf(reply.blocks)).toContain('09:00');
    const [schedule] = await h.store.schedules.listForWorkspace(h.workspaceId);
    const account = await h.store.accounts.byName(h.workspaceId, 'staging');
    expect(schedule?.accountId).toBe(account?.id);
    // 09:00 in New York is 14:00 UTC; the harness clock reads 10:00 UTC.
    h.clock.advance(4 * 60 * MINUTE + MINUTE);
    expect(await h.deps.reports.tick()).toEqual({ queued: 1, skipped: 0 });
    await h.deps.runner.settled();
    expect(reads(staging.requests).length).toBeGreaterThan(0);
    expect(reads(h.sandbox.requests)).toHaveLength(0);
    await staging.close();
  });

  it('/cdn analytics and /cdn create with an account use that account only', async () => {
    const { h, staging } = await twoAccounts([], { slack: { fileReadyMs: 0 } });
    await h.command('analytics staging/shop.example.org 24h');
    await h.deps.runner.settled();
    await vi.waitFor(() => expect(reads(staging.requests).length).toBeGreaterThan(0));
    expect(reads(h.sandbox.requests)).toHaveLength(0);

    await h.command('create staging/new-one.example');
    await vi.waitFor(() => expect(staging.state.byName('new-one.example')).toBeDefined());
    expect(h.sandbox.state.byName('new-one.example')).toBeUndefined();
    await staging.close();
  });
});
