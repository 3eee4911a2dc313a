// The purge-everything confirmation: the zone name typed back and a reason; then the request is
// posted in the channel for a second person.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { errorMessage, errorText } from '../../blocks/errors.js';
import { PURGE_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { originTarget } from '../../slack/message-target.js';
import { decodeOrigin, requireOperatorIn, workspaceOf } from '../commands/context.js';

export function purgeEverythingSubmit(deps: AppDeps) {
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
    const typed = (values[PURGE_IDS.confirmBlock]?.[PURGE_IDS.confirmInput]?.value ?? '')
      .trim()
      .toLowerCase()
      .replace(/\.$/, '');
    const reason = (values[PURGE_IDS.reasonBlock]?.[PURGE_IDS.reasonInput]?.value ?? '').trim();
    const origin = decodeOrigin(view.private_metadata);
    const inline = (block: string, message: string) =>
      ack({ response_action: 'errors', errors: { [block]: message } });

    // The zone comes from the form that opened this modal: its title names it.
    const zoneName = (
      view.blocks.find((b) => b.block_id === PURGE_IDS.confirmBlock) as
        | { label?: { text?: string } }
        | undefined
    )?.label?.text
      ?.replace(/^Type /, '')
      .replace(/ to confirm$/, '');
    if (!zoneName)
      return inline(
        PURGE_IDS.confirmBlock,
        'This form is out of date; start again with /cdn purge.',
      );
    if (typed !== zoneName.toLowerCase())
      return inline(PURGE_IDS.confirmBlock, `Type ${zoneName} exactly to confirm.`);
    if (reason === '') return inline(PURGE_IDS.reasonBlock, 'Say why: the approvers will read it.');
    if (!origin.channelId)
      return inline(
        PURGE_IDS.reasonBlock,
        'Start from a channel, so the approvers can see the request there.',
      );
    let zone: Awaited<ReturnType<typeof deps.zones.resolve>>;
    try {
      await requireOperatorIn({ client, workspaceId, deps }, userId, 'purge cached content');
      zone = await deps.zones.resolve(workspaceId, zoneName);
      await deps.flood.take(workspaceId, userId);
    } catch (error) {
      return inline(PURGE_IDS.confirmBlock, errorText(error));
    }
    await ack();
    try {
      await deps.approvals.request(workspaceId, {
        zone,
        requesterId: userId,
        reason,
        channelId: origin.channelId,
      });
    } catch (error) {
      if (!(error instanceof AppError))
        deps.logger.error({ err: error }, 'purge-everything request failed');
      await originTarget(client, origin, userId, 'ephemeral')
        .post(errorMessage(error, 'asking for approval'))
        .catch(() => undefined);
    }
  };
}
