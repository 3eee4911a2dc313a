// A zone picker's value (`<account>/<zone id>` when several CDN accounts are in play) made and
// read back, and list items marked with whether their account holds a key.
/**
 * A zone picker's value: `<account>/<zone id>` for a zone of an account named (several accounts
 * in play), else the zone id alone (of the one account in play).
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

/** Each item marked with whether its account holds a key (is among `keyed`). */
export function markKeyed<T extends { accountId: string }>(
  items: readonly T[],
  keyed: ReadonlyArray<{ id: string }>,
): Array<T & { keyed: boolean }> {
  const ids = new Set(keyed.map((account) => account.id));
  return items.map((item) => ({ ...item, keyed: ids.has(item.accountId) }));
}
