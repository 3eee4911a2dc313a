// /cdn freeze add … · list · remove <id> · except <zone>|account:<name> <action> <reason>
import { noticeMessage } from '../../blocks/errors.js';
import {
  freezeAddedMessage,
  freezeAddModal,
  freezeExceptionAskedMessage,
  freezeListMessage,
  freezeRemovedMessage,
} from '../../blocks/freezes.js';
import { FREEZE_ADD_USAGE, parseFreezeAdd, readAction, readTarget } from '../../commands/freeze.js';
import { commandOrigin, encodeOrigin, type SubcommandHandler } from './context.js';

const USAGE = `Usage: ${FREEZE_ADD_USAGE}, \`/cdn freeze list\`, \`/cdn freeze remove <id>\`, \`/cdn freeze except <zone>|account:<name> everything|ratelimit|create|purge <reason>\``;

export const freeze: SubcommandHandler = async (context) => {
  const { deps, caller, command, respond, args, tokens, client } = context;
  const [first, ...rest] = args;
  const verb = first?.toLowerCase();
  const now = deps.clock.now();
  if (verb === 'list') {
    await respond(freezeListMessage(await deps.freezes.list(caller), now));
    return;
  }
  if (verb === 'remove') {
    await respond(freezeRemovedMessage(await deps.freezes.remove(caller, rest[0] ?? '')));
    return;
  }
  if (verb === 'add' && rest.length === 0) {
    const { timeZone } = await deps.freezes.formDefaults(caller);
    await client.views.open({
      trigger_id: command.trigger_id,
      view: freezeAddModal({
        timeZone,
        channelId: command.channel_id,
        metadata: encodeOrigin(commandOrigin(command)),
      }),
    });
    return;
  }
  if (verb === 'add') {
    const parsed = parseFreezeAdd(rest, tokens.slice(1));
    if (!parsed.ok) {
      await respond(noticeMessage(`${parsed.error} ${USAGE}`));
      return;
    }
    const { target, when, timeZone, channelId, purges, reason } = parsed.value;
    const added = await deps.freezes.add(caller, {
      target,
      rule: when,
      ...(timeZone ? { timeZone } : {}),
      reason,
      channelId: channelId ?? command.channel_id,
      purges,
    });
    await respond(freezeAddedMessage(added, now));
    return;
  }
  if (verb === 'except' || verb === 'exception') {
    const target = readTarget(rest[0]);
    const action = readAction(rest[1]);
    const reason = rest.slice(2).join(' ').trim();
    if (!target || !action || reason === '') {
      await respond(noticeMessage(USAGE));
      return;
    }
    const exception = await deps.freezes.requestException(caller, {
      target,
      action,
      reason,
      channelId: command.channel_id,
    });
    await respond(freezeExceptionAskedMessage(exception));
    return;
  }
  await respond(noticeMessage(USAGE));
};
