// Who may do what: admins configure, operators change, approvers decide, everyone reads zones and
// charts; only this workspace's own people may do more than read (AccessService says who is who).
import { type Action, AppError } from '../../errors.js';
import type { AccountRole, AccountRoleRepository } from '../../store/account-roles.js';
import type { AccountRepository } from '../../store/accounts.js';
import type { WorkspaceRepository } from '../../store/workspaces.js';

export interface SlackUser {
  isAdmin: boolean;
  /** A guest of this workspace: multi-channel (`is_restricted`) or single-channel (`is_ultra_restricted`). */
  isGuest?: boolean;
  timeZone: string;
  /**
   * Set when the person is not one of this workspace's own: `unknown` (users.info does not find
   * them, or marks them `is_stranger`), `external` (of another workspace, in a shared channel) or
   * `organization` (of another organization than this Grid workspace's, or a Grid one: Slack
   * Connect). A colleague (`relationOf`) is none of these.
   */
  stranger?: 'unknown' | 'external' | 'organization';
  /**
   * Of another workspace of this workspace's Enterprise Grid organization (`relationOf`): one of
   * its people for every permission, their roles (admin, guest) as users.info gives them.
   */
  colleague?: boolean;
  /** How Slack shows them: their display name, else their full name; absent when unknown. */
  name?: string;
  /** Their account is deactivated (users.info `deleted`): no longer one of this workspace's people. */
  deactivated?: boolean;
  /** Only the organization's admins administer here: the app is installed for a whole Grid organization. */
  orgAdministered?: boolean;
}

/** What the services need to know about Slack users; implemented over the Web API in src/slack. */
export interface SlackDirectory {
  user(userId: string): Promise<SlackUser>;
  groupMembers(groupId: string): Promise<string[]>;
  /**
   * Whether the person is in the conversation; false when the bot cannot tell (it cannot see the
   * conversation, or Slack did not answer): in doubt, the conversation stays hidden.
   */
  inConversation(channelId: string, userId: string): Promise<boolean>;
}

/** What the caller may do, for surfaces that offer only that (the App Home's buttons). */
export interface Permissions {
  /** One of this workspace's people, guests included: lists zones and draws charts. */
  readZones: boolean;
  /** One of this workspace's full members: sees its records (audit log, settings, reports, watches). */
  readRecords: boolean;
  /** May set or replace the CDN API key (an admin). */
  setKey: boolean;
  /** May change things (create zones, purge, stop reports): an operator. */
  operate: boolean;
}

/** A list as one person may see it: what is in their conversations, and how many others there are. */
export interface Visible<T> {
  shown: T[];
  /** Items in conversations the person is not in, left out. */
  hidden: number;
}

/** The person behind a request: their workspace, their id, and how to look them up. */
export interface Caller {
  workspaceId: string;
  userId: string;
  directory: SlackDirectory;
}

/**
 * Where per-account roles are read; without it, only the workspace's roles apply. Operators and
 * approvers may be given per CDN account (`account_roles`): an account with its own group is held
 * to it; one without follows the workspace's. A check names the account acted on; none named
 * (work on no account, as a setting of the workspace) is held to the workspace's roles.
 */
export interface AccountRoles {
  accounts: Pick<AccountRepository, 'get'>;
  roles: Pick<AccountRoleRepository, 'get'>;
}

/**
 * Only this workspace's own people may do more than read: someone Slack does not know here
 * (users.info cannot find them, or calls them a stranger), whose account is deactivated, or who
 * belongs to another organization sharing the channel (Slack Connect) is refused, and told why;
 * a colleague of another workspace of the same Grid organization is one of its people. The workspace's guests (multi- and single-channel) read zones
 * too; they change things only where an admin allowed it (`/cdn config guests operate`), and never
 * approve or configure: the second pair of eyes on a purge of everything, and the settings, stay
 * with full members. The workspace's records (the audit log, the settings, the reports and
 * watches) are for full members only, and even they see nothing of a conversation they are not in
 * (`visibleConversations`).
 */
export class AccessService {
  constructor(
    private readonly workspaces: WorkspaceRepository,
    private readonly accountRoles?: AccountRoles,
  ) {}

  async requireAdmin(caller: Caller, action: Action): Promise<void> {
    const user = await this.#member(caller, action);
    // Slack makes no guest an admin; were one marked so, they would still be refused, as a guest.
    if (user.isGuest) throw new AppError({ code: 'guest', action, grantable: false });
    if (!user.isAdmin)
      throw new AppError({
        code: 'not_admin',
        action,
        ...(user.orgAdministered ? { organization: true } : {}),
      });
  }

  /**
   * Changing things: this workspace's people (guests only where allowed), and only an operators
   * group's when one is set.
   */
  async requireOperator(caller: Caller, action: Action, accountId?: string): Promise<void> {
    const user = await this.#member(caller, action);
    const workspace = await this.workspaces.ensure(caller.workspaceId);
    if (user.isGuest && workspace.guestAccess !== 'operate')
      throw new AppError({ code: 'guest', action, grantable: true });
    const holder = await this.#holder(caller.workspaceId, 'operators', accountId);
    const groupId = holder.own ? holder.groupId : workspace.operatorGroupId;
    if (!groupId) return;
    const members = await caller.directory.groupMembers(groupId);
    if (!members.includes(caller.userId))
      throw new AppError({
        code: 'not_operator',
        action,
        ...(holder.own ? { account: holder.name } : {}),
      });
  }

