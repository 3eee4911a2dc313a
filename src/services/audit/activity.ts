// What a workspace has been doing: the audit trail (`/cdn audit`) and the App Home's overview. Both
// are the workspace's records: its full members' only, and even they see nothing of a conversation
// they are not in (an entry's reason or note, a report or watch there).
import { DateTime } from 'luxon';
import type { AuditKindName } from '../../audit-kinds.js';
import { TOKEN_ACTOR_PREFIX } from '../../audit-kinds.js';
import { AppError } from '../../errors.js';
import type { AccountRepository } from '../../store/accounts.js';
import type { ApprovalRepository } from '../../store/approvals.js';
import type {
  AuditCursor,
  AuditEntry,
  AuditFilter,
  AuditLogRepository,
} from '../../store/audit-log.js';
import type { CredentialRepository, CredentialStatus } from '../../store/credentials.js';
import { LOGIN_ACCOUNT } from '../../store/credentials.js';
import type { Schedule, ScheduleRepository } from '../../store/schedules.js';
import type { Watch, WatchRepository } from '../../store/watches.js';
import type { WorkspaceRepository } from '../../store/workspaces.js';
import type { AccessService, Caller, Permissions, Visible } from '../access/access.js';
import { markKeyed } from '../accounts/account-lookup.js';

/**
 * An audit entry as one person may see it: `withheld` when it comes from a conversation they are
 * not in, its detail then cut to counts and ids (no reason, note, channel or rule).
 */
export type VisibleAuditEntry = AuditEntry & {
  withheld?: boolean;
  /** The entry's CDN account by name, given when the workspace has more than one. */
  accountName?: string;
};

/** The details of an entry that say nothing of the conversation it came from. */
const NEUTRAL_DETAIL = [
  'files',
  'tags',
  'failed',
  'unconfirmed',
  'requests',
  'purgeId',
  'purgeIds',
  'errors',
];

/** The filters of `/cdn audit` as typed (src/commands/audit-query.ts reads them from the words). */
export interface AuditQuery {
  zone?: string;
  /** A CDN account by name: the entries on its zones only. */
  account?: string;
  /** A person by id, by name as typed (not resolvable: Slack sends a picked mention as an id), or a CI token. */
  actor?:
    | { kind: 'user'; userId: string }
    | { kind: 'name'; name: string }
    | { kind: 'token'; name: string };
  kind?: AuditKindName;
  /** Calendar days `YYYY-MM-DD` in the viewer's time zone; `until` is included. */
  since?: string;
  until?: string;
}

/** Which page: the first, the one after (older than) an entry, or the one before (newer than) it. */
export type AuditPageAt = { after: AuditCursor } | { before: AuditCursor } | Record<string, never>;

export interface AuditPage {
  entries: VisibleAuditEntry[];
  /** Whether there are older entries (a Next button) and newer ones (a Previous button). */
  hasNext: boolean;
  hasPrevious: boolean;
  /** The time zone the dates were read in (the viewer's, from Slack; UTC when Slack gives none). */
  timeZone: string;
}

/** The store's filter for a query: dates become times in `timeZone`, a person their actor id. */
export function auditFilter(query: AuditQuery, timeZone: string): AuditFilter {
  const actor = query.actor;
  if (actor?.kind === 'name')
    throw new AppError({ code: 'audit_filter', word: `@${actor.name}`, reason: 'name' });
  const day = (text: string) => DateTime.fromISO(text, { zone: timeZone }).startOf('day');
  return {
    ...(query.zone ? { zone: query.zone } : {}),
    ...(actor?.kind === 'user' ? { actorId: actor.userId } : {}),
    ...(actor?.kind === 'token' ? { actorId: `${TOKEN_ACTOR_PREFIX}${actor.name}` } : {}),
    ...(query.kind ? { kind: query.kind } : {}),
    ...(query.since ? { since: day(query.since).toMillis() } : {}),
    ...(query.until ? { until: day(query.until).plus({ days: 1 }).toMillis() } : {}),
  };
}

/** A time zone luxon knows, else UTC (Slack's `tz` is an IANA name; an unknown one is not guessed). */
export function knownZone(timeZone: string | undefined): string {
  return timeZone && DateTime.local().setZone(timeZone).isValid ? timeZone : 'UTC';
}

