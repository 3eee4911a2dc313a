// Who may do what: admins configure, operators change, approvers decide, everyone reads. Only this
// workspace's own people may do more than read: someone Slack does not know here (users.info
// cannot find them, or calls them a stranger) or who belongs to another workspace sharing the
// channel is refused, and told why. The workspace's guests (multi- and single-channel) read too;
// they change things only where an admin allowed it (`/cdn config guests operate`), and never
// approve or configure: the second pair of eyes on a purge of everything, and the settings, stay
// with full members.
import { type Action, AppError } from '../errors.js';
import type { WorkspaceRepository } from '../store/workspaces.js';

export interface SlackUser {
  isAdmin: boolean;
  /** A guest of this workspace: multi-channel (`is_restricted`) or single-channel (`is_ultra_restricted`). */
  isGuest?: boolean;
  timeZone: string;
  /**
   * Set when the person is not one of this workspace's own: `unknown` (users.info does not find
   * them, or marks them `is_stranger`) or `external` (of another workspace, in a shared channel).
   */
  stranger?: 'unknown' | 'external';
}

/** What the services need to know about Slack users; implemented over the Web API in src/slack. */
export interface SlackDirectory {
  user(userId: string): Promise<SlackUser>;
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
    const user = await this.#member(caller, action);
    // Slack makes no guest an admin; were one marked so, they would still be refused, as a guest.
    if (user.isGuest) throw new AppError({ code: 'guest', action, grantable: false });
    if (!user.isAdmin) throw new AppError({ code: 'not_admin', action });
  }

  /**
   * Changing things: this workspace's people (guests only where allowed), and only an operators
   * group's when one is set.
   */
  async requireOperator(caller: Caller, action: Action): Promise<void> {
    const user = await this.#member(caller, action);
    const workspace = await this.workspaces.ensure(caller.workspaceId);
    if (user.isGuest && workspace.guestAccess !== 'operate')
      throw new AppError({ code: 'guest', action, grantable: true });
    if (!workspace.operatorGroupId) return;
    const members = await caller.directory.groupMembers(workspace.operatorGroupId);
    if (!members.includes(caller.userId)) throw new AppError({ code: 'not_operator', action });
  }

  /**
   * Approving (or denying) a purge-everything: never the requester, never someone from outside
   * the workspace, never a guest (even one allowed to operate); when an approvers group is
   * configured, only its members.
   */
  async requireApprover(caller: Caller, requesterId: string): Promise<void> {
    if (caller.userId === requesterId) throw new AppError({ code: 'self_approval' });
    const user = await this.#member(caller, 'approve');
    if (user.isGuest) throw new AppError({ code: 'guest', action: 'approve', grantable: false });
    const workspace = await this.workspaces.ensure(caller.workspaceId);
    if (!workspace.approverGroupId) return;
    const members = await caller.directory.groupMembers(workspace.approverGroupId);
    if (!members.includes(caller.userId)) throw new AppError({ code: 'not_approver' });
  }

  /** Refused (`stranger`) unless the caller is one of this workspace's people (guests included). */
  async requireInsider(caller: Caller, action: Action): Promise<void> {
    await this.#member(caller, action);
  }

  /** The caller's time zone as Slack knows it. */
  async timeZoneOf(caller: Caller): Promise<string> {
    return (await caller.directory.user(caller.userId)).timeZone;
  }

  /** The caller, if they are one of this workspace's people; refused `action` otherwise. */
  async #member(caller: Caller, action: Action): Promise<SlackUser> {
    const user = await caller.directory.user(caller.userId);
    if (user.stranger)
      throw new AppError({ code: 'stranger', action, external: user.stranger === 'external' });
    return user;
  }
}
