// /cdn tokens: the workspace's tokens of the HTTP API (admins), with Create token and Revoke.
import { noticeMessage } from '../../blocks/errors.js';
import { md } from '../../blocks/text.js';
import { tokensMessage } from '../../blocks/tokens.js';
import type { SubcommandHandler } from './context.js';

export const tokens: SubcommandHandler = async ({ args, deps, caller, respond }) => {
  if (args.length > 0) {
    await respond(noticeMessage(md`Usage: \`/cdn tokens\` (it lists them, with *Create token*).`));
    return;
  }
  await respond(tokensMessage(await deps.apiTokens.list(caller)));
};
