// The purge-everything confirmation: the zone name typed back and a reason; then the request is
// posted in the channel for a second person.
import { inlineErrorText } from '../../blocks/errors.js';
import { PURGE_IDS } from '../../blocks/ids.js';
import { scheduledPurgeMessage } from '../../blocks/scheduled-purges.js';
import type { AppDeps } from '../../deps.js';
import type { Zone } from '../../services/zones/zones.js';
import { explainMessage } from '../../slack/explain.js';
import { originTarget } from '../../slack/message-target.js';
import { zoneEitherForm, zoneKey } from '../../zone-names.js';
import { decodeOrigin } from '../commands/context.js';
import { callerOf, type SubmitArgs } from '../context.js';

export function purgeEverythingSubmit(deps: AppDeps) {
  return async ({ ack, view, client, context }: SubmitArgs) => {
    const caller = callerOf(context);
    const values = view.state.values;
    const typed = zoneKey(values[PURGE_IDS.confirmBlock]?.[PURGE_IDS.confirmInput]?.value ?? '');
    const reason = (values[PURGE_IDS.reasonBlock]?.[PURGE_IDS.reasonInput]?.value ?? '').trim();
    const origin = decodeOrigin(view.private_metadata, deps.isSlackResponseUrl);
    const inline = (block: string, message: string) =>
      ack({ response_action: 'errors', errors: { [block]: message } });

    // The zone comes from the form that opened this modal, by id.
    if (!origin.zoneId)
      return inline(
        PURGE_IDS.confirmBlock,
        'This form is out of date; start again with /cdn purge.',
      );
    if (!origin.channelId)
      return inline(
        PURGE_IDS.reasonBlock,
        'Start from a channel, so the approvers can see the request there.',
      );
    // A form opened by an earlier version does not say the zone's account: opened again, it does.
    if (origin.accountId === undefined)
      return inline(PURGE_IDS.confirmBlock, 'This form is out of date: run the command again.');
    let zone: Zone;
    try {
      zone = await deps.purges.zoneById(caller.workspaceId, origin.zoneId, origin.accountId);
    } catch (error) {
      return inline(PURGE_IDS.confirmBlock, inlineErrorText(error));
    }
    if (typed !== zoneKey(zone.name))
      return inline(
        PURGE_IDS.confirmBlock,
        `Type ${zoneEitherForm(zone.name)} exactly to confirm.`,
      );
    if (reason === '') return inline(PURGE_IDS.reasonBlock, 'Say why: the approvers will read it.');
    try {
      // Checked again here, the form complete: access or the purge channels may have changed.
      // The operators of the zone's own account.
      await deps.approvals.prepareRequest(caller, origin.channelId, zone.accountId);
    } catch (error) {
      return inline(PURGE_IDS.confirmBlock, inlineErrorText(error));
    }
    await ack();
    // Said where the form was started, as the user's own message.
    const said = () => originTarget(client, origin, caller.userId, deps.logger, 'ephemeral');
    const channelId = origin.channelId;
    const asked =
      origin.notBefore === undefined
        ? deps.approvals.request(caller.workspaceId, {
            zone,
            requesterId: caller.userId,
            reason,
            channelId,
          })
        : deps.scheduledPurges
            .requestEverything(caller, { zone, reason, channelId, notBefore: origin.notBefore })
            .then((scheduled) => said().post(scheduledPurgeMessage(scheduled)));
    await asked.catch((error: unknown) =>
      said().post(explainMessage(deps.logger, error, 'purge-everything request')),
    );
  };
}
