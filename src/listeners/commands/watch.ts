// /cdn watch <zone> [threshold…] · /cdn watch list: a channel watches a zone for traffic alerts.
import { noticeMessage } from '../../blocks/errors.js';
import { watchingMessage, watchListMessage } from '../../blocks/watches.js';
import { accountWords } from './account-words.js';
import type { SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn watch <zone> [requests>50k/5m] [bandwidth>2g/5m] [hitrate<80%]`, `/cdn watch list`';

export const watch: SubcommandHandler = async (context) => {
  const { deps, caller, command, respond } = context;
  const { args, account } = accountWords(context);
  const [first, ...thresholds] = args;
  if (first === undefined) {
    await respond(noticeMessage(USAGE));
    return;
  }
  if (first.toLowerCase() === 'list' && thresholds.length === 0) {
    await respond(watchListMessage(await deps.watches.list(caller)));
    return;
  }
  const result = await deps.watches.watch(caller, {
    zone: first,
    channelId: command.channel_id,
    thresholds,
    ...(account === undefined ? {} : { account }),
  });
  await respond({ response_type: 'in_channel', ...watchingMessage(result.watch, result) });
};
