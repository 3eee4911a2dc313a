// /cdn config [operators|approvers @group|everyone]: admins say who may change and who may approve.
import { configMessage } from '../../blocks/config.js';
import { noticeMessage } from '../../blocks/errors.js';
import { parseUsergroup } from '../../commands/parse.js';
import type { SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn config`, `/cdn config operators @group|everyone`, `/cdn config approvers @group|everyone`';

export const config: SubcommandHandler = async ({ args, deps, caller, respond }) => {
  if (args.length === 0) {
    await respond(configMessage(await deps.config.get(caller.workspaceId)));
    return;
  }
  const [role, target] = args;
  const everyone = target?.toLowerCase() === 'everyone' || target?.toLowerCase() === 'none';
  const group = target === undefined ? undefined : parseUsergroup(target);
  if (
    args.length !== 2 ||
    (role !== 'operators' && role !== 'approvers') ||
    (!everyone && !group)
  ) {
    await respond(noticeMessage(`${USAGE}. Mention the group with @ so Slack sends its id.`));
    return;
  }
  const updated = await deps.config.setRole(caller, role, everyone ? null : (group?.id ?? null));
  await respond(
    configMessage(updated, `${role === 'operators' ? 'Operators' : 'Approvers'} updated.`),
  );
};
