// /cdn help (and /cdn alone).
import { helpMessage } from '../../blocks/help.js';
import type { SubcommandHandler } from './context.js';

export const help: SubcommandHandler = async ({ respond }) => {
  await respond(helpMessage());
};
