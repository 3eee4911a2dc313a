// Operators per CDN account (issue 29) for purges of URLs, over the signed HTTP receiver: with
// `default` held to @prod-ops and `staging` to @staging-ops, a staging operator purges staging's
// zones (typed, picked in the form, picked for an ambiguous name, held and confirmed) and a prod
// operator is refused on staging; the form's picker offers each person their own account's zones.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS, ZONE_PICKER_IDS } from '../../src/blocks/ids.js';
import { ask, buttonFor, purges, twoAccounts } from './account-flows.js';
import { ADMIN, type Harness, MEMBER, textOf, viewIdOf } from './harness.js';

interface Option {
  text: { text: string };
  value: string;
}

/** ADMIN holds `default` (prod) to @prod-ops (ADMIN) and `staging` to @staging-ops (MEMBER). */
async function rolesPerAccount() {
  const { h, staging } = await twoAccounts();
  h.slack.addUsergroup('S0PROD', 'prod-ops', [ADMIN]);
  h.slack.addUsergroup('S0STAGE', 'staging-ops', [MEMBER]);
  await ask(h, 'config operators @staging-ops account:staging', ADMIN);
  await ask(h, 'config operators @prod-ops account:default', ADMIN);
  expect((await h.store.accountRoles.list(h.workspaceId)).map((g) => g.groupId).sort()).toEqual([
    'S0PROD',
    'S0STAGE',
  ]);
  return { h, staging };
}

const purged = async (h: Harness, nth: number) =>
  h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, nth);

/** The purge form opened by `user`, and what its picker offers them for `typed`. */
async function pickerFor(h: Harness, user: string, typed: string) {
  const before = h.slack.callsTo('views.open').length;
  await h.command('purge', { user });
  const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', before + 1);
  const viewId = viewIdOf(calls[before]);
  const answer = await h.suggest(ZONE_PICKER_IDS.purge, typed, {
    user,
    viewId,
    blockId: PURGE_IDS.zoneBlock,
  });
  return { viewId, options: (JSON.parse(answer.body) as { options: Option[] }).options };
}

describe('operators per CDN account, for purges of URLs', () => {
  it('lets a staging operator purge staging, and refuses a prod operator there', async () => {
    const { h, staging } = await rolesPerAccount();
    try {
      await h.command('purge staging/example.com https://example.com/a.css', { user: MEMBER });
      await purged(h, 1);
      expect(purges(staging.requests)).toEqual([{ files: ['https://example.com/a.css'] }]);

      const refused = await ask(h, 'purge staging/example.com https://example.com/b.css', ADMIN);
      expect(textOf(refused.text)).toContain(
        "Only members of the CDN account *staging*'s operators group can purge cached content on it.",
      );
      const onProd = await ask(h, 'purge default/example.com https://example.com/c.css', MEMBER);
      expect(textOf(onProd.text)).toContain("CDN account *default*'s operators group");
      await h.deps.runner.settled();
      expect(purges(staging.requests)).toHaveLength(1);
      expect(purges(h.sandbox.requests)).toEqual([]);

      // An ambiguous name picked in staging, and a held purge confirmed there.
      const asked = await ask(h, 'purge https://shop.example.org/d.css', MEMBER);
      await h.click(asked, buttonFor(asked, 'shop.example.org in staging'), { user: MEMBER });
      await purged(h, 2);
      const held = await ask(
        h,
        'purge staging/example.com https://static.example.com/e.css https://example.com/f.css',
        MEMBER,
      );
      await h.click(held, PURGE_IDS.holdConfirm, { user: MEMBER });
      await purged(h, 3);
      expect(purges(staging.requests)).toEqual([
        { files: ['https://example.com/a.css'] },
        { files: ['https://shop.example.org/d.css'] },
        { files: ['https://example.com/f.css'] },
      ]);
      expect(purges(h.sandbox.requests)).toEqual([]);
    } finally {
      await staging.close();
    }
  });

  it('offers each operator the zones of their own account in the purge form, and purges there', async () => {
    const { h, staging } = await rolesPerAccount();
    try {
      const member = await pickerFor(h, MEMBER, 'shop');
      expect(member.options.map((o) => o.text.text)).toEqual(['staging/shop.example.org (active)']);
      const admin = await pickerFor(h, ADMIN, 'shop');
      expect(admin.options.map((o) => o.text.text)).toEqual(['default/shop.example.org (active)']);

      const option = member.options[0] as Option;
      const values = {
        [PURGE_IDS.zoneBlock]: {
          [ZONE_PICKER_IDS.purge]: {
            type: 'external_select',
            selected_option: { value: option.value, text: { type: 'plain_text', ...option.text } },
          },
        },
        [PURGE_IDS.modeBlock]: {
          [PURGE_IDS.modeInput]: { type: 'radio_buttons', selected_option: { value: 'urls' } },
        },
        [PURGE_IDS.itemsBlock]: {
          [PURGE_IDS.itemsInput]: { type: 'plain_text_input', value: 'https://shop.example.org/g' },
        },
      };
      expect((await h.submit(member.viewId, values, { user: MEMBER })).body).toBe('');
      await purged(h, 1);
      expect(purges(staging.requests)).toEqual([{ files: ['https://shop.example.org/g'] }]);

      // The prod operator, sending staging's option anyway, is refused on the zone field.
      const forged = JSON.parse((await h.submit(admin.viewId, values, { user: ADMIN })).body) as {
        errors: Record<string, string>;
      };
      expect(forged.errors[PURGE_IDS.zoneBlock]).toContain('*staging*');
      await h.deps.runner.settled();
      expect(purges(staging.requests)).toHaveLength(1);
      expect(purges(h.sandbox.requests)).toEqual([]);
    } finally {
      await staging.close();
    }
  });
});
