// "<zone> in <account>" under a purge whose zone name is in several CDN accounts: the requester's
// click continues that purge in the account, once; the question becomes what was done. A purge of
// everything opens its confirmation form in that account instead (the question stays, to pick
// again should the form be closed).
import { accountPickedMessage } from '../../blocks/account-pick.js';
import { purgeRefusedMessage } from '../../blocks/purge.js';
import { purgeHoldMessage } from '../../blocks/purge-hold.js';
import type { AppDeps } from '../../deps.js';
import { buttonOrigin, everythingModal, replyTo } from '../commands/context.js';
import { type ButtonArgs, callerOf } from '../context.js';

export function accountPickButton(deps: AppDeps) {
  return async ({ ack, action, body, respond, context, client }: ButtonArgs) => {
    await ack();
    const caller = callerOf(context);
    const { id, account } = readPickValue(action.value ?? '');
    const origin = buttonOrigin(body);
    const outcome = await deps.accountPicks.choose(
      caller,
      origin.channelId,
      id,
      account,
      replyTo(origin, caller.userId, deps.clock.now()),
    );
    if (outcome.kind === 'everything') {
      const { zone } = outcome;
      await client.views.open({
        trigger_id: body.trigger_id,
        view: everythingModal(zone, origin),
      });
      return;
    }
    const answer =
      outcome.kind === 'started'
        ? accountPickedMessage(outcome.pick, outcome.account)
        : outcome.kind === 'held'
          ? purgeHoldMessage(outcome.held)
          : purgeRefusedMessage(outcome.plan);
    await respond({ replace_original: true, ...answer });
  };
}

/** The pick's id and the account a button's value names (`<id>:<account>`, src/blocks/account-pick.ts). */
function readPickValue(value: string): { id: string; account: string } {
  const at = value.lastIndexOf(':');
  return at < 0
    ? { id: value, account: '' }
    : { id: value.slice(0, at), account: value.slice(at + 1) };
}
