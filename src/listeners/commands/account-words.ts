// The CDN account a subcommand's words name, for the handlers the router does not yet
// read it for: what the router read (`context.account`), else `readAccount` on the words here.
import { readAccount } from '../../commands/parse.js';
import { AppError } from '../../errors.js';
import type { SubcommandContext } from './context.js';

/** The words without the account, and the account typed (absent: none typed). */
export function accountWords(context: Pick<SubcommandContext, 'args' | 'account'>): {
  args: string[];
  account?: string;
} {
  if (context.account !== undefined) return { args: context.args, account: context.account };
  const words = readAccount(context.args);
  if (words.conflict) {
    const [first, second] = words.conflict;
    throw new AppError({ code: 'account_conflict', first, second });
  }
  return { args: words.args, ...(words.account === undefined ? {} : { account: words.account }) };
}
