// "Verify at the edge" under a purge's result, and "Purge again" under a verification's summary:
// each one service call; the verification's messages come from its job, the purge's from its own.
import { verifyAlreadyAskedMessage } from '../../blocks/verify.js';
import type { AppDeps } from '../../deps.js';
import { buttonOrigin, replyTo } from '../commands/context.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function verifyButton(deps: AppDeps) {
  return async ({ ack, action, body, respond, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    const origin = buttonOrigin(body);
    const { created } = await deps.verify.verify(
      caller,
      origin.channelId,
      action.value ?? '',
      replyTo(origin, caller.userId, deps.clock.now()),
    );
    // A second click soon after: the check under way (or just done) answers for both.
    if (!created) await respond({ response_type: 'ephemeral', ...verifyAlreadyAskedMessage() });
  };
}

export function verifyPurgeAgain(deps: AppDeps) {
  return async ({ ack, action, body, context }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    const origin = buttonOrigin(body);
    await deps.verify.purgeAgain(
      caller,
      origin.channelId,
      action.value ?? '',
      replyTo(origin, caller.userId, deps.clock.now()),
    );
  };
}
