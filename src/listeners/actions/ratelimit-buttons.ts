// The On and Off buttons under `/cdn ratelimit <zone>`'s answer: the same change, with the same
// checks, as `/cdn ratelimit <zone> on|off`, said in the channel.
import type { AppDeps } from '../../deps.js';
import { buttonClick } from '../commands/context.js';
import type { ButtonArgs } from '../context.js';

export function rateLimitButton(deps: AppDeps, enabled: boolean) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const click = buttonClick(args, deps.clock.now());
    await deps.ratelimit.set(click.caller, click.value, enabled, click.replyTo);
  };
}
