// AccountScopes.resolve across several CDN accounts (issue 29) against the sandbox on loopback and
// a real store (SQLite and PostgreSQL): a name with no account typed is looked for in every
// account's index with one read of the store, and found in the one account holding it, refused as
// ambiguous when several do, built first where an index is not, and "not found" as before.
import { afterEach, describe, expect, it } from 'vitest';
import { CdnTransport } from '../../../src/cdn/transport.js';
import { startSandbox } from '../../../src/dev/sandbox/server.js';
import { AppError, type Problem } from '../../../src/errors.js';
import { JobRunner } from '../../../src/jobs/runner.js';
import { createLogger } from '../../../src/logger.js';
import { cdnServices } from '../../../src/services/purge/compose.js';
import type { Store } from '../../../src/store/index.js';
import type { AccountZoneIndex, ZoneIndexRepository } from '../../../src/store/zone-index.js';
import { ManualClock } from '../../helpers/clock.js';
import { BACKENDS, type Backend, testStore } from '../../helpers/store.js';

const WS = 'T1';
const REFRESH_MS = 300_000;
const BY = { userId: 'U1', validated: true };
/**
 * The login account's key (`default`) and three accounts', each its own zones of the same names
 * (and ids: the sandbox numbers each account's zones alike); acct-1 has 25, the others 20.
 */
const KEYS = ['sk_scope_default', 'sk_scope_a0', 'sk_scope_a1', 'sk_scope_a2'] as const;
const LATE_KEY = 'sk_scope_late';

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/** The repository's reads of the zone indexes: the store, watched, counts each one it is asked. */
const READS = ['view', 'find', 'findAcross', 'has', 'all', 'liveNames', 'search'] as const;

function counted<T extends ZoneIndexRepository | AccountZoneIndex>(repo: T, reads: string[]): T {
  return new Proxy(repo, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === 'forAccount')
        return (accountId: string) =>
          counted((target as ZoneIndexRepository).forAccount(accountId), reads);
      if (typeof value !== 'function') return value;
      if ((READS as readonly PropertyKey[]).includes(property)) reads.push(String(property));
      return value.bind(target);
    },
  });
}

async function setup(backend: Backend) {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const sandbox = await startSandbox({
    apiKeys: [],
    demoZones: false,
    clock,
    accounts: Object.fromEntries(
      [...KEYS, LATE_KEY].map((key) => [key, { bulkZones: key === 'sk_scope_a1' ? 25 : 20 }]),
    ),
  });
  const transport = new CdnTransport();
  const { store: real } = await testStore(backend, { clock });
  const reads: string[] = [];
  const store: Store = { ...real, zoneIndex: counted(real.zoneIndex, reads) };
  const { zoneIndex, scopes } = cdnServices({
    store,
    transport,
    defaultBaseUrl: sandbox.baseUrl,
    clock,
    logger: createLogger({ level: 'silent' }),
    zoneIndex: {
      runner: new JobRunner({ jobs: real.jobs, clock, logger: createLogger({ level: 'silent' }) }),
      limits: { maxPages: 100, operationTimeoutMs: 30_000 },
      refreshMs: REFRESH_MS,
      concurrency: 4,
    },
    readsPerMinute: { person: 0, workspace: 0 },
  });
  open.push(
    () => sandbox.close(),
    () => transport.close(),
    () => zoneIndex.idle(),
  );
  const [own, ...others] = KEYS;
  await store.credentials.set(WS, own, BY);
  const accounts = [];
  for (const [i, apiKey] of others.entries())
    accounts.push(await store.accounts.create(WS, { name: `acct-${i}`, apiKey, by: BY }));
  sandbox.stateFor('sk_scope_a1').create('only-a1.example', 'free');
  sandbox.stateFor('sk_scope_a2').create('xn--bcher-kva.example', 'free');
  // Every index built, as the key's save starts it.
  const login = await store.credentials.get(WS);
  if (!login) throw new Error('no login key');
  zoneIndex.keyChanged(WS, login.accountId);
  for (const account of accounts) zoneIndex.keyChanged(WS, account.id);
  await zoneIndex.idle();
  const resolve = async (name: string) =>
    scopes.resolve(WS, await scopes.scope(WS, undefined, undefined), name);
  const lists = () => sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/zones');
  return { clock, sandbox, store, zoneIndex, scopes, accounts, reads, resolve, lists };
}

