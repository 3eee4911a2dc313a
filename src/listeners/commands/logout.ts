// /cdn logout: admins remove the workspace's CDN API key.
import { noticeMessage } from '../../blocks/errors.js';
import { accessFor, type SubcommandHandler } from './context.js';

export const logout: SubcommandHandler = async (context) => {
  const { deps, workspaceId, command, respond } = context;
  await accessFor(context).requireAdmin(command.user_id, 'remove the CDN API key');
  const removed = await deps.credentials.remove(workspaceId, command.user_id);
  deps.zones.forget(workspaceId);
  await respond(
    removed
      ? noticeMessage(
          'The CDN API key is removed. Commands that need the CDN are off until an admin runs `/cdn login`.',
          ':wave:',
        )
      : noticeMessage('There was no CDN API key to remove.'),
  );
};
