// API tokens and API purges in the store, on SQLite and PostgreSQL: hashes only, revocation,
// last use at most once a minute, and one purge per (token, Idempotency-Key) however many race.
import { describe, expect, it } from 'vitest';
import type { NewApiPurge } from '../../src/store/api-purges.js';
import { ManualClock } from '../helpers/clock.js';
import { BACKENDS, testDatabase, testStore } from '../helpers/store.js';

const purge = (tokenId: string, key: string | null, bodyHash = 'h1'): NewApiPurge => ({
  workspaceId: 'T1',
  tokenId,
  tokenName: 'deploy',
  idempotencyKey: key,
  bodyHash,
  accountId: 'account-1',
  accountName: 'default',
  zoneId: 'z1',
  zoneName: 'example.com',
  kind: 'urls',
  status: 'queued',
  total: 2,
  reason: null,
  context: { actor: 'alice' },
});

describe.each(BACKENDS)('API tokens and purges on $backend', ({ backend, skip }) => {
  it.skipIf(skip)(
    'keeps a token as a hash, revokes it once, and notes its use once a minute',
    async () => {
      const clock = new ManualClock(1_000_000);
      const { store } = await testStore(backend, { clock });
      expect(await store.apiTokens.any()).toBe(false);
      const input = {
        workspaceId: 'T1',
        name: 'deploy',
        hash: 'a'.repeat(64),
        hint: 'cdnb_AbCd',
        accountId: 'account-1',
        allAccounts: false as const,
        zones: ['example.com'],
        kinds: ['urls_tags' as const],
        channelId: null,
        createdBy: 'U1',
      };
      // A token reaches one account, or (with no account of its own) all of them: never neither.
      // Its type says so; the database refuses it too.
      await expect(
        store.apiTokens.create({ ...input, accountId: null } as unknown as typeof input),
      ).rejects.toThrow();
      expect(await store.apiTokens.any()).toBe(false);
      const token = await store.apiTokens.create(input);
      expect(token).toMatchObject({ accountId: 'account-1', allAccounts: false });
      expect(await store.apiTokens.any()).toBe(true);
      expect((await store.apiTokens.byHash('a'.repeat(64)))?.zones).toEqual(['example.com']);
      await store.apiTokens.touch(token.id);
      clock.advance(30_000);
      await store.apiTokens.touch(token.id);
      expect((await store.apiTokens.get('T1', token.id))?.lastUsedAt).toBe(1_000_000);
      clock.advance(30_000);
      await store.apiTokens.touch(token.id);
      expect((await store.apiTokens.get('T1', token.id))?.lastUsedAt).toBe(1_060_000);
      // Given the last use it just read (as authentication does), nothing is sent within the minute.
      clock.advance(59_999);
      expect(await store.apiTokens.touch(token.id, 1_060_000)).toBe(false);
      clock.advance(1);
      expect(await store.apiTokens.touch(token.id, 1_060_000)).toBe(true);
      expect((await store.apiTokens.get('T1', token.id))?.lastUsedAt).toBe(1_120_000);
      expect(await store.apiTokens.revoke('T2', token.id, 'U9')).toBe(false);
      expect(await store.apiTokens.revoke('T1', token.id, 'U1')).toBe(true);
      expect(await store.apiTokens.revoke('T1', token.id, 'U1')).toBe(false);
      expect((await store.apiTokens.byHash('a'.repeat(64)))?.revokedAt).toBe(1_120_000);
      // One made for all accounts keeps no account of its own.
      const all = await store.apiTokens.create({
        ...input,
        hash: 'b'.repeat(64),
        accountId: null,
        allAccounts: true,
      });
      expect(all).toMatchObject({ accountId: null, allAccounts: true });
      expect(await store.apiTokens.byHash('b'.repeat(64))).toMatchObject({ accountId: null });
    },
  );

  it.skipIf(skip)(
    'stores one purge per token and key across two stores, and never moves a final one back',
    async () => {
      const database = await testDatabase(backend);
      const a = await testStore(backend, { database, idPrefix: 'a-' });
      const b = await testStore(backend, { database, idPrefix: 'b-' });
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? a : b).store.apiPurges.insertOrGet(purge('tok1', 'deploy-1')),
        ),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.purge.id)).size).toBe(1);
      // Without a key, each request is a purge of its own; another token's key is its own too.
      expect((await a.store.apiPurges.insertOrGet(purge('tok1', null))).created).toBe(true);
      expect((await a.store.apiPurges.insertOrGet(purge('tok1', null))).created).toBe(true);
      expect((await a.store.apiPurges.insertOrGet(purge('tok2', 'deploy-1'))).created).toBe(true);
      const id = results[0]?.purge.id ?? '';
      expect(await a.store.apiPurges.update(id, { status: 'succeeded', done: 2 })).toMatchObject({
        id,
        status: 'succeeded',
        done: 2,
      });
      expect(await b.store.apiPurges.update(id, { status: 'running', done: 0 })).toBeUndefined();
      expect(await a.store.apiPurges.get(id)).toMatchObject({ status: 'succeeded', done: 2 });
    },
  );

  it.skipIf(skip)(
    'reads stale purges oldest first, a page after another, without those whose approval was posted',
    async () => {
      const clock = new ManualClock(1_000_000);
      const { store } = await testStore(backend, { clock });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await store.apiPurges.insertOrGet(purge('tok1', `k${i}`))).purge.id);
        clock.advance(1_000);
      }
      const asked = await store.apiPurges.insertOrGet({
        ...purge('tok1', 'all'),
        kind: 'everything',
        status: 'waiting_for_approval',
      });
      await store.apiPurges.setApproval(asked.purge.id, 'approval-1');
      clock.advance(1_000);
      const now = clock.now();
      const first = await store.apiPurges.notStartedBefore(now, undefined, 2);
      expect(first.map((p) => p.id)).toEqual(ids.slice(0, 2));
      const second = await store.apiPurges.notStartedBefore(now, first.at(-1), 2);
      expect(second.map((p) => p.id)).toEqual(ids.slice(2, 4));
      const last = await store.apiPurges.notStartedBefore(now, second.at(-1), 2);
      expect(last.map((p) => p.id)).toEqual(ids.slice(4));
      // Written since: it goes to the end.
      await store.apiPurges.update(ids[0] ?? '', { done: 1 });
      expect((await store.apiPurges.notStartedBefore(clock.now() + 1)).map((p) => p.id)).toEqual([
        ...ids.slice(1),
        ids[0],
      ]);
    },
  );
});
