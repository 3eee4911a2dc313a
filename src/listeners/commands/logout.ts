// /cdn logout: admins are shown what stops with the key, and choose (see logout-buttons.ts).
import { logoutConfirmMessage } from '../../blocks/logout.js';
import type { SubcommandHandler } from './context.js';

export const logout: SubcommandHandler = async ({ deps, caller, respond }) => {
  await respond(logoutConfirmMessage(await deps.credentials.logoutPreview(caller)));
};
