// "Retry the N that failed": sends just the failed items of that purge again, in a new message
// (the original stays as the record of what failed first).
import type { AppDeps } from '../../deps.js';
import { buttonOrigin, replyTo } from '../commands/context.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function purgeRetry(deps: AppDeps) {
  return async ({ ack, action, body, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    const origin = buttonOrigin(body);
    await deps.purges.retry(
      caller,
      origin.channelId,
      action.value ?? '',
      replyTo(origin, caller.userId, deps.clock.now()),
    );
  };
}
