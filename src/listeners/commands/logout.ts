// /cdn logout: admins remove the workspace's CDN API key.
import { noticeMessage } from '../../blocks/errors.js';
import type { SubcommandHandler } from './context.js';

export const logout: SubcommandHandler = async ({ deps, caller, respond }) => {
  const removed = await deps.credentials.remove(caller);
  await respond(
    removed
      ? noticeMessage(
          'The CDN API key is removed. Commands that need the CDN are off until an admin runs `/cdn login`.',
          ':wave:',
        )
      : noticeMessage('There was no CDN API key to remove.'),
  );
};
