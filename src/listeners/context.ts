// One workspace context for every request: the workspace, the person, and how to look them up,
// resolved once by middleware and read by every handler the same way.
import type {
  AllMiddlewareArgs,
  AnyMiddlewareArgs,
  BlockButtonAction,
  Context,
  Middleware,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { Caller } from '../services/access.js';
import { type GroupMembersCache, webDirectory } from '../slack/directory.js';

/** What a button's listener receives. */
export type ButtonArgs = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;
/** What a modal submission's listener receives. */
export type SubmitArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

type Body = {
  team?: { id?: string } | null;
  team_id?: string;
  user?: { id?: string; team_id?: string };
  user_id?: string;
  event?: { user?: unknown };
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

export function requestContext(groups: GroupMembersCache): Middleware<AnyMiddlewareArgs> {
  return async ({ body, context, client, next }) => {
    const workspaceId = workspaceIn(context, body as Body);
    const caller: Caller = {
      workspaceId,
      userId: userIn(body as Body),
      directory: webDirectory(client, workspaceId, groups),
    };
    context.caller = caller;
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

/**
 * A listener whose ack() is remembered in the context, so the error policy knows whether it can
 * still answer through the ack (a modal's errors) or must answer another way.
 */
export function tracked<
  Args extends { ack: (...response: never[]) => Promise<void>; context: Context },
>(listener: (args: Args) => Promise<void>): (args: Args) => Promise<void> {
  return (args) =>
    listener({
      ...args,
      ack: (async (...response: never[]) => {
        args.context.acked = true;
        await args.ack(...response);
      }) as Args['ack'],
    });
}
