// The purge form and the message shortcut with two CDN accounts (issue 29), over the signed HTTP
// receiver: two sandboxes hold the same zone names. The form's picker offers the zones of every
// account the person may purge in (`<account>/<zone>`, the account in the value) and purges where
// picked; a message's URLs whose zone is in both accounts ask which account first, as
// `/cdn purge <url>` does.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS, ZONE_PICKER_IDS } from '../../src/blocks/ids.js';
import { validateOptions } from '../../src/dev/fake-slack/validate.js';
import { buttonFor, purges, twoAccounts } from './account-flows.js';
import { CHANNEL, type Harness, MEMBER, viewIdOf } from './harness.js';

interface Option {
  text: { text: string };
  value: string;
}

/** Opens the modal `/cdn <text>` opens; resolves with its id and view. */
async function opened(h: Harness, text: string) {
  const before = h.slack.callsTo('views.open').length;
  await h.command(text);
  const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', before + 1);
  const call = calls[before];
  return { viewId: viewIdOf(call), view: call?.args.view as Record<string, unknown> };
}

/** The options the purge form's picker offers in the modal `viewId` for `typed`. */
async function offered(h: Harness, viewId: string, typed: string): Promise<Option[]> {
  const answer = JSON.parse(
    (
      await h.suggest(ZONE_PICKER_IDS.purge, typed, {
        viewId,
        blockId: PURGE_IDS.zoneBlock,
      })
    ).body,
  ) as { options: Option[] };
  expect(validateOptions(answer)).toEqual([]);
  return answer.options;
}

/** The purge form's values: `option` picked, `items` to purge (URLs), in `mode`. */
function formValues(option: Option, items: string, mode = 'urls') {
  return {
    [PURGE_IDS.zoneBlock]: {
      [ZONE_PICKER_IDS.purge]: {
        type: 'external_select',
        selected_option: { value: option.value, text: { type: 'plain_text', ...option.text } },
      },
    },
    [PURGE_IDS.modeBlock]: {
      [PURGE_IDS.modeInput]: { type: 'radio_buttons', selected_option: { value: mode } },
    },
    [PURGE_IDS.itemsBlock]: { [PURGE_IDS.itemsInput]: { type: 'plain_text_input', value: items } },
  };
}

describe('the purge form with two CDN accounts', () => {
  it('offers the zones of both accounts as <account>/<zone>, and purges in the account picked', async () => {
    const { h, staging } = await twoAccounts();
    try {
      const { viewId } = await opened(h, 'purge');
      const options = await offered(h, viewId, 'shop');
      expect(options.map((o) => o.text.text)).toEqual([
        'default/shop.example.org (active)',
        'staging/shop.example.org (active)',
      ]);
      expect((await offered(h, viewId, 'only-in')).map((o) => o.text.text)).toEqual([
        'staging/only-in-staging.example (pending)',
      ]);
      const inStaging = options[1] as Option;
      const answer = await h.submit(
        viewId,
        formValues(inStaging, 'https://shop.example.org/a.css'),
      );
      expect(answer.body).toBe('');
      await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
      expect(purges(staging.requests)).toEqual([{ files: ['https://shop.example.org/a.css'] }]);
      expect(purges(h.sandbox.requests)).toEqual([]);

      // The same zone of `default`, picked in another form: `default` only.
      const second = await opened(h, 'purge');
      const inDefault = (await offered(h, second.viewId, 'shop'))[0] as Option;
      await h.submit(second.viewId, formValues(inDefault, 'https://shop.example.org/b.css'));
      await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false, 2);
      expect(purges(h.sandbox.requests)).toEqual([{ files: ['https://shop.example.org/b.css'] }]);
      expect(purges(staging.requests)).toHaveLength(1);
    } finally {
      await staging.close();
    }
  });

  it('offers at most 100 zones, of both accounts, and only the bound account’s in a bound channel', async () => {
    const bulk = Array.from({ length: 120 }, (_, i) => `bulk-${String(i).padStart(3, '0')}.test`);
    const { h, staging } = await twoAccounts(bulk);
    try {
      const { viewId } = await opened(h, 'purge');
      const all = await offered(h, viewId, '');
      expect(all).toHaveLength(100);
      const accounts = new Set(all.map((o) => o.text.text.split('/')[0]));
      expect(accounts).toEqual(new Set(['default', 'staging']));

      // Bound to staging: staging's zones only, and a `default` option sent anyway is refused.
      await h.command('use staging/');
      await h.slack.waitForMessages((m) => m.via === 'response_url');
      const bound = await opened(h, 'purge');
      const shop = await offered(h, bound.viewId, 'shop');
      expect(shop.map((o) => o.text.text)).toEqual(['staging/shop.example.org (active)']);
      const forged = { ...(shop[0] as Option), value: (all[0] as Option).value };
      expect(forged.value.startsWith('default/')).toBe(true);
      const refused = JSON.parse(
        (await h.submit(bound.viewId, formValues(forged, 'https://example.com/a.css'))).body,
      ) as { errors: Record<string, string> };
      expect(refused.errors[PURGE_IDS.zoneBlock]).toContain('staging');
      await h.deps.runner.settled();
      expect(purges(h.sandbox.requests)).toEqual([]);
      expect(purges(staging.requests)).toEqual([]);
    } finally {
      await staging.close();
    }
  });

  it('moves on to purge everything in the account picked', async () => {
    const { h, staging } = await twoAccounts();
    try {
      const { viewId } = await opened(h, 'purge');
      const inStaging = (await offered(h, viewId, 'shop'))[1] as Option;
      const answer = JSON.parse(
        (await h.submit(viewId, formValues(inStaging, '', 'everything'))).body,
      ) as { response_action: string; view: { private_metadata: string } };
      expect(answer.response_action).toBe('update');
      const account = await h.store.accounts.byName(h.workspaceId, 'staging');
      expect(JSON.parse(answer.view.private_metadata)).toMatchObject({ accountId: account?.id });
    } finally {
      await staging.close();
    }
  });
});

