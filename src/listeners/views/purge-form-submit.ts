// The purge form: URLs or tags are checked inline and purged after it closes; Everything moves on
// to the confirmation modal.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { errorText } from '../../blocks/errors.js';
import { PURGE_IDS, ZONE_PICKER_IDS } from '../../blocks/ids.js';
import { purgeEverythingModal } from '../../blocks/purge.js';
import { truncate } from '../../blocks/text.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { splitItems } from '../../services/purge-targets.js';
import { originTarget } from '../../slack/message-target.js';
import { decodeOrigin, encodeOrigin, requireOperatorIn, workspaceOf } from '../commands/context.js';
import { runPurges } from '../purge-run.js';

export function purgeFormSubmit(deps: AppDeps) {
  return async ({
    ack,
    body,
    view,
    client,
    context,
  }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs) => {
    const workspaceId = workspaceOf(context, body);
    const userId = body.user.id;
    const values = view.state.values;
    const zoneId = values[PURGE_IDS.zoneBlock]?.[ZONE_PICKER_IDS.action]?.selected_option?.value;
    const mode =
      values[PURGE_IDS.modeBlock]?.[PURGE_IDS.modeInput]?.selected_option?.value ?? 'urls';
    const words = (values[PURGE_IDS.itemsBlock]?.[PURGE_IDS.itemsInput]?.value ?? '')
      .split(/[\s,]+/)
      .filter(Boolean);
    const inline = (block: string, message: string) =>
      ack({ response_action: 'errors', errors: { [block]: truncate(message, 2000) } });

    if (!zoneId) return inline(PURGE_IDS.zoneBlock, 'Pick a zone.');
    let zone: Awaited<ReturnType<typeof deps.zones.resolve>>;
    try {
      await requireOperatorIn({ client, workspaceId, deps }, userId, 'purge cached content');
      zone = await deps.zones.resolve(workspaceId, zoneId);
    } catch (error) {
      return inline(PURGE_IDS.zoneBlock, errorText(error));
    }
    if (mode === 'everything') {
      const metadata = encodeOrigin({ ...decodeOrigin(view.private_metadata), zoneId: zone.id });
      return ack({ response_action: 'update', view: purgeEverythingModal({ zone, metadata }) });
    }
    // In tag mode every word is a tag; `tag:` prefixes are accepted too.
    const items =
      mode === 'tags'
        ? { urls: [], tags: words.map((w) => w.replace(/^tag:/i, '')), unknown: [] }
        : splitItems(words);
    if (items.urls.length + items.tags.length + items.unknown.length === 0) {
      return inline(
        PURGE_IDS.itemsBlock,
        mode === 'tags' ? 'Add at least one cache tag.' : 'Add at least one URL.',
      );
    }
    const plan = await deps.purges.plan(workspaceId, { kind: 'items', zone: zone.id, ...items });
    if (plan.rejected.length > 0) {
      const shown = plan.rejected.slice(0, 5).map((r) => `${truncate(r.item, 80)}: ${r.reason}`);
      return inline(
        PURGE_IDS.itemsBlock,
        `Nothing was purged. Refused: ${shown.join('; ')}${plan.rejected.length > 5 ? `; and ${plan.rejected.length - 5} more` : ''}.`,
      );
    }
    try {
      await deps.flood.take(workspaceId, userId);
    } catch (error) {
      return inline(PURGE_IDS.itemsBlock, errorText(error));
    }
    await ack();
    const target = originTarget(client, decodeOrigin(view.private_metadata), userId);
    await runPurges(deps, workspaceId, plan.groups, userId, target).catch((error: unknown) => {
      if (!(error instanceof AppError))
        deps.logger.error({ err: error }, 'purge from the form failed');
    });
  };
}
