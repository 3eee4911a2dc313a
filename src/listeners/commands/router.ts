// /cdn: acknowledge at once, then route the first word to its subcommand. Failures are the error
// policy's (src/listeners/error-policy.ts): this only routes.
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { helpMessage } from '../../blocks/help.js';
import { parseCommand, readAccount, suggestSubcommand } from '../../commands/parse.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { MAX_TEXT_LENGTH } from '../../text.js';
import { callerOf } from '../context.js';
import { findSubcommand, HELP_ENTRIES, isHelp, SUBCOMMAND_NAMES } from './registry.js';

/** The subcommands that take a zone, and so a CDN account (`account:<name>`, `<account>/<zone>`). */
const ACCOUNT_COMMANDS: ReadonlySet<string> = new Set([
  'zones',
  'create',
  'purge',
  'ratelimit',
  'analytics',
  'watch',
  'unwatch',
  'report',
  'use',
]);
/**
 * Those whose services act on the account resolved (issue 29). The others act on `default` only
 * for now: the account (typed, or the channel's) is checked to be `default`, else refused.
 */
const THREADED: ReadonlySet<string> = new Set(['purge', 'use']);

export function routeCommand(deps: AppDeps) {
  return async ({
    command,
    ack,
    respond,
    client,
    context,
  }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    const { length } = command.text;
    if (length > MAX_TEXT_LENGTH)
      throw new AppError({ code: 'text_too_long', what: 'command', length, max: MAX_TEXT_LENGTH });
    const { name, args, tokens } = parseCommand(command.text);
    const subcommand = findSubcommand(name);
    if (!subcommand) {
      if (isHelp(name)) {
        await respond(helpMessage(HELP_ENTRIES));
        return;
      }
      const suggestion = suggestSubcommand(name, SUBCOMMAND_NAMES);
      await respond(
        helpMessage(HELP_ENTRIES, { unknown: name, ...(suggestion ? { suggestion } : {}) }),
      );
      return;
    }
    // The commands threaded through accounts read the account out of their words (issue 29);
    // the others keep their words as typed (an `<account>/<zone>` there is no zone they know).
    const words = ACCOUNT_COMMANDS.has(subcommand.name) ? readAccount(args) : { args };
    if (words.conflict) {
      const [first, second] = words.conflict;
      throw new AppError({ code: 'account_conflict', first, second });
    }
    const caller = callerOf(context);
    if (ACCOUNT_COMMANDS.has(subcommand.name) && !THREADED.has(subcommand.name))
      await deps.accountScopes.requireDefault(
        caller.workspaceId,
        command.channel_id,
        words.account,
        subcommand.name,
      );
    await subcommand.handler({
      deps,
      args: words.args,
      ...(words.account === undefined || !THREADED.has(subcommand.name)
        ? {}
        : { account: words.account }),
      tokens,
      command,
      caller,
      respond,
      client,
    });
  };
}
