// /cdn ratelimit [zone] on|off: said at once, updated in place once every edge has it; no zone
// named, the channel's default. `/cdn ratelimit <zone>` alone shows its state with On and Off.
import { noticeMessage } from '../../blocks/errors.js';
import { rateLimitStateMessage } from '../../blocks/ratelimit.js';
import { parseRateLimitArgs } from '../../services/zones/ratelimit.js';
import { accountWords } from './account-words.js';
import { commandOrigin, replyTo, type SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn ratelimit <zone> on|off`, `/cdn ratelimit on|off` for the channel’s default zone, or `/cdn ratelimit <zone>` to see its state';

export const ratelimit: SubcommandHandler = async (context) => {
  const { deps, caller, command, respond } = context;
  const { args, account } = accountWords(context);
  const where = { channelId: command.channel_id, ...(account === undefined ? {} : { account }) };
  const parsed = parseRateLimitArgs(args);
  if (!parsed) {
    await respond(noticeMessage(USAGE));
    return;
  }
  if (parsed.enabled === undefined) {
    await respond(rateLimitStateMessage(await deps.ratelimit.state(caller, parsed.zone, where)));
    return;
  }
  const { enabled } = parsed;
  // The service says the change in the channel, and a job corrects that message once the
  // change has had time to reach every edge.
  const reply = replyTo(commandOrigin(command), caller.userId, deps.clock.now());
  await deps.ratelimit.set(
    caller,
    parsed.zone ??
      (() => deps.channels.defaultZone(caller.workspaceId, command.channel_id, 'ratelimit')),
    enabled,
    reply,
    where,
  );
};
