// "<zone> in <account>" under a purge whose zone name is in several CDN accounts: the requester's
// click continues that purge in the account, once; the question becomes what was done.
import { accountPickedMessage } from '../../blocks/account-pick.js';
import { purgeRefusedMessage } from '../../blocks/purge.js';
import { purgeHoldMessage } from '../../blocks/purge-hold.js';
import type { AppDeps } from '../../deps.js';
import { buttonClick } from '../commands/context.js';
import type { ButtonArgs } from '../context.js';

export function accountPickButton(deps: AppDeps) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const click = buttonClick(args, deps.clock.now());
    const { id, account } = readPickValue(click.value);
    const outcome = await deps.accountPicks.choose(
      click.caller,
      click.channelId,
      id,
      account,
      click.replyTo,
    );
    const answer =
      outcome.kind === 'started'
        ? accountPickedMessage(outcome.pick, outcome.account)
        : outcome.kind === 'held'
          ? purgeHoldMessage(outcome.held)
          : purgeRefusedMessage(outcome.plan);
    await args.respond({ replace_original: true, ...answer });
  };
}

/** The pick's id and the account a button's value names (`<id>:<account>`, src/blocks/account-pick.ts). */
function readPickValue(value: string): { id: string; account: string } {
  const at = value.lastIndexOf(':');
  return at < 0
    ? { id: value, account: '' }
    : { id: value.slice(0, at), account: value.slice(at + 1) };
}
