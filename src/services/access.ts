// Who may do what: admins configure, operators change, approvers decide, everyone reads.
import { type Action, AppError } from '../errors.js';
import type { WorkspaceRepository } from '../store/workspaces.js';

/** What the services need to know about Slack users; implemented over the Web API in src/slack. */
export interface SlackDirectory {
  user(userId: string): Promise<{ isAdmin: boolean; timeZone: string }>;
  groupMembers(groupId: string): Promise<string[]>;
}

/** The person behind a request: their workspace, their id, and how to look them up. */
export interface Caller {
  workspaceId: string;
  userId: string;
  directory: SlackDirectory;
}

export class AccessService {
  constructor(private readonly workspaces: WorkspaceRepository) {}

  async requireAdmin(caller: Caller, action: Action): Promise<void> {
    const user = await caller.directory.user(caller.userId);
    if (!user.isAdmin) throw new AppError({ code: 'not_admin', action });
  }

  /** Changing things: everyone, unless an operators group is configured. */
  async requireOperator(caller: Caller, action: Action): Promise<void> {
    const workspace = await this.workspaces.ensure(caller.workspaceId);
    if (!workspace.operatorGroupId) return;
    const members = await caller.directory.groupMembers(workspace.operatorGroupId);
    if (!members.includes(caller.userId)) throw new AppError({ code: 'not_operator', action });
  }

  /**
   * Approving (or denying) a purge-everything: never the requester; when an approvers group is
   * configured, only its members.
   */
  async requireApprover(caller: Caller, requesterId: string): Promise<void> {
    if (caller.userId === requesterId) throw new AppError({ code: 'self_approval' });
    const workspace = await this.workspaces.ensure(caller.workspaceId);
    if (!workspace.approverGroupId) return;
    const members = await caller.directory.groupMembers(workspace.approverGroupId);
    if (!members.includes(caller.userId)) throw new AppError({ code: 'not_approver' });
  }

  /** The caller's time zone as Slack knows it. */
  async timeZoneOf(caller: Caller): Promise<string> {
    return (await caller.directory.user(caller.userId)).timeZone;
  }
}
