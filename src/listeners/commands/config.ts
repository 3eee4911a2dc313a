// /cdn config [operators|approvers @group|everyone]: admins say who may change and who may approve.
import { configMessage } from '../../blocks/config.js';
import { noticeMessage } from '../../blocks/errors.js';
import { parseUsergroup } from '../../commands/parse.js';
import { accessFor, type SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn config`, `/cdn config operators @group|everyone`, `/cdn config approvers @group|everyone`';

export const config: SubcommandHandler = async (context) => {
  const { args, deps, workspaceId, command, respond } = context;
  const workspace = await deps.store.workspaces.ensure(workspaceId);
  if (args.length === 0) {
    await respond(configMessage(workspace));
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
  await accessFor(context).requireAdmin(command.user_id, 'change who may operate the CDN');
  const groupId = everyone ? null : (group?.id ?? null);
  const updated = await deps.store.workspaces.update(
    workspaceId,
    role === 'operators' ? { operatorGroupId: groupId } : { approverGroupId: groupId },
  );
  await deps.store.audit.record({
    workspaceId,
    actorId: command.user_id,
    action: `config.${role}`,
    outcome: 'ok',
    detail: { group: groupId },
  });
  await respond(
    configMessage(updated, `${role === 'operators' ? 'Operators' : 'Approvers'} updated.`),
  );
};
