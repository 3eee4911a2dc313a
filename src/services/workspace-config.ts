// A workspace's configuration: who operates and who approves, and what the key form shows.
import type { AuditLogRepository } from '../store/audit-log.js';
import type { CredentialRepository } from '../store/credentials.js';
import type { Workspace, WorkspaceRepository } from '../store/workspaces.js';
import type { AccessService, Caller } from './access.js';

export type Role = 'operators' | 'approvers';

export interface KeyFormState {
  /** CDN_API_BASE_URL: used unless the workspace overrides it. */
  defaultBaseUrl: string;
  currentBaseUrl: string | null;
  hasKey: boolean;
}

export class WorkspaceConfigService {
  constructor(
    private readonly deps: {
      workspaces: WorkspaceRepository;
      credentials: CredentialRepository;
      audit: AuditLogRepository;
      access: AccessService;
      defaultBaseUrl: string;
    },
  ) {}

  async get(workspaceId: string): Promise<Workspace> {
    return this.deps.workspaces.ensure(workspaceId);
  }

  /** Admins only: who may operate (or approve); `null` opens it to everyone again. */
  async setRole(caller: Caller, role: Role, groupId: string | null): Promise<Workspace> {
    await this.deps.access.requireAdmin(caller, 'configure_access');
    const updated = await this.deps.workspaces.update(
      caller.workspaceId,
      role === 'operators' ? { operatorGroupId: groupId } : { approverGroupId: groupId },
    );
    await this.deps.audit.record({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: `config.${role}`,
      outcome: 'ok',
      detail: { group: groupId },
    });
    return updated;
  }

  /** Admins only: what the API-key form starts with. */
  async keyForm(caller: Caller): Promise<KeyFormState> {
    await this.deps.access.requireAdmin(caller, 'set_key');
    const [workspace, key] = await Promise.all([
      this.deps.workspaces.ensure(caller.workspaceId),
      this.deps.credentials.status(caller.workspaceId),
    ]);
    return {
      defaultBaseUrl: this.deps.defaultBaseUrl,
      currentBaseUrl: workspace.cdnBaseUrl,
      hasKey: key !== undefined,
    };
  }
}
