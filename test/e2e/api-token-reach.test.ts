// What a token of the HTTP API reaches once a workspace has several CDN accounts (issue 30 met
// issue 29), over real HTTP on SQLite and PostgreSQL: a token stored without an account (made for
// the workspace's single key, or written so by an older replica during the rollout) reaches
// `default` only, never an account added after it; a token whose account was removed reaches
// nothing; every account is reached only by a token an admin made so.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/dev/sandbox/server.js';
import { API_TOKEN_PREFIX, hashApiToken } from '../../src/services/api/api-tokens.js';
import { BACKENDS } from '../helpers/store.js';
import { addAccount } from './account-flows.js';
import { expectProblem, finalPurge, postPurge } from './api-flows.js';
import { ADMIN, CHANNEL, type Harness, startHarness } from './harness.js';

const purges = <R extends { path: string }>(requests: R[]) =>
  requests.filter((r) => r.path.endsWith('/purge'));

/** `prod` beside the harness's sandbox: its own sandbox, the demo zones and one of its own. */
async function addProd(h: Harness) {
  const prod = await startSandbox({ apiKeys: ['prod-key'], clock: h.clock });
  prod.state.activate(prod.state.create('ci.prod.test', 'pro').id);
  const account = await addAccount(h, 'prod', prod.baseUrl, 'prod-key');
  return { prod, prodId: account.id };
}

/** A token of the account `accountId` alone, by the store's own insert (no service rule). */
async function storedFor(h: Harness, name: string, accountId: string): Promise<string> {
  const secret = `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  await h.store.apiTokens.create({
    workspaceId: h.workspaceId,
    name,
    hash: hashApiToken(secret),
    hint: secret.slice(0, 9),
    accountId,
    allAccounts: false,
    zones: null,
    kinds: ['urls_tags', 'everything'],
    channelId: CHANNEL,
    createdBy: ADMIN,
  });
  return secret;
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`what an API token reaches, on ${backend}`, () => {
    it('a token of `default` keeps its reach: an account added later is refused, nothing purged there', async () => {
      const h = await startHarness({ backend, env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' } });
      await h.login();
      const secret = await storedFor(h, 'old-deploy', await h.loginAccountId());
      const { prod } = await addProd(h);

      // Naming the new account: 403, as for any account the token does not reach.
      const named = await expectProblem(
        await postPurge(h, secret, { zone: 'ci.prod.test', account: 'prod', tags: ['a'] }),
        403,
        'forbidden-account',
      );
      expect(named.detail).toContain('CDN account default only');
      await expectProblem(
        await postPurge(h, secret, {
          zone: 'shop.example.org',
          account: 'prod',
          urls: ['https://shop.example.org/a.css'],
        }),
        403,
        'forbidden-account',
      );
      await expectProblem(
        await postPurge(h, secret, { zone: 'ci.prod.test', account: 'prod', everything: true }),
        403,
        'forbidden-account',
      );
      // Not naming it: the zone is not one of the account it reaches.
      await expectProblem(
        await postPurge(h, secret, { zone: 'ci.prod.test', tags: ['a'] }),
        404,
        'zone-not-found',
      );
      expect(await h.store.db.selectFrom('api_purges').selectAll().execute()).toEqual([]);
      expect(await h.store.db.selectFrom('approvals').selectAll().execute()).toEqual([]);

      // What it reached before `prod` existed it still reaches, without ambiguity: `default`.
      const response = await postPurge(h, secret, { zone: 'shop.example.org', tags: ['release'] });
      const { id } = (await response.json()) as { id: string };
      expect(response.status).toBe(202);
      expect(await finalPurge(h, secret, id)).toMatchObject({
        status: 'succeeded',
        account: 'default',
      });
      await h.deps.runner.settled();
      expect(purges(h.sandbox.requests).map((r) => r.body)).toEqual([{ tags: ['release'] }]);
      expect(purges(prod.requests)).toEqual([]);
      await prod.close();
    });

    it('a token whose account was removed reaches nothing, not even an account made again under its name', async () => {
      const h = await startHarness({ backend, env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' } });
      await h.login();
      const { prod, prodId } = await addProd(h);
      const { secret } = await h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
        name: 'prod-deploy',
        accountId: prodId,
        zones: null,
        kinds: ['urls_tags', 'everything'],
        channelId: CHANNEL,
      });
      expect(await h.store.accounts.remove(h.workspaceId, prodId)).toBe(true);

      for (const body of [
        { zone: 'ci.prod.test', tags: ['a'] },
        { zone: 'shop.example.org', tags: ['a'] },
        { zone: 'shop.example.org', account: 'default', tags: ['a'] },
        { zone: 'shop.example.org', everything: true },
      ]) {
        const refused = await expectProblem(
          await postPurge(h, secret, body),
          403,
          'forbidden-account',
        );
        expect(refused.detail).toBe('the CDN account of this token no longer exists');
      }
      // Another account named `prod`, with the same key: another account.
      await addAccount(h, 'prod', prod.baseUrl, 'prod-key');
      await expectProblem(
        await postPurge(h, secret, { zone: 'ci.prod.test', account: 'prod', tags: ['a'] }),
        403,
        'forbidden-account',
      );
      await h.deps.runner.settled();
      expect(await h.store.db.selectFrom('api_purges').selectAll().execute()).toEqual([]);
      expect(purges(h.sandbox.requests)).toEqual([]);
      expect(purges(prod.requests)).toEqual([]);
      await prod.close();
    });
  });
}
