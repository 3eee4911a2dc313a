// /cdn: acknowledge at once, then route the first word to its handler; every failure is a short message.
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { errorMessage } from '../../blocks/errors.js';
import { helpMessage } from '../../blocks/help.js';
import { CdnError } from '../../cdn/errors.js';
import { parseCommand, suggestSubcommand } from '../../commands/parse.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { analytics } from './analytics.js';
import { audit } from './audit.js';
import { config } from './config.js';
import type { SubcommandHandler } from './context.js';
import { create } from './create.js';
import { help } from './help.js';
import { login } from './login.js';
import { logout } from './logout.js';
import { purge } from './purge.js';
import { ratelimit } from './ratelimit.js';
import { report } from './report.js';
import { zones } from './zones.js';

const HANDLERS: Record<string, SubcommandHandler> = {
  '': help,
  help,
  zones,
  create,
  ratelimit,
  purge,
  analytics,
  report,
  audit,
  login,
  logout,
  config,
};

export function cdnCommand(deps: AppDeps) {
  return async ({
    command,
    ack,
    respond,
    client,
    context,
  }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    const { name, args } = parseCommand(command.text);
    const handler = HANDLERS[name];
    if (!handler) {
      const suggestion = suggestSubcommand(name);
      await respond(helpMessage({ unknown: name, ...(suggestion ? { suggestion } : {}) }));
      return;
    }
    const workspaceId = context.teamId ?? command.team_id;
    try {
      await handler({ deps, args, command, workspaceId, respond, client });
    } catch (error) {
      // Expected failures are the user's to read; anything else is ours to log.
      if (!(error instanceof AppError) && !(error instanceof CdnError)) {
        deps.logger.error({ err: error, subcommand: name, workspaceId }, 'slash command failed');
      }
      await respond(errorMessage(error, `running /cdn ${name}`));
    }
  };
}
