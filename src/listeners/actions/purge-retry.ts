// "Retry the N that failed": sends just the failed items of that purge again, in a new message
// (the original stays as the record of what failed first).
import type { AppDeps } from '../../deps.js';
import { replyTo } from '../commands/context.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function purgeRetry(deps: AppDeps) {
  return async ({ ack, action, body, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    await deps.access.requireOperator(caller, 'purge');
    await deps.channels.requirePurgeChannel(caller.workspaceId, body.channel?.id);
    const jobId = action.value ?? '';
    const group = await deps.purges.retryGroup(caller.workspaceId, jobId);
    await deps.flood.take(caller.workspaceId, caller.userId);
    const origin = {
      ...(body.response_url ? { responseUrl: body.response_url } : {}),
      ...(body.channel?.id ? { channelId: body.channel.id } : {}),
    };
    await deps.purges.start(
      caller.workspaceId,
      [group],
      caller.userId,
      replyTo(origin, caller.userId, deps.clock.now()),
      { retryOf: jobId },
    );
  };
}
