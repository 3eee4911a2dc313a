// How a command looks zones up across CDN accounts, beside AccountScopes: whether a
// scope is searched account by account, and a zone picker's value (`<account>/<zone id>`) read back.
import { DEFAULT_ACCOUNT } from '../../store/accounts.js';

/** The accounts a scope holds, as far as these helpers need them (AccountScope). */
interface ScopeAccounts {
  accounts: ReadonlyArray<{ name: string }>;
  multi: boolean;
}

/**
 * Whether zones are looked for account by account (AccountScopes.resolve) rather than in
 * `default`'s index alone: several accounts, one named, or a workspace whose one
 * account is not `default` (it has no `default` to fall back to).
 */
export function byAccount(scope: ScopeAccounts): boolean {
  return (
    scope.multi || scope.accounts.some((account) => account.name.toLowerCase() !== DEFAULT_ACCOUNT)
  );
}

/**
 * A zone picker's value: `<account>/<zone id>` for a zone of an account named (several accounts
 * in play, or one other than `default`), else the zone id alone.
 */
export function pickedZone(value: string): { zoneId: string; account?: string } {
  const at = value.indexOf('/');
  if (at <= 0) return { zoneId: value };
  return { account: value.slice(0, at), zoneId: value.slice(at + 1) };
}

/** The value a zone picker gives a zone (read back by `pickedZone`). */
export function pickerValue(zone: { id: string }, account: string | undefined): string {
  return account === undefined ? zone.id : `${account}/${zone.id}`;
}

/**
 * Each item of an account other than `default` (one carrying `accountId`) marked with whether that
 * account holds a key (`keyed`, among `keyed` accounts): a list's own `keySet` is `default`'s.
 */
export function markKeyed<T extends { accountId?: string }>(
  items: readonly T[],
  keyed: ReadonlyArray<{ id: string }>,
): Array<T & { keyed?: boolean }> {
  const ids = new Set(keyed.map((account) => account.id));
  return items.map((item) =>
    item.accountId === undefined ? item : { ...item, keyed: ids.has(item.accountId) },
  );
}
