// The On and Off buttons under `/cdn ratelimit <zone>`'s answer: the same change, with the same
// checks, as `/cdn ratelimit <zone> on|off`, said in the channel.
import type { AppDeps } from '../../deps.js';
import { buttonOrigin, replyTo } from '../commands/context.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function rateLimitButton(deps: AppDeps, enabled: boolean) {
  return async ({ ack, action, body, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    const origin = buttonOrigin(body);
    await deps.ratelimit.set(
      caller,
      action.value ?? '',
      enabled,
      replyTo(origin, caller.userId, deps.clock.now()),
    );
  };
}
