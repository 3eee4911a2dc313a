// What a workspace has been doing: the audit trail (`/cdn audit`) and the App Home's overview. Both
// are the workspace's records: its full members' only, and even they see nothing of a conversation
// they are not in (an entry's reason or note, a report or watch there).
import type { ApprovalRepository } from '../store/approvals.js';
import type { AuditEntry, AuditLogRepository } from '../store/audit-log.js';
import type { CredentialRepository, CredentialStatus } from '../store/credentials.js';
import type { Schedule, ScheduleRepository } from '../store/schedules.js';
import type { Watch, WatchRepository } from '../store/watches.js';
import type { WorkspaceRepository } from '../store/workspaces.js';
import type { AccessService, Caller, Permissions, Visible } from './access.js';

/**
 * An audit entry as one person may see it: `withheld` when it comes from a conversation they are
 * not in, its detail then cut to counts and ids (no reason, note, channel or rule).
 */
export type VisibleAuditEntry = AuditEntry & { withheld?: boolean };

/** The details of an entry that say nothing of the conversation it came from. */
const NEUTRAL_DETAIL = ['files', 'tags', 'failed', 'requests', 'purgeId', 'purgeIds', 'errors'];

export interface HomeOverview {
  /** What the viewer may do: the Home offers only that. */
  permissions: Permissions;
  /** Whether the workspace has a CDN API key. */
  keySet: boolean;
  /** Who set it and when (full members only). */
  key?: CredentialStatus;
  /** The API the workspace's commands go to (full members only). */
  baseUrl?: string;
  recent: VisibleAuditEntry[];
  schedules: Visible<Schedule>;
  /** Which channels watch which zones. */
  watches?: Visible<Watch>;
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

  /** The App Home of `caller`: all of it for full members; for anyone else, what they may do. */
  async home(caller: Caller): Promise<HomeOverview> {
    const [permissions, key] = await Promise.all([
      this.deps.access.permissions(caller),
      this.deps.credentials.status(caller.workspaceId),
    ]);
    const keySet = key !== undefined;
    const retention = this.#retention();
    if (!permissions.readRecords)
      return { permissions, keySet, recent: [], schedules: { shown: [], hidden: 0 }, ...retention };
    const [workspace, recent, schedules, watches] = await Promise.all([
      this.deps.workspaces.get(caller.workspaceId),
      this.deps.audit.recent(caller.workspaceId, { limit: 10 }),
      this.deps.schedules.listForWorkspace(caller.workspaceId),
      this.deps.watches?.listForWorkspace(caller.workspaceId),
    ]);
    return {
      permissions,
      keySet,
      ...(key ? { key } : {}),
      baseUrl: workspace?.cdnBaseUrl ?? this.deps.defaultBaseUrl,
      recent: await this.#visible(caller, recent),
      schedules: await this.deps.access.visibleIn(caller, schedules),
      ...(watches ? { watches: await this.deps.access.visibleIn(caller, watches) } : {}),
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
