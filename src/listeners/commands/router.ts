// /cdn: acknowledge at once, then route the first word to its subcommand. Failures are the error
// policy's (src/listeners/error-policy.ts): this only routes.
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { helpMessage, unknownSubcommandMessage } from '../../blocks/help.js';
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
        suggestion
          ? unknownSubcommandMessage(name, suggestion)
          : helpMessage(HELP_ENTRIES, { unknown: name }),
      );
      return;
    }
    // The commands that take a zone read the account out of their words; their
    // services resolve it (a channel bound to an account refuses another).
    const words = ACCOUNT_COMMANDS.has(subcommand.name) ? readAccount(args) : { args };
    if (words.conflict) {
      const [first, second] = words.conflict;
      throw new AppError({ code: 'account_conflict', first, second });
    }
    const caller = callerOf(context);
    await subcommand.handler({
      deps,
      args: words.args,
      ...(words.account === undefined ? {} : { account: words.account }),
      tokens,
      command,
      caller,
      respond,
      client,
    });
  };
}
