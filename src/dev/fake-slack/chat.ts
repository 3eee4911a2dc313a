// The fake Slack's chat.* methods, and the checks Slack makes of any message and where it goes.
import { dmIdOf } from './directory.js';
import { slackFileProblems } from './file-readiness.js';
import type { SlackIds } from './ids.js';
import type { SlackRecords } from './records.js';
import type { Args, Message } from './types.js';
import { type Surface, validateBlocks } from './validate.js';

export class ChatMethods {
  constructor(
    private readonly records: SlackRecords,
    private readonly ids: SlackIds,
    /** The workspace's message edit window (FakeSlackOptions.editWindowMs), if it has one. */
    private readonly editWindowMs?: number,
  ) {}

  /** Adds a new message, and tells whoever waits for messages. */
  record(fields: Omit<Message, 'ts' | 'deleted' | 'history'>): Message {
    const message: Message = { ...fields, ts: this.ids.ts(), deleted: false, history: [] };
    this.records.messages.push(message);
    this.records.emit('response', message);
    return message;
  }

  /** A posted message must have text or valid blocks; Slack's texts and sizes apply. */
  messageProblems(args: Args, surface: Surface = 'message'): Args | undefined {
    const blocks = args.blocks;
    if (blocks !== undefined) {
      const errors = validateBlocks(blocks, surface);
      if (errors.length > 0) return invalidBlocks(errors);
      const files = slackFileProblems(blocks, this.records.files, this.ids.now());
      if (files.length > 0) return invalidBlocks(files);
    }
    const text = args.text;
    if ((blocks === undefined || (Array.isArray(blocks) && blocks.length === 0)) && !text) {
      return { ok: false, error: 'no_text' };
    }
    if (typeof text === 'string' && text.length > 40_000)
      return { ok: false, error: 'msg_too_long' };
    return undefined;
  }

  /**
   * Why the app cannot post (or, `forPost` false, post ephemerally) in a conversation. Errors as
   * chat.postMessage documents them (slackapi/slack-api-specs web-api/slack_web_openapi_v2.json,
   * /chat.postMessage: channel_not_found, not_in_channel, is_archived). A private channel, DM or
   * group DM the app is not in does not exist for it: "To post a message to a private channel, a
   * bot user needs to be a member … Your bot user cannot jump into others' private conversations"
   * (https://github.com/slackapi/bolt-js/issues/365, answered channel_not_found; the same for
   * chat.postEphemeral in a DM, https://github.com/slackapi/python-slack-sdk/issues/734). A DM id
   * the workspace does not list is the app's own DM with someone (its Messages tab).
   */
  channelProblem(channelId: string, forPost: boolean): Args | undefined {
    const channel = this.records.channels.get(channelId);
    if (this.records.users.has(channelId) || (!channel && channelId.startsWith('D')))
      return undefined;
    if (!channel) return { ok: false, error: 'channel_not_found' };
    if (!channel.botMember && (channel.isPrivate || channel.kind))
      return { ok: false, error: 'channel_not_found' };
    if (channel.archived) return { ok: false, error: 'is_archived' };
    if (channel.ekmRevoked) return { ok: false, error: 'ekm_access_denied' };
    if (forPost && !channel.botMember) return { ok: false, error: 'not_in_channel' };
    return undefined;
  }

  /** Whether a person is in a conversation (a workspace's user, and among its members if listed). */
  isMember(channelId: string, userId: string): boolean {
    if (!this.records.users.has(userId)) return false;
    const members = this.records.channels.get(channelId)?.members;
    return !members || members.includes(userId);
  }

