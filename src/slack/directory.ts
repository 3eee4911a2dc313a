// SlackDirectory over the Web API: users.info for roles, time zones, guests and whether the person
// is one of this workspace's own (and still active); user groups for operators; conversations.members for who is in a
// conversation. Each is kept for a minute.
import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import type { SlackDirectory, SlackUser } from '../services/access/access.js';
import { outsiderKind, relationOf } from '../services/access/relation.js';
import { slackErrorCode } from './web-api-errors.js';
import type { WorkspaceClients } from './workspace-clients.js';

/** conversations.members' largest page ("a max value of 999", the SDK's CursorPaginationEnabled). */
const MEMBERS_PAGE = 999;
/**
 * Pages read of one conversation's members: past about 5,000 members, someone not among them is
 * taken as not in it (their details stay hidden), rather than reading a huge channel whole.
 */
const MEMBERS_PAGES = 5;
/** Member ids kept in all, across conversations (about 100 bytes each: some 20 MB at most). */
const MEMBER_IDS_KEPT = 200_000;

/**
 * Group membership, profiles and who is in a conversation change rarely and are asked on every
 * change or listing: kept for a minute, bounded.
 */
export class GroupMembersCache {
  readonly cache: LRUCache<string, string[]>;
  readonly users: LRUCache<string, SlackUser>;
  readonly conversations: LRUCache<string, ReadonlySet<string>>;
  constructor(clock: Clock, ttlMs = 60_000) {
    const perf = { now: () => clock.now() };
    this.cache = new LRUCache({ max: 2_000, ttl: ttlMs, perf });
    this.users = new LRUCache({ max: 5_000, ttl: ttlMs, perf });
    this.conversations = new LRUCache({
      max: 2_000,
      maxSize: MEMBER_IDS_KEPT,
      sizeCalculation: (members) => members.size + 1,
      ttl: ttlMs,
      perf,
    });
  }
}

/**
 * Who is in a conversation, as far as the bot can see: conversations.members, page by page (up to
 * MEMBERS_PAGES). A conversation the bot cannot see (channel_not_found: a private one it is not
 * in) or may not list (missing_scope: an install from before the scopes were asked) has nobody.
 */
async function conversationMembers(
  client: WebClient,
  channelId: string,
  auth: { token?: string },
): Promise<Set<string>> {
  const members = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MEMBERS_PAGES; page++) {
    const answer = await client.conversations
      .members({
        channel: channelId,
        limit: MEMBERS_PAGE,
        ...(cursor ? { cursor } : {}),
        ...auth,
      })
      .catch((error: unknown) => {
        const code = slackErrorCode(error);
        if (code === 'channel_not_found' || code === 'missing_scope') return undefined;
        throw error;
      });
    for (const id of answer?.members ?? []) members.add(id);
    cursor = answer?.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return members;
}

/**
 * What users.info says of a person, as far as standing goes (the fields of slackapi/java-slack-sdk
 * json-logs/samples/api/users.info.json; https://api.slack.com/types/user).
 */
export interface UserInfo {
  team_id?: string;
  /**
   * The account is deactivated: users.info still answers for it, with `deleted: true` (the user
   * object's `deleted`, https://api.slack.com/types/user; a boolean of `objs_user` in
   * slackapi/slack-api-specs web-api/slack_web_openapi_v2.json; present, false, in the sample).
   */
  deleted?: boolean;
  is_stranger?: boolean;
  /** On Grid: their organization, and whether they are its admin or owner (users.info.json). */
  enterprise_user?: { enterprise_id?: string; is_admin?: boolean; is_owner?: boolean };
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  /** A multi-channel guest. */
  is_restricted?: boolean;
  /**
   * A single-channel guest; Slack may send it without `is_restricted` (the example answer of
   * https://docs.slack.dev/reference/methods/admin.users.getExpiration), so either one is a guest.
   */
  is_ultra_restricted?: boolean;
  tz?: string;
  real_name?: string;
  profile?: { display_name?: string; real_name?: string };
}

/**
 * Why someone is not this workspace's own, if they are not: Slack calls them a stranger, or they
 * are an outsider by `relationOf` (their `team_id` and `enterprise_user.enterprise_id` against the
 * workspace and its Enterprise Grid organization, `enterpriseId`). A colleague is none.
 */
export function strangerOf(
  user: UserInfo,
  teamId: string,
  enterpriseId?: string,
): SlackUser['stranger'] {
  if (user.is_stranger) return 'unknown';
  if (user.team_id === undefined) return undefined;
  const person = {
    teamId: user.team_id,
    enterpriseId: user.enterprise_user?.enterprise_id ?? null,
  };
  const workspace = { teamId, enterpriseId };
  return relationOf(person, workspace) === 'outsider' ? outsiderKind(person, workspace) : undefined;
}

