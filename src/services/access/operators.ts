// Who may change a zone or a CDN account: that account's operators (AccessService.requireOperator:
// its own group, else the workspace's). A zone named in a command is checked twice, on the
// directory's cache: before it is looked for (an operator of some account the command may use, so
// that nobody else makes the bot ask the CDN), then on the account it is found in. Work recorded on
// a zone (an alert, a watch, a report, a channel's binding) is checked on its record's account.
import type { Action } from '../../errors.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { AccessService, Caller } from './access.js';

/**
 * Operators of at least one of the accounts a command from `channelId` may use (`account`: the
 * one typed; none: every account). With no account holding a key: the workspace's operators.
 */
export async function requireOperatorWhere(
  deps: { access: AccessService; accountScopes: AccountScopes },
  caller: Caller,
  action: Action,
  where: { channelId?: string | undefined; account?: string | undefined } = {},
): Promise<void> {
  const scope = await deps.accountScopes.scope(caller.workspaceId, where.channelId, where.account);
  const accountIds = scope.accounts.map((account) => account.id);
  await deps.access.requireOperatorOfAny(caller, action, accountIds);
}
