// CdnAccess.clientFor with accounts: each account's key and base URL (CDN_API_BASE_URL without one).
import { afterEach, describe, expect, it } from 'vitest';
import { EgressPolicy } from '../../../src/cdn/egress.js';
import { CdnTransport } from '../../../src/cdn/transport.js';
import { type Sandbox, startSandbox } from '../../../src/dev/sandbox/server.js';
import { CdnAccess } from '../../../src/services/accounts/cdn-access.js';
import { InstantClock } from '../../helpers/clock.js';
import { captureLogs } from '../../helpers/logs.js';
import { testStore } from '../../helpers/store.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function sandbox(key: string): Promise<Sandbox> {
  const started = await startSandbox({ apiKeys: [key] });
  closers.push(() => started.close());
  return started;
}

const BY = { userId: 'U1', validated: true };

describe('CdnAccess.clientFor with accounts', () => {
  it("calls each account's API with its key, the login account's as any other's", async () => {
    const prod = await sandbox('sk_prod');
    const staging = await sandbox('sk_staging');
    const { store } = await testStore('sqlite');
    const transport = new CdnTransport();
    closers.push(() => transport.close(100));
    const cdn = new CdnAccess({
      store,
      transport,
      defaultBaseUrl: prod.baseUrl,
      // The staging sandbox stands for an account's own API, allowlisted by the operator.
      egress: new EgressPolicy({ allowlist: [new URL(staging.baseUrl).hostname] }),
      clock: new InstantClock(),
      logger: captureLogs('warn').logger,
    });
    await store.credentials.set('T1', 'sk_prod', BY);
    const account = await store.accounts.create('T1', {
      name: 'staging',
      baseUrl: staging.baseUrl,
      apiKey: 'sk_staging',
      by: BY,
    });
    const fallback = (await store.accounts.byName('T1', 'default'))?.id as string;

    await (await cdn.clientFor('T1', account.id)).listZones({ page: 1, perPage: 1 });
    expect(staging.requests.map((r) => r.status)).toEqual([200]);
    expect(prod.requests).toEqual([]);
    await (await cdn.clientFor('T1', fallback)).listZones({ page: 1, perPage: 1 });
    expect(prod.requests.map((r) => r.status)).toEqual([200]);
    expect(staging.requests).toHaveLength(1);

    // An account without a key, or another workspace's account, has no client.
    const empty = await store.accounts.create('T1', { name: 'qa', by: BY });
    await expect(cdn.clientFor('T1', empty.id)).rejects.toMatchObject({ code: 'no_api_key' });
    await expect(cdn.clientFor('T2', account.id)).rejects.toMatchObject({ code: 'no_api_key' });
    // An account's own base URL is held to the same rules as the workspace's: https only, unless
    // the operator allowlisted its host.
    await store.accounts.setBaseUrl('T1', account.id, 'http://cdn.internal.example/v1');
    await expect(cdn.clientFor('T1', account.id)).rejects.toMatchObject({
      code: 'insecure_base_url',
    });
  });
});
