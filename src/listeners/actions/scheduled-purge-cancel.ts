// "Cancel" beside a scheduled purge (its confirmation, the list): its requester or an admin
// cancels it while it waits; the message is replaced by what was done.
import { scheduledPurgeCancelledMessage } from '../../blocks/scheduled-purges.js';
import type { AppDeps } from '../../deps.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function scheduledPurgeCancel(deps: AppDeps) {
  return async ({ ack, action, respond, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    const cancelled = await deps.scheduledPurges.cancel(caller, action.value ?? '');
    await respond({
      replace_original: true,
      ...scheduledPurgeCancelledMessage(cancelled, caller.userId),
    });
  };
}
