// Who may do what: admins configure, operators change, everyone reads.
import { AppError } from '../errors.js';
import type { Workspace } from '../store/workspaces.js';

/** What the services need to know about Slack users; implemented over the Web API in src/slack. */
export interface SlackDirectory {
  user(userId: string): Promise<{ isAdmin: boolean; timeZone: string }>;
  groupMembers(groupId: string): Promise<string[]>;
}

export class AccessControl {
  constructor(private readonly directory: SlackDirectory) {}

  async requireAdmin(userId: string, doing: string): Promise<void> {
    const user = await this.directory.user(userId);
    if (!user.isAdmin)
      throw new AppError('not_allowed', `Only workspace admins and owners can ${doing}.`);
  }

  /**
   * Approving (or denying) a purge-everything: never the requester; when an approvers group is
   * configured, only its members.
   */
  async requireApprover(workspace: Workspace, requesterId: string, userId: string): Promise<void> {
    if (userId === requesterId) {
      throw new AppError(
        'not_allowed',
        'You asked for this purge, so someone else has to approve it.',
      );
    }
    if (!workspace.approverGroupId) return;
    const members = await this.directory.groupMembers(workspace.approverGroupId);
    if (!members.includes(userId)) {
      throw new AppError(
        'not_allowed',
        "Only members of this workspace's purge approvers group can approve or deny. `/cdn config` shows which group that is.",
      );
    }
  }

  /** Changing things: everyone, unless an operators group is configured. */
  async requireOperator(workspace: Workspace, userId: string, doing: string): Promise<void> {
    if (!workspace.operatorGroupId) return;
    const members = await this.directory.groupMembers(workspace.operatorGroupId);
    if (!members.includes(userId)) {
      throw new AppError(
        'not_allowed',
        // Named in words: a <!subteam^…> mention would notify the whole group.
        `Only members of this workspace's CDN operators group can ${doing}. \`/cdn config\` shows which group that is.`,
      );
    }
  }
}
