// What every /cdn subcommand handler receives, and helpers they share.
import type { RespondFn, SlashCommand } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { AppDeps } from '../../deps.js';
import { AccessControl } from '../../services/access.js';
import { webDirectory } from '../../slack/directory.js';

export interface SubcommandContext {
  deps: AppDeps;
  args: string[];
  command: SlashCommand;
  workspaceId: string;
  respond: RespondFn;
  client: WebClient;
}

export type SubcommandHandler = (context: SubcommandContext) => Promise<void>;

export function accessFor(
  context: Pick<SubcommandContext, 'client' | 'workspaceId' | 'deps'>,
): AccessControl {
  return new AccessControl(webDirectory(context.client, context.workspaceId, context.deps.groups));
}

/**
 * The workspace an interaction belongs to: Bolt's authorized team first, then the payload's.
 * Every handler reads it the same way.
 */
export function workspaceOf(
  context: { teamId?: string | undefined },
  body: { team?: { id?: string } | null; user?: { team_id?: string } },
): string {
  return context.teamId ?? body.team?.id ?? body.user?.team_id ?? '';
}

/** Operators only (when a group is configured): the check every changing handler makes. */
export async function requireOperatorIn(
  context: Pick<SubcommandContext, 'client' | 'workspaceId' | 'deps'>,
  userId: string,
  doing: string,
): Promise<void> {
  const workspace = await context.deps.store.workspaces.ensure(context.workspaceId);
  await accessFor(context).requireOperator(workspace, userId, doing);
}

/** Where a modal's result should go, carried in private_metadata. */
export interface ModalOrigin {
  channelId?: string;
  responseUrl?: string;
  /** The zone the modal is about, when it is about one. */
  zoneId?: string;
}

export function encodeOrigin(origin: ModalOrigin): string {
  return JSON.stringify(origin);
}

export function decodeOrigin(metadata: string | undefined): ModalOrigin {
  try {
    const value = JSON.parse(metadata ?? '{}') as Record<string, unknown>;
    return {
      ...(typeof value.channelId === 'string' ? { channelId: value.channelId } : {}),
      ...(typeof value.responseUrl === 'string' ? { responseUrl: value.responseUrl } : {}),
      ...(typeof value.zoneId === 'string' ? { zoneId: value.zoneId } : {}),
    };
  } catch {
    return {};
  }
}
