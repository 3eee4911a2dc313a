// The fake Slack's read-only workspace methods: users.info, usergroups, conversations.info and
// conversations.members.
import type { SlackRecords } from './records.js';
import type { Args, Identity } from './types.js';

/**
 * users.info, as the asking workspace (`teamId`) sees the person. The fields and their shape are
 * those of slackapi/java-slack-sdk json-logs/samples/api/users.info.json (is_admin, is_owner,
 * is_primary_owner, is_restricted, is_ultra_restricted, is_stranger, team_id, enterprise_user);
 * their meaning is https://api.slack.com/types/user's. A single-channel guest is sent as
 * `is_restricted: false, is_ultra_restricted: true`, as in the example answer of
 * https://docs.slack.dev/reference/methods/admin.users.getExpiration: a bot must not read
 * `is_restricted` alone. A deactivated account is still found, with `deleted: true` (the user
 * object's `deleted` field, https://api.slack.com/types/user: its example answer carries
 * `"deleted": false`; `deleted` is a boolean of `objs_user` in slackapi/slack-api-specs
 * web-api/slack_web_openapi_v2.json, and the sample above has it): nothing else marks it. On Grid,
 * a person carries `enterprise_user` (the sample's fields: `enterprise_id`, their own
 * organization's, else (one of the workspace's own) the workspace's; `is_admin` and `is_owner` of
 * that organization).
 */
export function usersInfo(
  records: SlackRecords,
  { teamId, enterpriseId }: Pick<Identity, 'teamId' | 'enterpriseId'>,
  args: Args,
): Args {
  const user = records.users.get(String(args.user));
  if (!user) return { ok: false, error: 'user_not_found' };
  const org = user.enterpriseId ?? (user.teamId ? undefined : enterpriseId);
  return {
    ok: true,
    user: {
      id: user.id,
      team_id: user.teamId ?? teamId,
      ...(user.isStranger ? { is_stranger: true } : {}),
      ...(org
        ? {
            enterprise_user: {
              id: user.id,
              enterprise_id: org,
              is_admin: !!user.isOrgAdmin || !!user.isOrgOwner,
              is_owner: !!user.isOrgOwner,
            },
          }
        : {}),
      name: user.name,
      deleted: !!user.deleted,
      real_name: user.name,
      is_admin: !!user.isAdmin || !!user.isOwner,
      is_owner: !!user.isOwner,
      is_primary_owner: !!user.isOwner,
      is_restricted: !!user.isRestricted,
      is_ultra_restricted: !!user.isUltraRestricted,
      is_bot: false,
      tz: user.tz ?? 'UTC',
      tz_offset: 0,
    },
  };
}

/**
 * users.lookupByEmail: the person with this e-mail address, shown as users.info shows them. Slack
 * answers `users_not_found` when no one has it (slackapi/slack-api-specs
 * web-api/slack_web_openapi_v2.json, /users.lookupByEmail: its error enum and its `default`
 * example `{ "ok": false, "error": "users_not_found" }`; the method needs `users:read.email`,
 * its `security`). Matched exactly: in doubt, stricter than Slack.
 */
export function usersLookupByEmail(
  records: SlackRecords,
  identity: Pick<Identity, 'teamId' | 'enterpriseId'>,
  args: Args,
): Args {
  const email = String(args.email ?? '');
  const user = [...records.users.values()].find((u) => u.email !== undefined && u.email === email);
  if (!user) return { ok: false, error: 'users_not_found' };
  return usersInfo(records, identity, { user: user.id });
}

/**
 * usergroups.users.list: a group that does not exist (never did, or an admin deleted it) answers
 * `no_such_subteam` ("No usergroup found with the given ID", the method page's Errors;
 * slackapi/java-slack-sdk slack-api-client/src/test/java/test_with_remote_apis/methods/
 * usergroups_Test.java asserts it for an unknown id). An organization-wide install's token must
 * name the workspace (`team_id`): "The user group's encoded team ID. Required if org token is
 * used", ignored with a workspace's token (https://api.slack.com/methods/usergroups.users.list,
 * its `team_id` argument; https://api.slack.com/enterprise/apps/changes-apis lists the methods
 * needing it). Without it Slack answers `missing_argument` ("A required argument is missing", an
 * error of the same family's usergroups.list, https://api.slack.com/methods/usergroups.list; met
 * for users.list and conversations.list by an org-wide app, lyft/omnibot#44).
 */