export interface HomeOverview {
  /** What the viewer may do: the Home offers only that. */
  permissions: Permissions;
  /** Whether the account `/cdn login` sets has a CDN API key. */
  keySet: boolean;
  /** The other CDN accounts that hold a key: commands use them. */
  accountKeys?: string[];
  /** Who set it and when (full members only). */
  key?: CredentialStatus;
  /** The API the workspace's commands go to (full members only). */
  baseUrl?: string;
  recent: VisibleAuditEntry[];
  /** `keyed`: whether each one's CDN account holds a key. */
  schedules: Visible<Schedule & { keyed?: boolean }>;
  /** Which channels watch which zones. */
  watches?: Visible<Watch & { keyed?: boolean }>;
  /** How long the history is kept, and the data after an uninstall, in days (0: forever). */
  retention?: { auditDays: number; uninstalledDays: number };
}

export class ActivityService {
  constructor(
    private readonly deps: {
      audit: AuditLogRepository;
      credentials: CredentialRepository;
      workspaces: WorkspaceRepository;
      schedules: ScheduleRepository;
      approvals: ApprovalRepository;
      access: AccessService;
      watches?: WatchRepository;
      /** The workspace's CDN accounts: an entry names its account when there are several. */
      accounts?: AccountRepository;
      defaultBaseUrl: string;
      /** AUDIT_RETENTION_DAYS and UNINSTALLED_DATA_RETENTION_DAYS, said in the App Home. */
      retention?: { auditMs: number; uninstalledMs: number };
    },
  ) {}

  /** Full members only: the latest changes made from Slack, of one zone (name or id) or of all. */
  async recent(
    caller: Caller,
    options: { zone?: string; limit: number },
  ): Promise<VisibleAuditEntry[]> {
    await this.deps.access.requireFullMember(caller, 'read_audit');
    return this.#visible(caller, await this.deps.audit.recent(caller.workspaceId, options));
  }

