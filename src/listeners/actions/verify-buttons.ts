// "Verify at the edge" under a purge's result, and "Purge again" under a verification's summary:
// each one service call; the verification's messages come from its job, the purge's from its own.
import { verifyAlreadyAskedMessage } from '../../blocks/verify.js';
import type { AppDeps } from '../../deps.js';
import { buttonClick } from '../commands/context.js';
import type { ButtonArgs } from '../context.js';

export function verifyButton(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const click = buttonClick(args, deps.clock.now());
    const { created } = await deps.verify.verify(
      click.caller,
      click.channelId,
      click.value,
      click.replyTo,
    );
    // A second click soon after: the check under way (or just done) answers for both.
    if (!created)
      await args.respond({ response_type: 'ephemeral', ...verifyAlreadyAskedMessage() });
  };
}

export function verifyPurgeAgain(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const click = buttonClick(args, deps.clock.now());
    await deps.verify.purgeAgain(click.caller, click.channelId, click.value, click.replyTo);
  };
}
