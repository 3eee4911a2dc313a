// One workspace context for every request: the workspace, the person, and how to look them up,
// resolved once by middleware and read by every handler the same way.
import type {
  AllMiddlewareArgs,
  AnyMiddlewareArgs,
  BlockButtonAction,
  Context,
  Middleware,
  RespondArguments,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Message } from '../blocks/message.js';
import type { Caller, SlackDirectory } from '../services/access/access.js';
import { type Relation, relationOf, type WorkspaceIdentity } from '../services/access/relation.js';
import { type GroupMembersCache, webDirectory } from '../slack/directory.js';
import {
  type Conversation,
  type FallbackLog,
  postInConversation,
  refusalOf,
} from '../slack/message-target.js';
import type { WorkspaceInstall } from '../slack/workspace-clients.js';

/** What a button's listener receives. */
export type ButtonArgs = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;
/** What a modal submission's listener receives. */
export type SubmitArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

type Body = {
  team?: { id?: string; enterprise_id?: string } | null;
  enterprise?: { id?: string } | null;
  team_id?: string;
  user?: { id?: string; team_id?: string };
  user_id?: string;
  event?: { user?: unknown };
  channel_id?: string;
  channel?: { id?: string };
  container?: { channel_id?: string };
};

/** Bolt's authorized team first, then what the payload says. */
function workspaceIn(context: Context, body: Body): string {
  return context.teamId ?? body.team?.id ?? body.user?.team_id ?? body.team_id ?? '';
}

/** Who acted: a command's user_id, an interaction's user, or an event's user. */
function userIn(body: Body): string {
  const eventUser = typeof body.event?.user === 'string' ? body.event.user : undefined;
  return body.user_id ?? body.user?.id ?? eventUser ?? '';
}

/** Who acted, and the conversation they acted in (a command's channel, a message's), if any. */
export function conversationIn(body: unknown): Conversation {
  const fields = (body ?? {}) as Body;
  const channelId = fields.channel_id ?? fields.channel?.id ?? fields.container?.channel_id;
  return { userId: userIn(fields), ...(channelId ? { channelId } : {}) };
}

/**
 * The workspace a request is for, and its Enterprise Grid organization: the one Bolt authorized
 * (the installation's), else the payload's `enterprise.id` / `team.enterprise_id` / a command's
 * `enterprise_id`, which name where the app is (Bolt's buildSource picks the installation by them;
 * slackapi/bolt-python tests/slack_bolt/request/test_internals.py: `team: {id: "T111",
 * enterprise_id: "E111"}`, `enterprise: {id: "E111"}` beside `user.team_id: "T111"`). Never the
 * person's organization: in a Slack Connect channel it is the app's side.
 */
function workspaceOf(context: Context, body: Body): WorkspaceIdentity {
  const enterpriseId =
    context.enterpriseId ??
    body.team?.enterprise_id ??
    body.enterprise?.id ??
    (body as { enterprise_id?: string }).enterprise_id;
  // Installed for a whole organization: its data is the organization's, one configuration for
  // every workspace of it (docs/grid.md). Its interactions name no workspace anyway (`team: null`,
  // and `user.team_id` is the person's own: slackapi/bolt-python#23).
  if (context.isEnterpriseInstall === true && enterpriseId)
    return { teamId: enterpriseId, enterpriseId };
  return { teamId: workspaceIn(context, body), ...(enterpriseId ? { enterpriseId } : {}) };
}

/**
 * What the payload itself says of its user (`relationOf`): an interaction's `user.team_id` is the
 * person's own workspace (or their Grid organization's id), beside `team`, the workspace the
 * interaction came from (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload;
 * both in slackapi/java-slack-sdk json-logs/samples/app-backend/interactive-components/
 * BlockActionPayload.json). A command names no team of the person's: unknown.
 */
export function payloadRelation(body: unknown, context: Context): Relation {
  const fields = (body ?? {}) as Body;
  return relationOf({ teamId: fields.user?.team_id }, workspaceOf(context, fields));
}

/** Whether the payload itself says its user is of another organization (`payloadRelation`). */
export function isOutsider(body: unknown, context: Context): boolean {
  return payloadRelation(body, context) === 'outsider';
}

/**
 * The directory, except for the caller, whom the payload placed: an outsider stays one whatever
 * users.info says; someone of another team of this Grid organization's workspaces (`unknown` by
 * the payload) is a colleague only if users.info says so (`enterprise_user`), else an outsider.
 */
