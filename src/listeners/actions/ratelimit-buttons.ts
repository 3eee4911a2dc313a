// The On and Off buttons under `/cdn ratelimit <zone>`'s answer: the same change, with the same
// checks, as `/cdn ratelimit <zone> on|off`, said in the channel.
import { readAccount } from '../../commands/parse.js';
import type { AppDeps } from '../../deps.js';
import { defined } from '../../objects.js';
import { buttonClick } from '../commands/context.js';
import type { ButtonArgs } from '../context.js';

export function rateLimitButton(deps: AppDeps, enabled: boolean) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const click = buttonClick(args, deps.clock.now());
    // `<account>/<zone id>` when the zone's account name was known.
    const { args: words, account } = readAccount([click.value]);
    await deps.ratelimit.set(click.caller, words[0] ?? '', enabled, click.replyTo, {
      ...defined('channelId', click.channelId),
      ...defined('account', account),
    });
  };
}
