// The purge form's question "Purge the N others?" submitted: the held purge starts, once. Closing
// the modal instead purges nothing (the hold lapses).
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { decodeOrigin, replyTo } from '../commands/context.js';
import { callerOf, type SubmitArgs } from '../context.js';

export function purgeHoldSubmit(deps: AppDeps) {
  return async ({ ack, view, context }: SubmitArgs) => {
    const caller = callerOf(context);
    const origin = decodeOrigin(view.private_metadata, deps.isSlackResponseUrl);
    if (!origin.heldId) throw new AppError({ code: 'purge_hold_unknown' });
    await deps.purgeHolds.confirm(
      caller,
      origin.channelId,
      origin.heldId,
      replyTo(origin, caller.userId, deps.clock.now()),
    );
    await ack();
  };
}
