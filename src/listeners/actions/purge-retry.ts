// "Retry the N that failed": sends just the failed items of that purge again, in a new message
// (the original stays as the record of what failed first).
import type { AppDeps } from '../../deps.js';
import { buttonClick } from '../commands/context.js';
import type { ButtonArgs } from '../context.js';

export function purgeRetry(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const click = buttonClick(args, deps.clock.now());
    await deps.purges.retry(click.caller, click.channelId, click.value, click.replyTo);
  };
}
