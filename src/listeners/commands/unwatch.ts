// /cdn unwatch <zone>: this channel stops watching the zone.
import { noticeMessage } from '../../blocks/errors.js';
import { unwatchedMessage } from '../../blocks/watches.js';
import { accountWords } from './account-words.js';
import type { SubcommandHandler } from './context.js';

export const unwatch: SubcommandHandler = async (context) => {
  const { deps, caller, command, respond } = context;
  const { args, account } = accountWords(context);
  const [zone] = args;
  if (args.length !== 1 || zone === undefined) {
    await respond(noticeMessage('Usage: `/cdn unwatch <zone>`'));
    return;
  }
  const watch = await deps.watches.unwatch(caller, {
    zone,
    channelId: command.channel_id,
    ...(account === undefined ? {} : { account }),
  });
  await respond({ response_type: 'in_channel', ...unwatchedMessage(watch) });
};
