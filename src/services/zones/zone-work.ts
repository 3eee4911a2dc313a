// What the services of a channel's standing work on a zone (watches, daily reports) do alike: find
// the zone in the channel's CDN account, make the store's input, list what the caller may see, and
// write a change to the audit log.
import type { Zone } from '../../cdn/schemas.js';
import type { Action } from '../../errors.js';
import type { AuditLogRepository } from '../../store/audit-log.js';
import type { CredentialRepository } from '../../store/credentials.js';
import type { ZoneWork } from '../../store/zone-work.js';
import type { AccessService, Caller } from '../access/access.js';
import { markKeyed } from '../accounts/account-lookup.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { ZoneService } from './zones.js';

/** What these functions read: the services of watches and reports are given them all. */
export interface ZoneWorkDeps {
  credentials: CredentialRepository;
  audit: AuditLogRepository;
  access: AccessService;
  zones: ZoneService;
  /** Which CDN account a zone named is in. */
  accountScopes: AccountScopes;
}

/**
 * The zone named, in the account the channel or the words give. Commands and charts look a zone
 * up so too (ratelimit.ts, analytics.ts).
 */
export function zoneForChannel(
  deps: { accountScopes: AccountScopes },
  workspaceId: string,
  input: { zone: string; channelId?: string | undefined; account?: string | undefined },
): Promise<Zone> {
  return deps.accountScopes.zone(workspaceId, input.channelId, input.account, input.zone);
}

/** The new work's zone (in its account), channel and creator: the caller. */
export function newZoneWork(caller: Caller, zone: Zone, channelId: string): Omit<ZoneWork, 'id'> {
  return {
    workspaceId: caller.workspaceId,
    zoneId: zone.id,
    zoneName: zone.name,
    accountId: zone.accountId,
    channelId,
    createdBy: caller.userId,
  };
}

/**
 * Operators among the workspace's full members (never a guest): the work of the conversations the
 * caller is in (`shown`), each saying whether its CDN account holds a key (`keyed`; without one,
 * it waits for one), how many others there are (`hidden`), and whether the account `/cdn login`
 * manages has a key (`keySet`).
 */
export async function visibleZoneWork<T extends ZoneWork>(
  deps: {
    access: AccessService;
    credentials: CredentialRepository;
    accountScopes: AccountScopes;
  },
  caller: Caller,
  action: Action,
  list: () => Promise<T[]>,
): Promise<{ shown: Array<T & { keyed: boolean }>; hidden: number; keySet: boolean }> {
  await deps.access.requireFullMember(caller, action);
  await deps.access.requireOperator(caller, action);
  const [all, key, keyed] = await Promise.all([
    list(),
    deps.credentials.status(caller.workspaceId),
    deps.accountScopes.scope(caller.workspaceId, undefined, undefined),
  ]);
  const { shown, hidden } = await deps.access.visibleIn(caller, all);
  return { shown: markKeyed(shown, keyed.accounts), hidden, keySet: key !== undefined };
}

/** A change the caller made on a zone (it went through), in the audit log. */
export async function auditZoneChange(
  audit: AuditLogRepository,
  caller: Caller,
  subject: { zoneId: string; zoneName: string; accountId: string },
  action: string,
  detail: Record<string, unknown>,
): Promise<void> {
  await audit.record({
    workspaceId: caller.workspaceId,
    actorId: caller.userId,
    action,
    zoneId: subject.zoneId,
    zoneName: subject.zoneName,
    accountId: subject.accountId,
    outcome: 'ok',
    detail,
  });
}
