// A workspace's configuration: who operates, who approves, what guests may do, and what the key
// form shows.

import { AppError, type LimitName } from '../../errors.js';
import type { AuditLogRepository } from '../../store/audit-log.js';
import type { CredentialRepository } from '../../store/credentials.js';
import {
  type GuestAccess,
  LIMIT_CEILINGS,
  type Workspace,
  type WorkspaceRepository,
  type WorkspaceSettings,
} from '../../store/workspaces.js';
import type { AccessService, Caller } from '../access/access.js';

export type Role = 'operators' | 'approvers';
export type { GuestAccess };

/** What guests may be allowed: reading only (the default), or operating as members do. */
export const GUEST_ACCESS: readonly GuestAccess[] = ['read', 'operate'];

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

  /** The settings as `/cdn config` shows them: to the workspace's full members only. */
  async view(caller: Caller): Promise<Workspace> {
    await this.deps.access.requireFullMember(caller, 'read_config');
    return this.deps.workspaces.ensure(caller.workspaceId);
  }

  /** Admins only: who may operate (or approve); `null` opens it to everyone again. */
  async setRole(caller: Caller, role: Role, groupId: string | null): Promise<Workspace> {
    return this.#change(
      caller,
      role === 'operators' ? { operatorGroupId: groupId } : { approverGroupId: groupId },
      `config.${role}`,
      { group: groupId },
    );
  }

  /** Admins only: whether guests only read (the default) or also operate (never approve). */
  async setGuestAccess(caller: Caller, access: GuestAccess): Promise<Workspace> {
    return this.#change(caller, { guestAccess: access }, 'config.guests', { access });
  }

  /**
   * Admins only: how many of something the workspace (or each person) may store, from 0 up to its
   * ceiling (every limit stays a bound). Lowered below what exists, nothing is removed: only new
   * ones are refused.
   */
  async setLimit(caller: Caller, limit: LimitName, value: number): Promise<Workspace> {
    const ceiling = LIMIT_CEILINGS[limit];
    if (!Number.isSafeInteger(value) || value < 0 || value > ceiling)
      throw new AppError({ code: 'limit_out_of_range', limit, ceiling });
    return this.#change(caller, { limits: { [limit]: value } }, 'config.limits', {
      limit,
      value,
    });
  }

  /** Admins only: what the API-key form starts with. */
  async keyForm(caller: Caller): Promise<KeyFormState> {
    await this.deps.access.requireAdmin(caller, 'set_key');
    const key = await this.deps.credentials.get(caller.workspaceId);
    return {
      defaultBaseUrl: this.deps.defaultBaseUrl,
      currentBaseUrl: key?.baseUrl ?? null,
      hasKey: key !== undefined,
    };
  }

  async #change(
    caller: Caller,
    settings: WorkspaceSettings,
    action: string,
    detail: Record<string, unknown>,
  ): Promise<Workspace> {
    await this.deps.access.requireAdmin(caller, 'configure_access');
    const updated = await this.deps.workspaces.update(caller.workspaceId, settings);
    await this.deps.audit.record({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action,
      outcome: 'ok',
      detail,
    });
    return updated;
  }
}