/**
 * Whether the person administers where the request's data lives: an admin or owner of the Grid
 * organization it belongs to (users.info `enterprise_user.is_admin` / `is_owner`) anywhere; a
 * workspace's admin or owner (`is_admin`, `is_owner`, `is_primary_owner`) only where the data is
 * that workspace's, not an organization's (an org-wide install's: `teamId` is the organization).
 */
export function administers(user: UserInfo, teamId: string, enterpriseId?: string): boolean {
  const org = user.enterprise_user;
  if (enterpriseId && org?.enterprise_id === enterpriseId && (org.is_admin || org.is_owner))
    return true;
  if (enterpriseId !== undefined && teamId === enterpriseId) return false;
  return Boolean(user.is_admin || user.is_owner || user.is_primary_owner);
}

/** Whether users.info shows someone of another workspace of this one's Grid organization. */
function isColleague(user: UserInfo, teamId: string, enterpriseId?: string): boolean {
  if (user.is_stranger) return false;
  const person = {
    teamId: user.team_id,
    enterpriseId: user.enterprise_user?.enterprise_id ?? null,
  };
  return relationOf(person, { teamId, enterpriseId }) === 'colleague';
}

export function webDirectory(
  client: WebClient,
  teamId: string,
  groups: GroupMembersCache,
  enterpriseId?: string,
  /** For a client without a token of its own (background work): the workspace's bot token. */
  token?: string,
  /** The workspace the request came from (Bolt's team of the payload), for an org-wide install. */
  requestTeamId?: string,
): SlackDirectory {
  const auth = token ? { token } : {};
  // An org-wide install's token must say which workspace a group is looked up in (`team_id`,
  // "Required if org token is used": https://api.slack.com/methods/usergroups.users.list): the
  // one the request came from, where the group was named. A workspace's token ignores it.
  const orgWide = enterpriseId !== undefined && teamId === enterpriseId;
  const groupTeam = orgWide && requestTeamId ? { team_id: requestTeamId } : {};
  return {
    async user(userId) {
      const key = `${teamId}:${userId}`;
      const cached = groups.users.get(key);
      if (cached) return cached;
      const user = await client.users
        .info({ user: userId, ...auth })
        .then(({ user }) => user as UserInfo | undefined)
        .catch((error: unknown) => {
          // Someone from another organization in a shared channel, whom this workspace can't see.
          const code = slackErrorCode(error);
          if (code === 'user_not_found' || code === 'user_not_visible') return undefined;
          throw error;
        });
      const stranger = user ? strangerOf(user, teamId, enterpriseId) : 'unknown';
      const name = user?.profile?.display_name || user?.profile?.real_name || user?.real_name;
      const found: SlackUser = {
        isAdmin: user ? administers(user, teamId, enterpriseId) : false,
        ...(orgWide ? { orgAdministered: true } : {}),
        ...(user?.is_restricted || user?.is_ultra_restricted ? { isGuest: true } : {}),
        timeZone: user?.tz ?? 'UTC',
        ...(stranger ? { stranger } : {}),
        ...(user && isColleague(user, teamId, enterpriseId) ? { colleague: true } : {}),
        ...(name ? { name } : {}),
        ...(user?.deleted ? { deactivated: true } : {}),
      };
      groups.users.set(key, found);
      return found;
    },
    async groupMembers(groupId) {
      const key = [teamId, groupTeam.team_id, groupId].filter(Boolean).join(':');
      const cached = groups.cache.get(key);
      if (cached) return cached;
      // A group an admin deleted (or disabled) has nobody in it: usergroups.users.list answers
      // `no_such_subteam`, "No usergroup found with the given ID" (its page's Errors; the same
      // answer for an unknown id in slackapi/java-slack-sdk slack-api-client/src/test/java/
      // test_with_remote_apis/methods/usergroups_Test.java). Refused, never everyone let in.
      const users = await client.usergroups.users
        .list({ usergroup: groupId, ...groupTeam, ...auth })
        .then((answer) => answer.users ?? [])
        .catch((error: unknown) => {
          if (slackErrorCode(error) === 'no_such_subteam') return [];
          throw error;
        });
      groups.cache.set(key, users);
      return users;
    },
    async inConversation(channelId, userId) {
      const key = `${teamId}:${channelId}`;
      let members = groups.conversations.get(key);
      if (!members) {
        // Slack not answering is no answer: hidden this time, asked again next time.
        members = await conversationMembers(client, channelId, auth).catch(() => undefined);
        if (!members) return false;
        groups.conversations.set(key, members);
      }
      return members.has(userId);
    },
  };
}

/**
 * The directory of a workspace for work outside a request (its bot token), knowing its Grid
 * organization, so that a colleague from another of its workspaces is one of its people.
 */
export async function backgroundDirectory(
  clients: WorkspaceClients,
  people: GroupMembersCache,
  workspaceId: string,
): Promise<SlackDirectory> {
  const token = await clients.tokenFor(workspaceId);
  const enterpriseId = await clients.enterpriseOf(workspaceId);
  return webDirectory(clients.client, workspaceId, people, enterpriseId, token);
}
