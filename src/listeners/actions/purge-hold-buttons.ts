// "Purge the N others" and "Cancel" under a held purge: only its requester decides, once; the
// question is then replaced by what was decided.
import { purgeHoldDecidedMessage } from '../../blocks/purge-hold.js';
import type { AppDeps } from '../../deps.js';
import { buttonOrigin, replyTo } from '../commands/context.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function purgeHoldConfirm(deps: AppDeps) {
  return async ({ ack, action, body, respond, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    const heldId = action.value ?? '';
    const origin = buttonOrigin(body);
    const held = await deps.purgeHolds.confirm(
      caller,
      origin.channelId,
      heldId,
      replyTo(origin, caller.userId, deps.clock.now()),
    );
    await respond({ replace_original: true, ...purgeHoldDecidedMessage(held, 'confirmed') });
  };
}

export function purgeHoldCancel(deps: AppDeps) {
  return async ({ ack, action, respond, context }: ButtonArgs) => {
    await ack();
    const held = await deps.purgeHolds.cancel(callerOf(context), action.value ?? '');
    await respond({ replace_original: true, ...purgeHoldDecidedMessage(held, 'cancelled') });
  };
}
