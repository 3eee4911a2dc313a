// The token form: checked inline; the new token's secret replaces the form, shown this once (never
// posted in a conversation, never logged), with the CDN account it reaches.
import { inlineErrorText } from '../../blocks/errors.js';
import { TOKENS_IDS, ZONE_PICKER_IDS } from '../../blocks/ids.js';
import { tokenCreatedView } from '../../blocks/tokens.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { ApiTokenKind } from '../../services/api/api-tokens.js';
import { callerOf, type SubmitArgs } from '../context.js';
import { publishHome } from '../events/app-home-opened.js';

const KINDS: readonly string[] = ['urls_tags', 'everything'];

export function tokensSubmit(deps: AppDeps) {
  return async ({ ack, view, client, context }: SubmitArgs) => {
    const caller = callerOf(context);
    const values = view.state.values;
    const name = values[TOKENS_IDS.nameBlock]?.[TOKENS_IDS.nameInput]?.value?.trim() ?? '';
    const account =
      values[TOKENS_IDS.accountBlock]?.[TOKENS_IDS.accountInput]?.selected_option?.value ?? '';
    const allAccounts = account === TOKENS_IDS.allAccountsValue;
    const all = (
      values[TOKENS_IDS.allZonesBlock]?.[TOKENS_IDS.allZonesInput]?.selected_options ?? []
    ).some((o) => o.value === 'all');
    const zoneIds = (
      values[TOKENS_IDS.zonesBlock]?.[ZONE_PICKER_IDS.action]?.selected_options ?? []
    )
      .map((o) => o.value)
      .filter((v): v is string => typeof v === 'string' && v !== '');
    const kinds = (values[TOKENS_IDS.kindsBlock]?.[TOKENS_IDS.kindsInput]?.selected_options ?? [])
      .map((o) => o.value)
      .filter((v): v is ApiTokenKind => typeof v === 'string' && KINDS.includes(v));
    const channelId =
      values[TOKENS_IDS.channelBlock]?.[TOKENS_IDS.channelInput]?.selected_conversation ?? null;
    const inline = (block: string, text: string) =>
      ack({ response_action: 'errors', errors: { [block]: text } });

    if (name === '') return inline(TOKENS_IDS.nameBlock, 'Give the token a name.');
    // A form from before the account field (or a forged one) names none: it is chosen, never assumed.
    if (account === '')
      return inline(TOKENS_IDS.accountBlock, 'Choose the CDN account it may purge in.');
    if (!all && zoneIds.length === 0)
      return inline(
        TOKENS_IDS.zonesBlock,
        'Zones are required: pick at least one zone, or tick "All zones" under "Every zone".',
      );
    if (all && zoneIds.length > 0)
      return inline(TOKENS_IDS.allZonesBlock, 'Either some zones or all of them, not both.');
    if (allAccounts && !all)
      return inline(
        TOKENS_IDS.zonesBlock,
        'A token for every CDN account purges all their zones: tick "All zones", or choose one account.',
      );
    if (kinds.length === 0) return inline(TOKENS_IDS.kindsBlock, 'Pick what it may purge.');

    let created: Awaited<ReturnType<AppDeps['apiTokens']['create']>>;
    try {
      created = await deps.apiTokens.create(caller, {
        name,
        ...(allAccounts ? { allAccounts: true } : { accountId: account }),
        zones: all ? null : zoneIds,
        kinds,
        channelId,
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const field = error.problem.code === 'api_token_invalid' ? error.problem.field : undefined;
      const code = error.problem.code;
      const block =
        field === 'zones' || code === 'zone_not_found' || code === 'api_token_zone_account'
          ? TOKENS_IDS.zonesBlock
          : field === 'kinds'
            ? TOKENS_IDS.kindsBlock
            : field === 'account' || code === 'account_not_found' || code === 'account_unknown'
              ? TOKENS_IDS.accountBlock
              : TOKENS_IDS.nameBlock;
      return inline(block, inlineErrorText(error));
    }
    // The secret goes into this view only: Slack shows it to the admin who submitted the form.
    await ack({
      response_action: 'update',
      view: tokenCreatedView(created.token, created.secret, created.reach),
    });
    if (view.private_metadata === 'home')
      await publishHome(deps, client, caller).catch((error: unknown) =>
        deps.logger.warn({ err: error }, 'App Home not refreshed'),
      );
  };
}
