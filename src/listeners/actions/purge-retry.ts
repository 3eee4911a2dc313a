// "Retry the N that failed": sends just the failed items of that purge again, in a new message
// (the original stays as the record of what failed first).
import type { AppDeps } from '../../deps.js';
import { respondTarget } from '../../slack/message-target.js';
import { purgeMessages } from '../../slack/purge-progress.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function purgeRetry(deps: AppDeps) {
  return async ({ ack, action, respond, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    await deps.access.requireOperator(caller, 'purge');
    const jobId = action.value ?? '';
    const group = await deps.purges.retryGroup(caller.workspaceId, jobId);
    await deps.flood.take(caller.workspaceId, caller.userId);
    await deps.purges.execute(
      caller.workspaceId,
      [group],
      caller.userId,
      purgeMessages(respondTarget(respond, 'in_channel'), deps.logger),
      { retryOf: jobId },
    );
  };
}
