// /cdn use [zone|none]: show, set or clear the channel's default zone (setting and clearing are
// for operators, and said in the channel, since they change what everyone's commands act on).
import {
  channelAccountBoundMessage,
  channelBoundMessage,
  channelDefaultMessage,
  channelUnboundMessage,
} from '../../blocks/channels.js';
import { noticeMessage } from '../../blocks/errors.js';
import type { SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn use <zone>` to set this channel’s default zone, `/cdn use <account>/` or `/cdn use <account>/<zone>` to bind it to a CDN account, `/cdn use` to see it, `/cdn use none` to clear it.';

/** Words that clear the default rather than name a zone (none of them can be a domain). */
const CLEAR = new Set(['none', 'clear', 'off', '-']);

export const use: SubcommandHandler = async ({ args, deps, caller, command, respond, account }) => {
  const channelId = command.channel_id;
  const [word] = args;
  // `/cdn use staging/`, `/cdn use account:staging [zone]`, `/cdn use staging/example.com`.
  if (account !== undefined && args.length <= 1) {
    const bound = await deps.channels.bindAccount(caller, channelId, account, word);
    await respond({
      response_type: 'in_channel',
      ...channelAccountBoundMessage(bound, caller.userId),
    });
    return;
  }
  if (word === undefined) {
    await respond(
      channelDefaultMessage(await deps.channels.current(caller.workspaceId, channelId)),
    );
    return;
  }
  if (args.length > 1) {
    await respond(noticeMessage(USAGE));
    return;
  }
  if (CLEAR.has(word.toLowerCase())) {
    const removed = await deps.channels.unbind(caller, channelId);
    await respond(
      removed
        ? { response_type: 'in_channel', ...channelUnboundMessage(caller.userId) }
        : noticeMessage('This channel has no default zone to clear.'),
    );
    return;
  }
  const zone = await deps.channels.bind(caller, channelId, word);
  await respond({ response_type: 'in_channel', ...channelBoundMessage(zone, caller.userId) });
};
