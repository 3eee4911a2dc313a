// What a workspace has been doing: the audit trail (`/cdn audit`) and the App Home's overview.
import type { AuditEntry, AuditLogRepository } from '../store/audit-log.js';
import type { CredentialRepository, CredentialStatus } from '../store/credentials.js';
import type { Schedule, ScheduleRepository } from '../store/schedules.js';
import type { Watch, WatchRepository } from '../store/watches.js';
import type { WorkspaceRepository } from '../store/workspaces.js';

export interface HomeOverview {
  key: CredentialStatus | undefined;
  /** The API the workspace's commands go to. */
  baseUrl: string;
  recent: AuditEntry[];
  schedules: Schedule[];
  /** Which channels watch which zones. */
  watches?: Watch[];
}

export class ActivityService {
  constructor(
    private readonly deps: {
      audit: AuditLogRepository;
      credentials: CredentialRepository;
      workspaces: WorkspaceRepository;
      schedules: ScheduleRepository;
      watches?: WatchRepository;
      defaultBaseUrl: string;
    },
  ) {}

  /** The latest changes made from Slack, of one zone (name or id) or of all. */
  async recent(
    workspaceId: string,
    options: { zone?: string; limit: number },
  ): Promise<AuditEntry[]> {
    return this.deps.audit.recent(workspaceId, options);
  }

  async home(workspaceId: string): Promise<HomeOverview> {
    const [key, workspace, recent, schedules, watches] = await Promise.all([
      this.deps.credentials.status(workspaceId),
      this.deps.workspaces.get(workspaceId),
      this.deps.audit.recent(workspaceId, { limit: 10 }),
      this.deps.schedules.listForWorkspace(workspaceId),
      this.deps.watches?.listForWorkspace(workspaceId),
    ]);
    return {
      key,
      baseUrl: workspace?.cdnBaseUrl ?? this.deps.defaultBaseUrl,
      recent,
      schedules,
      ...(watches ? { watches } : {}),
    };
  }
}
