// Held purges, watches and purges in a CDN account other than `default` (issue 29), over the
// signed HTTP receiver: two sandboxes hold the same zones; a held purge confirmed purges its own
// account only, and a workspace with named accounts only stores and evaluates each watch in its
// account, and purges in its one account without it being named.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS } from '../../src/blocks/ids.js';
import { startSandbox } from '../../src/dev/sandbox/server.js';
import { addAccount, ask, purges, twoAccounts } from './account-flows.js';
import { interval } from './flows.js';
import { CDN_KEY, startHarness, textOf } from './harness.js';

type Requests = Array<{ method: string; path: string; body?: unknown }>;
const reads = (requests: Requests) => requests.filter((r) => r.path.includes('/analytics/'));

describe('a held purge in the account staging', () => {
  it('purges the rest on staging’s zone only once confirmed', async () => {
    const { h, staging } = await twoAccounts();
    try {
      const asked = await ask(
        h,
        'purge staging/example.com https://static.example.com/a.css https://example.com/b.css',
      );
      expect(asked.text).toBe('Purge the 1 other on example.com? 1 URL was refused.');
      await h.deps.runner.settled();
      expect(purges(staging.requests)).toEqual([]);

      await h.click(asked, PURGE_IDS.holdConfirm);
      await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
      expect(purges(staging.requests)).toEqual([{ files: ['https://example.com/b.css'] }]);
      expect(purges(h.sandbox.requests)).toEqual([]);
      // Its record and audit entry name staging.
      const account = await h.store.accounts.byName(h.workspaceId, 'staging');
      const [entry] = (await h.store.audit.recent(h.workspaceId)).filter(
        (e) => e.action === 'purge.urls',
      );
      expect(entry?.accountId).toBe(account?.id);
    } finally {
      await staging.close();
    }
  });
});

describe('watches in a workspace with named accounts only (no `default`)', () => {
  it('stores the watch and its zone with the account, and evaluates that account only', async () => {
    const h = await startHarness({ env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' } });
    const staging = await startSandbox({ apiKeys: ['staging-key'], clock: h.clock });
    try {
      // No `/cdn login`: the workspace has no account `default`; first prod alone, then staging.
      await addAccount(h, 'prod', h.sandbox.baseUrl, CDN_KEY);
      expect((await ask(h, 'watch example.com')).text).toContain('Watching');
      await addAccount(h, 'staging', staging.baseUrl, 'staging-key');
      staging.state.create('only-in-staging.example', 'free');
      const prod = await h.store.accounts.byName(h.workspaceId, 'prod');
      const stagingAccount = await h.store.accounts.byName(h.workspaceId, 'staging');
      expect((await h.store.accounts.byName(h.workspaceId, 'default'))?.id).toBeUndefined();

      // A name in one account needs none; one in both is named with its account.
      expect((await ask(h, 'watch only-in-staging.example')).text).toContain('Watching');
      expect((await ask(h, 'watch prod/shop.example.org')).text).toContain('Watching');
      const watches = await h.store.db
        .selectFrom('watches')
        .select(['zone_name', 'account_id'])
        .orderBy('zone_name')
        .execute();
      expect(watches).toEqual([
        { zone_name: 'example.com', account_id: prod?.id },
        { zone_name: 'only-in-staging.example', account_id: stagingAccount?.id },
        { zone_name: 'shop.example.org', account_id: prod?.id },
      ]);
      const zones = await h.store.db
        .selectFrom('watch_zones')
        .select(['zone_name', 'account_id'])
        .orderBy('zone_name')
        .execute();
      expect(zones).toEqual(watches);

      // Each zone is read in its own account: staging's in staging, prod's (the harness sandbox)
      // in prod.
      await interval(h, 2);
      const stagingZone = staging.state.byName('only-in-staging.example');
      const prodZone = h.sandbox.state.byName('shop.example.org');
      expect(reads(staging.requests).length).toBeGreaterThan(0);
      expect(reads(h.sandbox.requests).length).toBeGreaterThan(0);
      expect(reads(staging.requests).every((r) => r.path.includes(stagingZone?.id ?? '?'))).toBe(
        true,
      );
      const prodIds = [prodZone?.id, h.sandbox.state.byName('example.com')?.id];
      expect(
        reads(h.sandbox.requests).every((r) => prodIds.some((id) => id && r.path.includes(id))),
      ).toBe(true);
      // `/cdn watch list` names both.
      const list = textOf((await ask(h, 'watch list')).blocks);
      expect(list).toContain('only-in-staging.example');
      expect(list).toContain('shop.example.org');
      expect(list).toContain('example.com');
    } finally {
      await staging.close();
    }
  });

  it('purges URLs and paths in its one account without it being named', async () => {
    const h = await startHarness({ env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' } });
    await addAccount(h, 'prod', h.sandbox.baseUrl, CDN_KEY);
    await h.command('purge https://example.com/a.css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    await h.command('purge example.com /b.css');
    await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 2);
    expect(purges(h.sandbox.requests)).toEqual([
      { files: ['https://example.com/a.css'] },
      { files: ['https://example.com/b.css'] },
    ]);
    const prod = await h.store.accounts.byName(h.workspaceId, 'prod');
    const audit = await h.store.audit.recent(h.workspaceId);
    expect(audit.filter((e) => e.action === 'purge.urls').map((e) => e.accountId)).toEqual([
      prod?.id,
      prod?.id,
    ]);
  });
});
