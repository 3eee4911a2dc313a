// /cdn ratelimit <zone> on|off: said at once, updated in place once every edge has it.
import { noticeMessage } from '../../blocks/errors.js';
import { rateLimitMessage } from '../../blocks/ratelimit.js';
import { PROPAGATION_MS } from '../../services/ratelimit.js';
import type { SubcommandHandler } from './context.js';

const USAGE = 'Usage: `/cdn ratelimit <zone> on|off`';

export const ratelimit: SubcommandHandler = async ({ args, deps, caller, respond }) => {
  const [zoneName, state] = args;
  const enabled =
    state?.toLowerCase() === 'on' ? true : state?.toLowerCase() === 'off' ? false : undefined;
  if (args.length !== 2 || zoneName === undefined || enabled === undefined) {
    await respond(noticeMessage(USAGE));
    return;
  }
  const zone = await deps.ratelimit.set(caller, zoneName, enabled);
  const message = { zone, enabled, actorId: caller.userId };
  await respond({ response_type: 'in_channel', ...rateLimitMessage(message) });

  // Not awaited: the command is done; the message is corrected when propagation time has passed.
  void deps.clock
    .sleep(PROPAGATION_MS)
    .then(() =>
      respond({
        response_type: 'in_channel',
        replace_original: true,
        ...rateLimitMessage({ ...message, propagatedAt: deps.clock.now() }),
      }),
    )
    .catch((error: unknown) =>
      deps.logger.warn({ err: error, zone: zone.id }, 'rate limit follow-up not posted'),
    );
};
