// The Cancel button next to a scheduled purge on the App Home: the same cancel as `/cdn purge
// cancel` (its requester or an admin, while it waits); the home is then shown again.
import type { AppDeps } from '../../deps.js';
import { type ButtonArgs, callerOf } from '../context.js';
import { publishHome } from '../events/app-home-opened.js';

export function homeCancelScheduled(deps: AppDeps) {
  return async ({ ack, action, client, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    try {
      await deps.scheduledPurges.cancel(caller, action.value ?? '');
    } finally {
      // The refresh is a courtesy: the purge is cancelled (or not, and told why) whatever it does.
      await publishHome(deps, client, caller).catch((error: unknown) =>
        deps.logger.warn({ err: error }, 'App Home not refreshed'),
      );
    }
  };
}
