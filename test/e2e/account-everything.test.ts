// `/cdn purge <zone> everything` where the zone name is in two CDN accounts (issue 29), over the
// signed HTTP receiver: the requester picks the account, confirms in the form, and a second person
// approves the purge of that account's zone only, every step naming the account.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS } from '../../src/blocks/ids.js';
import { ask, buttonFor, purges, twoAccounts } from './account-flows.js';
import { openApprove } from './flows.js';
import { ADMIN, textOf, viewIdOf } from './harness.js';

describe('/cdn purge everything with a zone name in two CDN accounts', () => {
  it('asks which account, then asks a second person for that account’s zone only', async () => {
    const { h, staging } = await twoAccounts();
    try {
      const asked = await ask(h, 'purge shop.example.org everything');
      expect(textOf(asked.blocks)).toContain('is in several CDN accounts');

      const opens = h.slack.callsTo('views.open').length;
      await h.click(asked, buttonFor(asked, 'shop.example.org in staging'));
      const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', opens + 1);
      const viewId = viewIdOf(calls[opens]);
      expect(textOf(calls[opens]?.args.view)).toContain('Purge everything?');
      // The confirmation, the request and the approver's modal say whose zone it is.
      expect(textOf(calls[opens]?.args.view)).toContain('in the CDN account `staging`');
      const values = {
        [PURGE_IDS.confirmBlock]: {
          [PURGE_IDS.confirmInput]: { type: 'plain_text_input', value: 'shop.example.org' },
        },
        [PURGE_IDS.reasonBlock]: {
          [PURGE_IDS.reasonInput]: { type: 'plain_text_input', value: 'Bad deploy' },
        },
      };
      expect((await h.submit(viewId, values)).body).toBe('');
      const [request] = await h.slack.waitForMessages(
        (m) => m.via === 'api' && (m.text?.includes('Approval needed') ?? false),
      );
      if (!request) throw new Error('no request');
      expect(textOf(request.blocks)).toContain(
        'asked to purge everything on *shop.example.org* in the CDN account `staging`',
      );
      const account = await h.store.accounts.byName(h.workspaceId, 'staging');
      const pending = await h.store.db.selectFrom('approvals').select('account_id').execute();
      expect(pending).toEqual([{ account_id: account?.id }]);

      const approves = h.slack.callsTo('views.open').length;
      const approve = await openApprove(h, request, ADMIN);
      expect(textOf(h.slack.callsTo('views.open')[approves]?.args.view)).toContain(
        'in the CDN account `staging`',
      );
      await h.submit(approve, {}, { user: ADMIN });
      await h.slack.waitForMessages(
        (m) => m === request && (m.text?.includes('was purged') ?? false),
      );
      expect(purges(staging.requests)).toEqual([{ purge_everything: true }]);
      expect(purges(h.sandbox.requests)).toEqual([]);
    } finally {
      await staging.close();
    }
  });
});
