import { describe, expect, it } from 'vitest';
import type { Approval, NewApproval } from '../../src/store/approvals.js';
import type { Store } from '../../src/store/index.js';
import { BACKENDS, testStore } from '../helpers/store.js';

const request: NewApproval = {
  workspaceId: 'T1',
  accountId: 'account-1',
  zoneId: 'zone_1',
  zoneName: 'example.com',
  requesterId: 'U_REQ',
  reason: 'bad deploy cached',
  channelId: 'C1',
  ttlMs: 30 * 60_000,
};

/** A new request, which these tests expect to be created (not pointed at an open one). */
async function created(store: Store, input: NewApproval = request): Promise<Approval> {
  const made = await store.approvals.create(input);
  if (!('created' in made)) throw new Error('expected a new request');
  return made.created;
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`approvals on ${backend}`, () => {
    it('creates a pending request that expires after its ttl', async () => {
      const { store, clock } = await testStore(backend);
      const approval = await created(store);
      expect(approval).toMatchObject({
        id: 'id-1',
        status: 'pending',
        expiresAt: clock.now() + 30 * 60_000,
      });
      await store.approvals.setMessage(approval.id, 'C1', '1700000000.000100');
      expect((await store.approvals.get(approval.id))?.messageTs).toBe('1700000000.000100');
    });

    it('keeps who asked over the HTTP API (0024), and nothing for a request made in Slack', async () => {
      const { store } = await testStore(backend);
      const api = {
        tokenId: 't1',
        tokenName: 'deploy-bot',
        actor: 'bob@example.com',
        actorUserId: 'U_BOB',
      };
      const made = await created(store, { ...request, requesterId: 'token:deploy-bot', api });
      expect((await store.approvals.get(made.id))?.api).toEqual(api);
      const other = await created(store, { ...request, zoneId: 'zone_2' });
      expect((await store.approvals.get(other.id))?.api).toBeUndefined();
      const unmapped = {
        tokenId: 't1',
        tokenName: 'x',
        actor: 'bob',
        unmapped: 'not_email' as const,
      };
      const third = await created(store, { ...request, zoneId: 'zone_3', api: unmapped });
      expect((await store.approvals.get(third.id))?.api).toEqual(unmapped);
    });

    it('keeps one open request per zone of each CDN account (0025)', async () => {
      const { store } = await testStore(backend);
      await store.workspaces.ensure('T1');
      const staging = await store.accounts.create('T1', {
        name: 'staging',
        by: { userId: 'U0', validated: true },
      });
      const prod = await store.accounts.create('T1', {
        name: 'prod',
        by: { userId: 'U0', validated: true },
      });
      // The same zone id in two accounts: two open requests.
      const first = await created(store, { ...request, accountId: staging.id });
      const second = await created(store, { ...request, accountId: prod.id });
      expect(first.accountId).toBe(staging.id);
      expect(second.accountId).toBe(prod.id);
      // A second request for staging's zone is pointed at its open one.
      const again = await store.approvals.create({ ...request, accountId: staging.id });
      expect('pending' in again && again.pending.id).toBe(first.id);
      // A third account's request for the same zone id is its own too, and kept one.
      const third = await created(store);
      expect(third.accountId).toBe('account-1');
      const thirdAgain = await store.approvals.create(request);
      expect('pending' in thirdAgain && thirdAgain.pending.id).toBe(third.id);
    });

    it('leaves pending once: the second decision loses', async () => {
      const { store } = await testStore(backend);
      const { id } = await created(store);
      const approved = await store.approvals.decide(id, 'approved', { userId: 'U_OK' });
      expect(approved).toMatchObject({ status: 'approved', decidedBy: 'U_OK' });
      expect(
        await store.approvals.decide(id, 'denied', { userId: 'U_NO', note: 'no' }),
      ).toBeUndefined();
      expect(await store.approvals.decide(id, 'cancelled', { userId: 'U_REQ' })).toBeUndefined();
      expect((await store.approvals.get(id))?.status).toBe('approved');
    });

    it('cannot be decided once expired, and is expired by the sweep exactly once', async () => {
      const { store, clock } = await testStore(backend);
      const { id } = await created(store);
      const other = await created(store, { ...request, zoneId: 'zone_2', ttlMs: 60 * 60_000 });
      clock.advance(30 * 60_000);
      expect(await store.approvals.decide(id, 'approved', { userId: 'U_OK' })).toBeUndefined();
      expect((await store.approvals.expireDue()).map((a) => a.id)).toEqual([id]);
      expect(await store.approvals.expireDue()).toEqual([]);
      expect((await store.approvals.get(other.id))?.status).toBe('pending');
    });

    it('records the outcome of an approved purge once', async () => {
      const { store } = await testStore(backend);
      const { id } = await created(store);
      expect(await store.approvals.recordOutcome(id, { result: 'succeeded' })).toBe(false);
      await store.approvals.decide(id, 'approved', { userId: 'U_OK' });
      expect(
        await store.approvals.recordOutcome(id, { result: 'succeeded', purgeId: 'purge_1' }),
      ).toBe(true);
      expect(await store.approvals.recordOutcome(id, { result: 'failed' })).toBe(false);
      expect(await store.approvals.get(id)).toMatchObject({
        outcome: 'succeeded',
        purgeId: 'purge_1',
      });
    });

    it('expires a workspace’s pending requests, and only those', async () => {
      const { store } = await testStore(backend);
      const a = await created(store);
      const b = await created(store, { ...request, zoneId: 'zone_2' });
      const other = await created(store, { ...request, workspaceId: 'T2' });
      await store.approvals.decide(b.id, 'denied', { userId: 'U_NO' });
      expect((await store.approvals.expireAllPending('T1')).map((x) => x.id)).toEqual([a.id]);
      expect(await store.approvals.expireAllPending('T1')).toEqual([]);
      expect((await store.approvals.get(b.id))?.status).toBe('denied');
      expect((await store.approvals.get(other.id))?.status).toBe('pending');
    });

    it('keeps one open request per zone: a second, even racing, gets the first', async () => {
      const { store, clock } = await testStore(backend, { poolSize: 20 });
      const made = await Promise.all(
        Array.from({ length: 10 }, () => store.approvals.create(request)),
      );
      const firsts = made.flatMap((m) => ('created' in m ? [m.created] : []));
      expect(firsts).toHaveLength(1);
      for (const m of made) {
        if ('pending' in m) expect(m.pending.id).toBe(firsts[0]?.id);
      }
      // Another zone, or the same zone once the first is decided or past its time, is free.
      expect('created' in (await store.approvals.create({ ...request, zoneId: 'zone_2' }))).toBe(
        true,
      );
      clock.advance(30 * 60_000);
      expect('created' in (await store.approvals.create(request))).toBe(true);
    });

    it('lets exactly one of 50 concurrent approvers win', async () => {
      const { store } = await testStore(backend, { poolSize: 20 });
      const { id } = await created(store);
      const attempts = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          store.approvals.decide(id, i % 2 ? 'approved' : 'denied', { userId: `U${i}` }),
        ),
      );
      const winners = attempts.filter((a) => a !== undefined);
      expect(winners).toHaveLength(1);
      expect(await store.approvals.get(id)).toMatchObject({
        status: winners[0]?.status,
        decidedBy: winners[0]?.decidedBy,
      });
    });
  });
}