export function usergroupMembers(
  records: SlackRecords,
  { orgWide }: Pick<Identity, 'orgWide'>,
  args: Args,
): Args {
  if (orgWide && !args.team_id) return { ok: false, error: 'missing_argument' };
  const group = records.usergroups.get(String(args.usergroup));
  return group ? { ok: true, users: group.members } : { ok: false, error: 'no_such_subteam' };
}

/** The id of the app's DM with a person, as conversations.open gives it (one DM a person). */
export const dmIdOf = (userId: string): string => `D${userId}`;

/**
 * conversations.open with `users` naming one person: the app's DM with them ("Opens or resumes a
 * direct message", returning `channel.id`, https://docs.slack.dev/reference/methods/conversations.open;
 * the same shape in slackapi/slack-api-specs web-api/slack_web_openapi_v2.json, /conversations.open).
 * Someone the workspace does not know is `user_not_found`; a deactivated account is `user_disabled`
 * (one of conversations.open's errors in slack_web_openapi_v2.json: "user_disabled"), so a DM to
 * them is refused, as real Slack is stricter in doubt.
 */
export function conversationsOpen(records: SlackRecords, args: Args): Args {
  const users = String(args.users ?? '')
    .split(',')
    .filter((id) => id !== '');
  const [user] = users;
  if (!user || users.length > 1) return { ok: false, error: 'invalid_arguments' };
  const found = records.users.get(user);
  if (!found) return { ok: false, error: 'user_not_found' };
  if (found.deleted) return { ok: false, error: 'user_disabled' };
  return { ok: true, channel: { id: dmIdOf(user) } };
}

export function conversationsInfo(records: SlackRecords, args: Args): Args {
  const channel = records.channels.get(String(args.channel));
  // A private conversation the app is not in is not found (https://github.com/slackapi/bolt-js/issues/365).
  const hidden = channel && !channel.botMember && (channel.isPrivate || channel.kind);
  return channel && !hidden
    ? {
        ok: true,
        channel: {
          id: channel.id,
          name: channel.name,
          is_member: channel.botMember,
          is_archived: !!channel.archived,
          is_private: !!channel.isPrivate || !!channel.kind,
          is_im: channel.kind === 'im',
          is_mpim: channel.kind === 'mpim',
        },
      }
    : { ok: false, error: 'channel_not_found' };
}

/**
 * conversations.members: the people in a conversation, a page at a time. Shape, pagination
 * (`limit`, `cursor`, `response_metadata.next_cursor`, "" on the last page) and errors as
 * slackapi/slack-api-specs web-api/slack_web_openapi_v2.json, /conversations.members (scopes
 * channels:read, groups:read, im:read, mpim:read; the same answer in slackapi/java-slack-sdk
 * json-logs/samples/api/conversations.members.json). `limit` defaults to 100 and is at most 999
 * ("Must be an integer with a max value of 999. Default is 100", @slack/web-api's
 * CursorPaginationEnabled, https://docs.slack.dev/tools/node-slack-sdk/reference/web-api/interfaces/ConversationsMembersArguments).
 * A private conversation the app is not in does not exist for it, as for conversations.info
 * (https://github.com/slackapi/bolt-js/issues/365). The members are the channel's listed ones (all
 * the workspace's people when none are listed), and the bot when it is in.
 */
export function conversationsMembers(records: SlackRecords, botUserId: string, args: Args): Args {
  const channel = records.channels.get(String(args.channel));
  if (!channel || (!channel.botMember && (channel.isPrivate || channel.kind)))
    return { ok: false, error: 'channel_not_found' };
  const limit = args.limit === undefined ? 100 : Number(args.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 999)
    return { ok: false, error: 'invalid_limit' };
  const start = args.cursor === undefined || args.cursor === '' ? 0 : cursorOffset(args.cursor);
  if (start === undefined) return { ok: false, error: 'invalid_cursor' };
  const everyone = [
    ...(channel.members ?? [...records.users.keys()]),
    ...(channel.botMember ? [botUserId] : []),
  ];
  const page = everyone.slice(start, start + limit);
  const next = start + limit < everyone.length ? encodeCursor(start + limit) : '';
  return { ok: true, members: page, response_metadata: { next_cursor: next } };
}

const encodeCursor = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64');

function cursorOffset(cursor: unknown): number | undefined {
  const match = /^offset:(\d{1,9})$/.exec(Buffer.from(String(cursor), 'base64').toString());
  return match ? Number(match[1]) : undefined;
}
