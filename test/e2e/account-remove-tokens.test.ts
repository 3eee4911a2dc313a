// Removing a CDN account from the App Home (issue 29) when HTTP API tokens are bound to it (issue
// 30), over the signed HTTP receiver: the confirmation counts the live tokens that reach only that
// account ("2 API tokens will no longer purge"), not a revoked one, one made for every account or
// one of `default`; after the removal the token list shows them as reaching nothing, the API
// refuses them, and the token for every account still purges.
import { describe, expect, it } from 'vitest';
import type { NewTokenInput } from '../../src/services/api/api-tokens.js';
import { purges, removeButtonOf, twoAccounts } from './account-flows.js';
import { postPurge } from './api-flows.js';
import { modalOpenedBy, openHome } from './flows.js';
import { ADMIN, CHANNEL, textOf } from './harness.js';

describe('removing an account that API tokens are bound to', () => {
  it('counts them in the confirmation, and the token list then shows them reaching nothing', async () => {
    const { h, staging } = await twoAccounts();
    try {
      const stagingId = (await h.store.accounts.byName(h.workspaceId, 'staging'))?.id as string;
      const make = (input: Partial<NewTokenInput> & { name: string }) =>
        h.deps.apiTokens.createUnchecked(h.workspaceId, ADMIN, {
          zones: null,
          kinds: ['urls_tags'],
          channelId: CHANNEL,
          ...input,
        });
      const first = await make({ name: 'staging-deploy', accountId: stagingId });
      await make({ name: 'staging-assets', accountId: stagingId });
      const revoked = await make({ name: 'staging-old', accountId: stagingId });
      await h.store.apiTokens.revoke(h.workspaceId, revoked.token.id, ADMIN);
      const everywhere = await make({ name: 'all-deploy', allAccounts: true });
      await make({ name: 'default-deploy', accountId: await h.loginAccountId() });

      const home = await openHome(h, ADMIN);
      const removeId = await modalOpenedBy(h, () =>
        h.clickInView(home.id, removeButtonOf(home.view, stagingId), { user: ADMIN }),
      );
      const asked = textOf(h.slack.views.get(removeId)?.view);
      expect(asked).toContain('Remove the CDN account *staging* and its API key?');
      expect(asked).toContain('*2 API tokens* will no longer purge');
      expect(asked).toContain('The audit log keeps its entries');

      const removed = JSON.parse((await h.submit(removeId, {}, { user: ADMIN })).body);
      expect(textOf(removed.view)).toContain('*2 API tokens* no longer purge');
      expect(await h.store.accounts.get(h.workspaceId, stagingId)).toBeUndefined();
      const audit = await h.store.audit.recent(h.workspaceId);
      expect(audit.find((e) => e.action === 'account.remove')?.detail).toMatchObject({
        account: 'staging',
        tokens: 2,
      });

      // The token list (App Home, for admins) shows the two as reaching nothing; the others as before.
      const after = textOf((await openHome(h, ADMIN)).view);
      // A token's entry: its name, then what it reaches … up to who made it.
      const lineOf = (name: string) => {
        const start = after.indexOf(`*${name}*`);
        return start < 0 ? undefined : after.slice(start, after.indexOf('made by', start));
      };
      for (const name of ['staging-deploy', 'staging-assets'])
        expect(lineOf(name)).toContain('its CDN account was removed: it purges nothing');
      expect(lineOf('all-deploy')).toContain('*every CDN account*');
      expect(lineOf('default-deploy')).toContain('CDN account `default`');

      // The API agrees: the staging token is refused, the token for every account still purges.
      const refused = await postPurge(h, first.secret, {
        zone: 'only-in-staging.example',
        tags: ['a'],
      });
      expect(refused.status).toBe(403);
      const accepted = await postPurge(h, everywhere.secret, {
        zone: 'shop.example.org',
        account: 'default',
        tags: ['release'],
      });
      expect(accepted.status).toBe(202);
      await h.deps.runner.settled();
      expect(purges(h.sandbox.requests)).toEqual([{ tags: ['release'] }]);
      expect(purges(staging.requests)).toEqual([]);
    } finally {
      await staging.close();
    }
  });
});
