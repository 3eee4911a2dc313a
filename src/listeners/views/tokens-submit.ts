// The token form: checked inline; the new token's secret replaces the form, shown this once (never
// posted in a conversation, never logged).
import { inlineErrorText } from '../../blocks/errors.js';
import { TOKENS_IDS, ZONE_PICKER_IDS } from '../../blocks/ids.js';
import { tokenCreatedView } from '../../blocks/tokens.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { ApiTokenKind } from '../../services/api-tokens.js';
import { callerOf, type SubmitArgs } from '../context.js';
import { publishHome } from '../events/app-home-opened.js';

const KINDS: readonly string[] = ['urls_tags', 'everything'];

export function tokensSubmit(deps: AppDeps) {
  return async ({ ack, view, client, context }: SubmitArgs) => {
    const caller = callerOf(context);
    const values = view.state.values;
    const name = values[TOKENS_IDS.nameBlock]?.[TOKENS_IDS.nameInput]?.value?.trim() ?? '';
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
    if (!all && zoneIds.length === 0)
      return inline(TOKENS_IDS.zonesBlock, 'Pick at least one zone, or tick "All zones".');
    if (all && zoneIds.length > 0)
      return inline(TOKENS_IDS.allZonesBlock, 'Either some zones or all of them, not both.');
    if (kinds.length === 0) return inline(TOKENS_IDS.kindsBlock, 'Pick what it may purge.');

    let created: Awaited<ReturnType<AppDeps['apiTokens']['create']>>;
    try {
      created = await deps.apiTokens.create(caller, {
        name,
        zones: all ? null : zoneIds,
        kinds,
        channelId,
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const field = error.problem.code === 'api_token_invalid' ? error.problem.field : undefined;
      const block =
        field === 'zones'
          ? TOKENS_IDS.zonesBlock
          : field === 'kinds'
            ? TOKENS_IDS.kindsBlock
            : error.problem.code === 'zone_not_found'
              ? TOKENS_IDS.zonesBlock
              : TOKENS_IDS.nameBlock;
      return inline(block, inlineErrorText(error));
    }
    // The secret goes into this view only: Slack shows it to the admin who submitted the form.
    await ack({ response_action: 'update', view: tokenCreatedView(created.token, created.secret) });
    if (view.private_metadata === 'home')
      await publishHome(deps, client, caller).catch((error: unknown) =>
        deps.logger.warn({ err: error }, 'App Home not refreshed'),
      );
  };
}
