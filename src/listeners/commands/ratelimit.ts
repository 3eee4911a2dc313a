// /cdn ratelimit <zone> on|off: said at once, updated in place once every edge has it.
import { noticeMessage } from '../../blocks/errors.js';
import { rateLimitMessage } from '../../blocks/ratelimit.js';
import { commandOrigin, replyTo, type SubcommandHandler } from './context.js';

const USAGE = 'Usage: `/cdn ratelimit <zone> on|off`';

export const ratelimit: SubcommandHandler = async ({ args, deps, caller, command, respond }) => {
  const [zoneName, state] = args;
  const enabled =
    state?.toLowerCase() === 'on' ? true : state?.toLowerCase() === 'off' ? false : undefined;
  if (args.length !== 2 || zoneName === undefined || enabled === undefined) {
    await respond(noticeMessage(USAGE));
    return;
  }
  // The message is corrected by a job once the change has had time to reach every edge.
  const reply = replyTo(commandOrigin(command), caller.userId, deps.clock.now());
  const zone = await deps.ratelimit.set(caller, zoneName, enabled, reply);
  await respond({
    response_type: 'in_channel',
    ...rateLimitMessage({ zone, enabled, actorId: caller.userId }),
  });
};