  /** A channel where only some may post (FakeChannel.postingRestricted) refuses the bot's post. */
  #postingProblem(channelId: string, args: Args): Args | undefined {
    const restricted = this.records.channels.get(channelId)?.postingRestricted;
    if (restricted === 'read_only')
      return { ok: false, error: 'restricted_action_read_only_channel' };
    if (restricted === 'thread_only' && typeof args.thread_ts !== 'string')
      return { ok: false, error: 'restricted_action_thread_only_channel' };
    return undefined;
  }

  postMessage(args: Args): Args {
    const channel = String(args.channel ?? '');
    const problem =
      this.channelProblem(channel, true) ??
      this.#postingProblem(channel, args) ??
      this.messageProblems(args);
    if (problem) return problem;
    const message = this.record({
      channel,
      via: 'api',
      ...textAndBlocks(args),
      ...(typeof args.thread_ts === 'string' ? { threadTs: args.thread_ts } : {}),
    });
    // Posted to a person's user id, the message is in the app's DM with them, and its answer names
    // that DM (D…): only that id edits it later (#byUserId).
    return {
      ok: true,
      channel: this.records.users.has(channel) ? dmIdOf(channel) : channel,
      ts: message.ts,
      message: { text: message.text, blocks: message.blocks },
    };
  }

  postEphemeral(args: Args): Args {
    const channel = String(args.channel ?? '');
    const problem = this.channelProblem(channel, false) ?? this.messageProblems(args);
    if (problem) return problem;
    // "The user should be in the channel specified by the channel argument"; else
    // user_not_in_channel (https://docs.slack.dev/reference/methods/chat.postEphemeral, errors).
    if (!this.isMember(channel, String(args.user)))
      return { ok: false, error: 'user_not_in_channel' };
    const message = this.record({
      channel,
      via: 'api',
      ephemeralTo: String(args.user),
      ...textAndBlocks(args),
    });
    return { ok: true, message_ts: message.ts };
  }

  /**
   * chat.update's errors (slack_web_openapi_v2.json, /chat.update: message_not_found,
   * cant_update_message, channel_not_found, edit_window_closed, is_inactive). A message in an
   * archived channel cannot be edited: the list has no `is_archived` for this method, and its
   * `is_inactive` is the one for a conversation that is no longer active. A private channel the app
   * was removed from no longer exists for it (channel_not_found, as for posts).
   */
  update(args: Args): Args {
    if (this.#byUserId(args)) return { ok: false, error: 'channel_not_found' };
    const where = this.records.channels.get(String(args.channel));
    if (where?.archived) return { ok: false, error: 'is_inactive' };
    if (where?.ekmRevoked) return { ok: false, error: 'ekm_access_denied' };
    if (where && !where.botMember && (where.isPrivate || where.kind))
      return { ok: false, error: 'channel_not_found' };
    const message = this.#find(String(args.channel), String(args.ts));
    if (!message) return { ok: false, error: 'message_not_found' };
    if (message.via !== 'api' || message.ephemeralTo)
      return { ok: false, error: 'cant_update_message' };
    const postedAt = Number(message.ts.split('.')[0]) * 1_000;
    if (this.editWindowMs !== undefined && this.ids.now() - postedAt > this.editWindowMs)
      return { ok: false, error: 'edit_window_closed' };
    const problem = this.messageProblems(args);
    if (problem) return problem;
    replaceContent(message, args);
    this.records.emit('response', message);
    return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
  }

  delete(args: Args): Args {
    if (this.#byUserId(args)) return { ok: false, error: 'channel_not_found' };
    const message = this.#find(String(args.channel), String(args.ts));
    if (!message) return { ok: false, error: 'message_not_found' };
    message.deleted = true;
    this.records.emit('response', message);
    return { ok: true, channel: message.channel, ts: message.ts };
  }

  /** A link to a message, as Slack gives it (the workspace's domain, the channel, the ts). */
  getPermalink(args: Args): Args {
    const message = this.#find(String(args.channel), String(args.message_ts));
    if (!message) return { ok: false, error: 'message_not_found' };
    const permalink = `https://fake.slack.test/archives/${message.channel}/p${message.ts.replace('.', '')}`;
    return { ok: true, channel: message.channel, permalink };
  }

  /**
   * An edit naming a person's user id instead of the DM's id: Slack answers channel_not_found
   * ("If I use the channel ID in place of the User ID the workflow works just fine",
   * https://github.com/slackapi/python-slack-sdk/issues/528; https://github.com/slackapi/bolt-python/issues/626).
   */
  #byUserId(args: Args): boolean {
    return this.records.users.has(String(args.channel));
  }

  /** A message by its conversation (a DM by its D… id, whichever id it was posted to) and ts. */
  #find(channel: string, ts: string): Message | undefined {
    const dm = (id: string) => (this.records.users.has(id) ? dmIdOf(id) : id);
    return this.records.messages.find(
      (m) => dm(m.channel) === dm(channel) && m.ts === ts && !m.deleted,
    );
  }
}

export function textAndBlocks(args: Args): { text?: string; blocks?: unknown[] } {
  return {
    ...(typeof args.text === 'string' ? { text: args.text } : {}),
    ...(Array.isArray(args.blocks) ? { blocks: args.blocks } : {}),
  };
}

/** Gives a message new text and blocks, keeping the old ones in its history. */
export function replaceContent(message: Message, args: Args): void {
  message.history.push({
    ...(message.text !== undefined ? { text: message.text } : {}),
    ...(message.blocks !== undefined ? { blocks: message.blocks } : {}),
  });
  delete message.text;
  delete message.blocks;
  Object.assign(message, textAndBlocks(args));
}

/**
 * Slack's answer to blocks it refuses: each problem in `errors`, and again, marked `[ERROR]`, in
 * response_metadata.messages (as recorded in https://github.com/slackapi/python-slack-sdk/issues/1658).
 */
export function invalidBlocks(errors: string[]): Args {
  return {
    ok: false,
    error: 'invalid_blocks',
    errors,
    response_metadata: { messages: errors.map((error) => `[ERROR] ${error}`) },
  };
}