  /**
   * Operators of at least one of the accounts (`accountIds`; none: the workspace's operators):
   * checked before a zone is looked for among them, its own account's check coming once it is
   * found. Refused as the first account's operators.
   */
  async requireOperatorOfAny(
    caller: Caller,
    action: Action,
    accountIds: readonly string[],
  ): Promise<void> {
    const [first, ...others] = accountIds;
    if (others.length === 0) return this.requireOperator(caller, action, first);
    let refusal: unknown;
    for (const accountId of accountIds) {
      try {
        return await this.requireOperator(caller, action, accountId);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        refusal ??= error;
      }
    }
    throw refusal;
  }

  /**
   * Approving (or denying) a purge-everything: never the requester, never someone from outside
   * the workspace, never a guest (even one allowed to operate); when an approvers group is
   * configured, only its members.
   */
  async requireApprover(caller: Caller, requesterId: string, accountId?: string): Promise<void> {
    if (caller.userId === requesterId) throw new AppError({ code: 'self_approval' });
    const user = await this.#member(caller, 'approve');
    if (user.isGuest) throw new AppError({ code: 'guest', action: 'approve', grantable: false });
    const workspace = await this.workspaces.ensure(caller.workspaceId);
    const holder = await this.#holder(caller.workspaceId, 'approvers', accountId);
    const groupId = holder.own ? holder.groupId : workspace.approverGroupId;
    if (!groupId) return;
    const members = await caller.directory.groupMembers(groupId);
    if (!members.includes(caller.userId))
      throw new AppError({ code: 'not_approver', ...(holder.own ? { account: holder.name } : {}) });
  }

  /**
   * Who holds `role` on the account (none named: the workspace's): its own group (null: everyone)
   * when an admin gave it one, else (`own: false`) the workspace's.
   */
  async #holder(
    workspaceId: string,
    role: AccountRole,
    accountId: string | undefined,
  ): Promise<{ own: false } | { own: true; groupId: string | null; name: string }> {
    if (!this.accountRoles || accountId === undefined) return { own: false };
    const { accounts, roles } = this.accountRoles;
    const grant = await roles.get(workspaceId, accountId, role);
    if (!grant) return { own: false };
    const account = await accounts.get(workspaceId, accountId);
    return { own: true, groupId: grant.groupId, name: account?.name ?? '' };
  }

  /**
   * Anything at all: this workspace's people only, guests included. Someone Slack does not know
   * here, or of another organization in a shared channel, is refused.
   */
  async requireWorkspaceMember(caller: Caller, action: Action): Promise<void> {
    await this.#member(caller, action);
  }

  /**
   * Reading the workspace's records (audit log, settings, reports, watches): its full members
   * only. Guests are refused even when they may operate, and so is anyone from outside.
   */
  async requireFullMember(caller: Caller, action: Action): Promise<void> {
    const user = await this.#member(caller, action);
    if (user.isGuest) throw new AppError({ code: 'guest', action, grantable: false });
  }

  /**
   * What the caller may do on the account (none named: the workspace); a refusal is a no, never an
   * error. Services acting on a zone call the checks above with the zone's account; surfaces that
   * offer only what one may do ask this.
   */
  async permissions(caller: Caller, accountId?: string): Promise<Permissions> {
    const may = (check: Promise<void>) =>
      check.then(
        () => true,
        (error: unknown) => {
          if (error instanceof AppError) return false;
          throw error;
        },
      );
    // Asked once, then every check reads the directory's cache.
    await caller.directory.user(caller.userId);
    const [readZones, readRecords, setKey, operate] = await Promise.all([
      may(this.requireWorkspaceMember(caller, 'read_zones')),
      may(this.requireFullMember(caller, 'read_audit')),
      may(this.requireAdmin(caller, 'set_key')),
      may(this.requireOperator(caller, 'create_zone', accountId)),
    ]);
    return { readZones, readRecords, setKey, operate };
  }

  /** Which of `channelIds` the caller is in: only those may show their details to them. */
  async visibleConversations(caller: Caller, channelIds: Iterable<string>): Promise<Set<string>> {
    // An empty id is a conversation nobody can tell (a record without one): hidden.
    const distinct = [...new Set(channelIds)].filter((id) => id !== '');
    const seen = await Promise.all(
      distinct.map((id) => caller.directory.inConversation(id, caller.userId)),
    );
    return new Set(distinct.filter((_, i) => seen[i]));
  }

  /**
   * Posting for the caller (a chart they asked for): only in a conversation they are in, as Slack
   * would let them post there themselves.
   */
  async requireInConversation(caller: Caller, channelId: string): Promise<void> {
    if (!(await this.visibleConversations(caller, [channelId])).has(channelId))
      throw new AppError({ code: 'not_in_conversation' });
  }

  /** The items of conversations the caller is in, and how many others there are. */
  async visibleIn<T extends { channelId: string }>(
    caller: Caller,
    items: T[],
  ): Promise<Visible<T>> {
    const seen = await this.visibleConversations(
      caller,
      items.map((item) => item.channelId),
    );
    const shown = items.filter((item) => seen.has(item.channelId));
    return { shown, hidden: items.length - shown.length };
  }

  /** The caller's time zone as Slack knows it. */
  async timeZoneOf(caller: Caller): Promise<string> {
    return (await caller.directory.user(caller.userId)).timeZone;
  }

  /** The caller, if they are one of this workspace's people; refused `action` otherwise. */
  async #member(caller: Caller, action: Action): Promise<SlackUser> {
    const user = await caller.directory.user(caller.userId);
    if (user.stranger)
      throw new AppError({
        code: 'stranger',
        action,
        external: user.stranger !== 'unknown',
        ...(user.stranger === 'organization' ? { organization: true } : {}),
      });
    if (user.deactivated) throw new AppError({ code: 'deactivated', action });
    return user;
  }
}
