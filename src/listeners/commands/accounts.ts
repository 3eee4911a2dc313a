// /cdn accounts: the workspace's CDN accounts, their zones and whether each key works; admins get
// Add / Rename / Re-key / Remove (keys are only ever typed in a modal).
import { accountsMessage } from '../../blocks/accounts.js';
import type { SubcommandHandler } from './context.js';

export const accounts: SubcommandHandler = async ({ deps, caller, respond }) => {
  await respond(accountsMessage(await deps.accounts.overview(caller)));
};