async function problemOf(promise: Promise<unknown>): Promise<Problem> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error.problem;
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`a zone named with no account, in several accounts (${backend})`, () => {
    it('is looked for in every account with one read of the indexes, and found where it is', async () => {
      const t = await setup(backend);
      const requests = t.lists().length;
      t.reads.length = 0;
      const zone = await t.resolve('ONLY-a1.example.');
      expect(zone).toMatchObject({
        name: 'only-a1.example',
        accountName: 'acct-1',
        accountId: t.accounts[1]?.id,
      });
      expect(t.reads).toEqual(['findAcross']);

      // The name in all four: refused, naming them in the order of the accounts (by name).
      t.reads.length = 0;
      expect(await problemOf(t.resolve('zone-05.bulk.test'))).toEqual({
        code: 'zone_ambiguous',
        zoneName: 'zone-05.bulk.test',
        accounts: ['acct-0', 'acct-1', 'acct-2', 'default'],
      });
      expect(t.reads).toEqual(['findAcross']);

      // An id held by one account is that account's zone; held by several, ambiguous too.
      expect(await t.resolve(zone.id)).toMatchObject({ id: zone.id, accountName: 'acct-1' });
      const shared = t.sandbox.stateFor('sk_scope_a0').byName('zone-05.bulk.test')?.id ?? '';
      expect(await problemOf(t.resolve(shared))).toMatchObject({
        code: 'zone_ambiguous',
        accounts: ['acct-0', 'acct-1', 'acct-2', 'default'],
      });
      // A name typed in Unicode finds its punycode.
      expect(await t.resolve('bücher.example')).toMatchObject({
        name: 'xn--bcher-kva.example',
        accountName: 'acct-2',
      });
      // No request to the CDN for any of it.
      expect(t.lists()).toHaveLength(requests);
    });

    it('builds an index not built yet first, and reads it again', async () => {
      const t = await setup(backend);
      const late = await t.store.accounts.create(WS, {
        name: 'late',
        apiKey: LATE_KEY,
        by: BY,
      });
      t.sandbox.stateFor(LATE_KEY).create('only-late.example', 'free');
      const requests = t.lists().length;
      t.reads.length = 0;
      expect(await t.resolve('only-late.example')).toMatchObject({
        name: 'only-late.example',
        accountName: 'late',
        accountId: late.id,
      });
      // One read of them all, the build of the one not built, and a read of that one again.
      expect(t.reads[0]).toBe('findAcross');
      expect(t.reads.at(-1)).toBe('findAcross');
      // Its one page, and nothing of the accounts already built.
      expect(t.lists().length - requests).toBe(1);
      t.reads.length = 0;
      await t.resolve('only-late.example');
      expect(t.reads).toEqual(['findAcross']);
    });

    it('answers from stale indexes at once and refreshes them behind the reader', async () => {
      const t = await setup(backend);
      t.clock.advance(REFRESH_MS + 1);
      const requests = t.lists().length;
      expect(await t.resolve('only-a1.example')).toMatchObject({ accountName: 'acct-1' });
      await t.zoneIndex.idle();
      // Each of the four indexes listed again (20 zones: one page each).
      expect(t.lists().length - requests).toBe(4);
    });

    it('is not found in any: the first account’s probe, then "not found" with its suggestions', async () => {
      const t = await setup(backend);
      // Created in the CDN of an account other than the first (by name) after its index: not
      // looked for there; in the first's (acct-0), found by its probe. `default` is no different.
      t.sandbox.stateFor('sk_scope_a1').create('new-in-a1.example', 'free');
      t.sandbox.stateFor(KEYS[0]).create('new-in-default.example', 'free');
      t.sandbox.stateFor('sk_scope_a0').create('new-in-a0.example', 'free');
      expect(await problemOf(t.resolve('zone-5.bulk.test'))).toMatchObject({
        code: 'zone_not_found',
        query: 'zone-5.bulk.test',
        suggestions: expect.arrayContaining(['zone-05.bulk.test']),
      });
      expect(await problemOf(t.resolve('new-in-a1.example'))).toMatchObject({
        code: 'zone_not_found',
      });
      expect(await problemOf(t.resolve('new-in-default.example'))).toMatchObject({
        code: 'zone_not_found',
      });
      expect(await t.resolve('new-in-a0.example')).toMatchObject({
        name: 'new-in-a0.example',
        accountName: 'acct-0',
        accountId: t.accounts[0]?.id,
      });
    });
  });
}
