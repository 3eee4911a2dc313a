// The change-freeze form: what, when (read by the command's own parser), time zone, channel, the
// purges flag and a reason; refusals inline, the declaration said where the form was opened.
import { inlineErrorText } from '../../blocks/errors.js';
import { freezeAddedMessage } from '../../blocks/freezes.js';
import { FREEZE_IDS } from '../../blocks/ids.js';
import { readTarget, readWhen } from '../../commands/freeze.js';
import type { AppDeps } from '../../deps.js';
import { originTarget } from '../../slack/message-target.js';
import { decodeOrigin } from '../commands/context.js';
import { callerOf, type SubmitArgs } from '../context.js';

export function freezeAddSubmit(deps: AppDeps) {
  return async ({ ack, view, client, context }: SubmitArgs) => {
    const caller = callerOf(context);
    const values = view.state.values;
    const value = (block: string, action: string) => (values[block]?.[action]?.value ?? '').trim();
    const inline = (block: string, message: string) =>
      ack({ response_action: 'errors', errors: { [block]: message } });
    const target = readTarget(value(FREEZE_IDS.targetBlock, FREEZE_IDS.targetInput));
    if (!target) return inline(FREEZE_IDS.targetBlock, 'A zone, account:<name> or workspace.');
    const when = readWhen(value(FREEZE_IDS.windowBlock, FREEZE_IDS.windowInput).split(/\s+/));
    if (!when.ok) return inline(FREEZE_IDS.windowBlock, when.error.replaceAll('`', ''));
    const reason = value(FREEZE_IDS.reasonBlock, FREEZE_IDS.reasonInput);
    if (reason === '') return inline(FREEZE_IDS.reasonBlock, 'Say why: the channel will read it.');
    const channelId =
      values[FREEZE_IDS.channelBlock]?.[FREEZE_IDS.channelInput]?.selected_conversation ?? '';
    const purges = (
      values[FREEZE_IDS.purgesBlock]?.[FREEZE_IDS.purgesInput]?.selected_options ?? []
    ).some((option) => option.value === 'purges');
    const timeZone = value(FREEZE_IDS.zoneBlock, FREEZE_IDS.zoneInput);
    let added: Awaited<ReturnType<AppDeps['freezes']['add']>>;
    try {
      added = await deps.freezes.add(caller, {
        target,
        rule: when.value.when,
        ...(timeZone ? { timeZone } : {}),
        reason,
        channelId,
        purges,
      });
    } catch (error) {
      return inline(FREEZE_IDS.windowBlock, inlineErrorText(error));
    }
    await ack();
    const origin = decodeOrigin(view.private_metadata, deps.isSlackResponseUrl);
    await originTarget(client, origin, caller.userId, deps.logger, 'ephemeral').post(
      freezeAddedMessage(added, deps.clock.now()),
    );
  };
}
