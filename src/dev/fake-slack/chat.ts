// The fake Slack's chat.* methods, and the checks Slack makes of any message and where it goes.
import type { SlackIds } from './ids.js';
import type { SlackRecords } from './records.js';
import type { Args, Message } from './types.js';
import { type Surface, validateBlocks } from './validate.js';

export class ChatMethods {
  constructor(
    private readonly records: SlackRecords,
    private readonly ids: SlackIds,
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
    }
    const text = args.text;
    if ((blocks === undefined || (Array.isArray(blocks) && blocks.length === 0)) && !text) {
      return { ok: false, error: 'no_text' };
    }
    if (typeof text === 'string' && text.length > 40_000)
      return { ok: false, error: 'msg_too_long' };
    return undefined;
  }

  channelProblem(channelId: string, forPost: boolean): Args | undefined {
    if (this.records.users.has(channelId) || channelId.startsWith('D')) return undefined;
    const channel = this.records.channels.get(channelId);
    if (!channel) return { ok: false, error: 'channel_not_found' };
    if (channel.archived) return { ok: false, error: 'is_archived' };
    if (forPost && !channel.botMember) return { ok: false, error: 'not_in_channel' };
    return undefined;
  }

  postMessage(args: Args): Args {
    const channel = String(args.channel ?? '');
    const problem = this.channelProblem(channel, true) ?? this.messageProblems(args);
    if (problem) return problem;
    const message = this.record({
      channel,
      via: 'api',
      ...textAndBlocks(args),
      ...(typeof args.thread_ts === 'string' ? { threadTs: args.thread_ts } : {}),
    });
    return {
      ok: true,
      channel,
      ts: message.ts,
      message: { text: message.text, blocks: message.blocks },
    };
  }

  postEphemeral(args: Args): Args {
    const channel = String(args.channel ?? '');
    const problem = this.channelProblem(channel, false) ?? this.messageProblems(args);
    if (problem) return problem;
    if (!this.records.users.has(String(args.user)))
      return { ok: false, error: 'user_not_in_channel' };
    const message = this.record({
      channel,
      via: 'api',
      ephemeralTo: String(args.user),
      ...textAndBlocks(args),
    });
    return { ok: true, message_ts: message.ts };
  }

  update(args: Args): Args {
    const message = this.#find(String(args.channel), String(args.ts));
    if (!message) return { ok: false, error: 'message_not_found' };
    if (message.via !== 'api' || message.ephemeralTo)
      return { ok: false, error: 'cant_update_message' };
    const problem = this.messageProblems(args);
    if (problem) return problem;
    replaceContent(message, args);
    this.records.emit('response', message);
    return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
  }

  delete(args: Args): Args {
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

  #find(channel: string, ts: string): Message | undefined {
    return this.records.messages.find((m) => m.channel === channel && m.ts === ts && !m.deleted);
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

export function invalidBlocks(errors: string[]): Args {
  return { ok: false, error: 'invalid_blocks', errors, response_metadata: { messages: errors } };
}