function asPlaced(
  directory: SlackDirectory,
  userId: string,
  relation: 'outsider' | 'unknown',
): SlackDirectory {
  return {
    ...directory,
    async user(id) {
      const user = await directory.user(id);
      if (id !== userId) return user;
      if (relation === 'outsider') return { ...user, stranger: user.stranger ?? 'external' };
      return user.colleague || user.stranger ? user : { ...user, stranger: 'organization' };
    },
  };
}

/** Whether the payload names the person's own team (`user.team_id`: interactions do). */
function hasUserTeam(body: unknown): boolean {
  return Boolean((body as Body | undefined)?.user?.team_id);
}

/** Told of every request's workspace and install (WorkspaceClients, for work done later). */
export interface InstallsSeen {
  remember(workspaceId: string, install: WorkspaceInstall): void;
}

export function requestContext(
  groups: GroupMembersCache,
  installs?: InstallsSeen,
): Middleware<AnyMiddlewareArgs> {
  return async ({ body, context, client, next }) => {
    const workspace = workspaceOf(context, body as Body);
    const userId = userIn(body as Body);
    const directory = webDirectory(
      client,
      workspace.teamId,
      groups,
      workspace.enterpriseId,
      undefined,
      workspaceIn(context, body as Body),
    );
    // The payload's word on who they are holds even where users.info would say otherwise; a
    // command's, which names no team of theirs, leaves it to users.info.
    const relation = payloadRelation(body, context);
    const placed =
      relation === 'outsider' || (relation === 'unknown' && hasUserTeam(body))
        ? asPlaced(directory, userId, relation)
        : directory;
    const caller: Caller = { workspaceId: workspace.teamId, userId, directory: placed };
    context.caller = caller;
    // Only what Bolt authorized: a payload's own claims name no install. Remembered under the
    // key the request's data is kept by (the organization's, for an org-wide install).
    if (context.teamId)
      installs?.remember(workspace.teamId, {
        enterpriseId: context.enterpriseId,
        isEnterpriseInstall: context.isEnterpriseInstall === true,
      });
    await next();
  };
}

/** The caller the middleware resolved for this request. */
export function callerOf(context: Context): Caller {
  const caller = context.caller as Caller | undefined;
  if (!caller) throw new Error('requestContext middleware did not run');
  return caller;
}

/** Whether the listener has acknowledged the request (see `tracked`). */
export function ackedIn(context: Context): boolean {
  return context.acked === true;
}

type Respond = (message: string | RespondArguments) => Promise<unknown>;

/**
 * Bolt's respond(), which never leaves the user with nothing: a response_url that refuses the
 * post (spent, expired, Slack slow) hands it to the conversation (in the channel, seen by all or
 * ephemeral as asked), else to the user's DM.
 */
export function resilientRespond(
  respond: Respond,
  client: WebClient,
  where: Conversation,
  log: FallbackLog,
): Respond {
  return async (message) => {
    try {
      return await respond(message);
    } catch (error) {
      const args: RespondArguments = typeof message === 'string' ? { text: message } : message;
      // Deleting a message there is no way to reach is nothing the user needs to see.
      if (args.delete_original) throw error;
      log.info(
        { reason: refusalOf(error) },
        'answer refused by the response_url; sent in the conversation',
      );
      const { response_type, replace_original, ...rest } = args;
      await postInConversation(
        client,
        where,
        rest as Message,
        response_type === 'in_channel' ? 'in_channel' : 'ephemeral',
        log,
      );
    }
  };
}

/**
 * A listener whose ack() is remembered in the context, so the error policy knows whether it can
 * still answer through the ack (a modal's errors) or must answer another way; and whose respond()
 * is resilient (see `resilientRespond`).
 */
export function tracked<
  Args extends { ack: (...response: never[]) => Promise<void>; context: Context },
>(listener: (args: Args) => Promise<void>): (args: Args) => Promise<void> {
  return (args) => {
    const { respond, client, body, logger } = args as {
      respond?: unknown;
      client?: unknown;
      body?: unknown;
      logger?: FallbackLog;
    };
    return listener({
      ...args,
      ...(typeof respond === 'function' && client && logger
        ? {
            respond: resilientRespond(
              respond as Respond,
              client as WebClient,
              conversationIn(body),
              logger,
            ),
          }
        : {}),
      ack: (async (...response: never[]) => {
        // Already acknowledged, empty, by the replay guard: nothing more to send.
        if (args.context.acked === true && response.length === 0) return;
        args.context.acked = true;
        // For the ack-latency metric (src/observability/taps.ts); process time, not the clock's.
        args.context.ackedAt ??= performance.now();
        await args.ack(...response);
      }) as Args['ack'],
    });
  };
}
