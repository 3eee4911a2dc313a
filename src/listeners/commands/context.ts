// What every /cdn subcommand handler receives, and the modal origin they pass along.
import type { RespondFn, SlashCommand } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { purgeEverythingModal } from '../../blocks/purge.js';
import type { AppDeps } from '../../deps.js';
import type { Caller } from '../../services/access/access.js';
import type { ReplyTo } from '../../services/reply.js';
import type { SlackToken } from '../../text.js';
import { type ButtonArgs, callerOf } from '../context.js';

export interface SubcommandContext {
  deps: AppDeps;
  /** The words after the subcommand as typed (links read back to what was typed, entities decoded). */
  args: string[];
  /** The same words as tokens: the channels, user groups and users mentioned, with their ids. */
  tokens: SlackToken[];
  /**
   * The CDN account typed (`account:<name>`, `<account>/<zone>`), read out of `args` for the
   * commands that act on accounts (`accounts: true` in the registry); absent otherwise.
   */
  account?: string;
  command: SlashCommand;
  /** The workspace and person, resolved once by the request-context middleware. */
  caller: Caller;
  respond: RespondFn;
  client: WebClient;
}

export type SubcommandHandler = (context: SubcommandContext) => Promise<void>;

/** Where a modal's result should go, carried in private_metadata. */
export interface ModalOrigin {
  channelId?: string;
  responseUrl?: string;
  /** The zone the modal is about, when it is about one. */
  zoneId?: string;
  /** That zone's CDN account, when known. */
  accountId?: string;
  /** The held purge the modal asks about (src/services/purge/purge-holds.ts). */
  heldId?: string;
  /** A purge-everything for later: when (ms since the epoch), read from the command. */
  notBefore?: number;
}

export function encodeOrigin(origin: ModalOrigin): string {
  return JSON.stringify(origin);
}

/**
 * The purge-everything form for `zone`, opened from `origin`: its metadata names the zone, and the
 * zone's CDN account when it has one.
 */
export function everythingModal(
  zone: Parameters<typeof purgeEverythingModal>[0]['zone'],
  origin: ModalOrigin,
): ModalView {
  const metadata = encodeOrigin({
    ...origin,
    zoneId: zone.id,
    accountId: zone.accountId,
  });
  return purgeEverythingModal({
    zone,
    metadata,
    ...(origin.notBefore === undefined ? {} : { notBefore: origin.notBefore }),
  });
}

/** The origin of a command: its channel and response_url. */
export function commandOrigin(command: SlashCommand): ModalOrigin {
  return { channelId: command.channel_id, responseUrl: command.response_url };
}

/** The origin of a button: the message's response_url and channel. */
export function buttonOrigin(body: {
  response_url?: string;
  channel?: { id?: string } | null;
}): ModalOrigin {
  return {
    ...(body.response_url ? { responseUrl: body.response_url } : {}),
    ...(body.channel?.id ? { channelId: body.channel.id } : {}),
  };
}

/**
 * What a click on a button asks a service for: who clicked, in which channel, the button's value,
 * and where the answer to work outliving the click goes (the message's response_url and channel).
 */
export function buttonClick(args: Pick<ButtonArgs, 'action' | 'body' | 'context'>, now: number) {
  const caller = callerOf(args.context);
  const origin = buttonOrigin(args.body);
  return {
    caller,
    channelId: origin.channelId,
    value: args.action.value ?? '',
    replyTo: replyTo(origin, caller.userId, now),
  };
}

/**
 * Where the answer to work outliving this request goes: the origin's response_url and channel
 * (issued now), or the user's DM when there is neither.
 */
export function replyTo(
  origin: ModalOrigin,
  userId: string,
  now: number,
  visibility: ReplyTo['visibility'] = 'in_channel',
): ReplyTo {
  return {
    userId,
    issuedAt: now,
    visibility,
    ...(origin.channelId ? { channelId: origin.channelId } : {}),
    ...(origin.responseUrl ? { responseUrl: origin.responseUrl } : {}),
  };
}

/**
 * A modal's origin from its private_metadata. Its response_url is kept only if `isSlackResponseUrl`
 * accepts it: metadata that names another address (a forged submission) is never posted to.
 */
export function decodeOrigin(
  metadata: string | undefined,
  isSlackResponseUrl: (url: string) => boolean,
): ModalOrigin {
  try {
    const value = JSON.parse(metadata ?? '{}') as Record<string, unknown>;
    const { responseUrl } = value;
    return {
      ...(typeof value.channelId === 'string' ? { channelId: value.channelId } : {}),
      ...(typeof responseUrl === 'string' && isSlackResponseUrl(responseUrl)
        ? { responseUrl }
        : {}),
      ...(typeof value.zoneId === 'string' ? { zoneId: value.zoneId } : {}),
      ...(typeof value.accountId === 'string' ? { accountId: value.accountId } : {}),
      ...(typeof value.heldId === 'string' ? { heldId: value.heldId } : {}),
      ...(typeof value.notBefore === 'number' && Number.isFinite(value.notBefore)
        ? { notBefore: value.notBefore }
        : {}),
    };
  } catch {
    return {};
  }
}
