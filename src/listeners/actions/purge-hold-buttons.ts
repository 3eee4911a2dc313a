// "Purge the N others" and "Cancel" under a held purge: only its requester decides, once; the
// question is then replaced by what was decided.
import { purgeHoldDecidedMessage } from '../../blocks/purge-hold.js';
import type { AppDeps } from '../../deps.js';
import { buttonClick } from '../commands/context.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function purgeHoldConfirm(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const click = buttonClick(args, deps.clock.now());
    const held = await deps.purgeHolds.confirm(
      click.caller,
      click.channelId,
      click.value,
      click.replyTo,
    );
    await args.respond({ replace_original: true, ...purgeHoldDecidedMessage(held, 'confirmed') });
  };
}

export function purgeHoldCancel(deps: AppDeps) {
  return async ({ ack, action, respond, context }: ButtonArgs) => {
    await ack();
    const held = await deps.purgeHolds.cancel(callerOf(context), action.value ?? '');
    await respond({ replace_original: true, ...purgeHoldDecidedMessage(held, 'cancelled') });
  };
}