describe('the message shortcut with two CDN accounts', () => {
  it('asks which account when the URLs’ zone is in both, and the pick purges there only', async () => {
    const { h, staging } = await twoAccounts();
    try {
      const opens = h.slack.callsTo('views.open').length;
      await h.shortcut(PURGE_IDS.shortcut, {
        channel: CHANNEL,
        ts: '1795000000.000100',
        text: 'stale: https://shop.example.org/app.css',
      });
      const [asked] = await h.slack.waitForMessages(
        (m) => m.text?.includes('is in several CDN accounts') ?? false,
      );
      if (!asked) throw new Error('no question');
      expect(asked.ephemeralTo).toBe(MEMBER);
      expect(h.slack.callsTo('views.open')).toHaveLength(opens);
      await h.click(asked, buttonFor(asked, 'shop.example.org in staging'));
      await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
      expect(purges(staging.requests)).toEqual([{ files: ['https://shop.example.org/app.css'] }]);
      expect(purges(h.sandbox.requests)).toEqual([]);
    } finally {
      await staging.close();
    }
  });

  it('opens the form on the zone of the one account serving the URLs, and purges there', async () => {
    const { h, staging } = await twoAccounts();
    try {
      const before = h.slack.callsTo('views.open').length;
      await h.shortcut(PURGE_IDS.shortcut, {
        channel: CHANNEL,
        ts: '1795000000.000200',
        text: 'stale: https://only-in-staging.example/app.css',
      });
      const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', before + 1);
      const viewId = viewIdOf(calls[before]);
      const view = calls[before]?.args.view as { blocks: unknown[] };
      const picker = JSON.stringify(view.blocks);
      expect(picker).toContain('staging/only-in-staging.example (pending)');
      const initial = (
        view.blocks.find((b) => (b as { block_id?: string }).block_id === PURGE_IDS.zoneBlock) as {
          element: { initial_option: Option };
        }
      ).element.initial_option;
      expect(initial.value.startsWith('staging/')).toBe(true);
      await h.submit(viewId, formValues(initial, 'https://only-in-staging.example/app.css'));
      await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
      expect(purges(staging.requests)).toEqual([
        { files: ['https://only-in-staging.example/app.css'] },
      ]);
      expect(purges(h.sandbox.requests)).toEqual([]);
    } finally {
      await staging.close();
    }
  });
});