  /**
   * Full members only: one page of the entries `query` selects, newest first, as the caller may
   * see them; dates are read in the caller's time zone (users.info `tz`).
   */
  async search(
    caller: Caller,
    query: AuditQuery,
    at: AuditPageAt,
    limit: number,
  ): Promise<AuditPage> {
    await this.deps.access.requireFullMember(caller, 'read_audit');
    const timeZone = knownZone((await caller.directory.user(caller.userId)).timeZone);
    const filter = await this.filterFor(caller.workspaceId, query, timeZone);
    const rows = await this.deps.audit.search(caller.workspaceId, filter, {
      ...at,
      limit: limit + 1,
    });
    const more = rows.length > limit;
    // Going back, the extra row is the newest one; going on (or first), the oldest.
    const backwards = 'before' in at;
    const page = more ? (backwards ? rows.slice(1) : rows.slice(0, limit)) : rows;
    const accounts = (await this.deps.accounts?.list(caller.workspaceId)) ?? [];
    const names = new Map(accounts.map((account) => [account.id, account.name]));
    const entries = (await this.#visible(caller, page)).map((entry): VisibleAuditEntry => {
      const accountName =
        accounts.length > 1 && entry.accountId ? names.get(entry.accountId) : undefined;
      return accountName ? { ...entry, accountName } : entry;
    });
    return {
      entries,
      hasNext: backwards ? true : more,
      hasPrevious: backwards ? more : 'after' in at,
      timeZone,
    };
  }

  /**
   * The store's filter for `query` (auditFilter), its CDN account found by name among the
   * workspace's: AppError account_unknown, naming them, when it has none of that name.
   */
  async filterFor(workspaceId: string, query: AuditQuery, timeZone: string): Promise<AuditFilter> {
    const filter = auditFilter(query, timeZone);
    const name = query.account;
    if (name === undefined) return filter;
    const accounts = (await this.deps.accounts?.list(workspaceId)) ?? [];
    const account = accounts.find((a) => a.name.toLowerCase() === name.toLowerCase());
    if (!account)
      throw new AppError({ code: 'account_unknown', name, accounts: accounts.map((a) => a.name) });
    return { ...filter, account: { id: account.id } };
  }

  /** The workspace's CDN account names by id (an export names each entry's account). */
  async accountNames(workspaceId: string): Promise<ReadonlyMap<string, string>> {
    const accounts = (await this.deps.accounts?.list(workspaceId)) ?? [];
    return new Map(accounts.map((account) => [account.id, account.name]));
  }

  /** Each entry as `caller` may see it (the export reads its batches through this). */
  visibleTo(caller: Caller, entries: AuditEntry[]): Promise<VisibleAuditEntry[]> {
    return this.#visible(caller, entries);
  }

  /** The App Home of `caller`: all of it for full members; for anyone else, what they may do. */
  async home(caller: Caller): Promise<HomeOverview> {
    const [permissions, key, accounts] = await Promise.all([
      this.deps.access.permissions(caller),
      this.deps.credentials.status(caller.workspaceId),
      this.deps.accounts?.list(caller.workspaceId),
    ]);
    const keySet = key !== undefined;
    const keyed = (accounts ?? []).filter((a) => a.hasKey);
    const login = accounts?.find((a) => a.name.toLowerCase() === LOGIN_ACCOUNT);
    // The other accounts with a key: without the login account's, a workspace works through them.
    const others = keyed.filter((a) => a !== login);
    const accountKeys = others.length > 0 ? { accountKeys: others.map((a) => a.name) } : {};
    const retention = this.#retention();
    if (!permissions.readRecords)
      return {
        permissions,
        keySet,
        ...accountKeys,
        recent: [],
        schedules: { shown: [], hidden: 0 },
        ...retention,
      };
    const [recent, schedules, watches] = await Promise.all([
      this.deps.audit.recent(caller.workspaceId, { limit: 10 }),
      this.deps.schedules.listForWorkspace(caller.workspaceId),
      this.deps.watches?.listForWorkspace(caller.workspaceId),
    ]);
    const visible = async <T extends { accountId: string; channelId: string }>(items: T[]) => {
      const { shown, hidden } = await this.deps.access.visibleIn(caller, items);
      return { shown: markKeyed(shown, keyed), hidden };
    };
    return {
      permissions,
      keySet,
      ...accountKeys,
      ...(key ? { key } : {}),
      baseUrl: login?.baseUrl ?? this.deps.defaultBaseUrl,
      recent: await this.#visible(caller, recent),
      schedules: await visible(schedules),
      ...(watches ? { watches: await visible(watches) } : {}),
      ...retention,
    };
  }

  #retention(): Pick<HomeOverview, 'retention'> {
    const retention = this.deps.retention;
    if (!retention) return {};
    const days = (ms: number) => Math.round(ms / 86_400_000);
    return {
      retention: {
        auditDays: days(retention.auditMs),
        uninstalledDays: days(retention.uninstalledMs),
      },
    };
  }

  /** Each entry, withheld where it comes from a conversation the caller is not in. */
  async #visible(caller: Caller, entries: AuditEntry[]): Promise<VisibleAuditEntry[]> {
    const where = await Promise.all(entries.map((entry) => this.#conversationOf(entry)));
    const seen = await this.deps.access.visibleConversations(
      caller,
      where.filter((id): id is string => id !== undefined),
    );
    return entries.map((entry, i) => {
      const channelId = where[i];
      if (channelId === undefined || seen.has(channelId)) return entry;
      const detail = Object.fromEntries(
        Object.entries(entry.detail ?? {}).filter(([key]) => NEUTRAL_DETAIL.includes(key)),
      );
      return { ...entry, detail, withheld: true };
    });
  }

  /** The conversation an entry comes from: named in it, or its approval's or its report's. */
  async #conversationOf(entry: AuditEntry): Promise<string | undefined> {
    const detail = entry.detail ?? {};
    if (typeof detail.channel === 'string') return detail.channel;
    if (typeof detail.approval === 'string')
      return (await this.deps.approvals.get(detail.approval))?.channelId ?? '';
    if (typeof detail.schedule === 'string')
      return (await this.deps.schedules.get(detail.schedule))?.channelId ?? '';
    return undefined;
  }
}
