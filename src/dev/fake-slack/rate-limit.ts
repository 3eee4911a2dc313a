// Slack's one post per second per channel, which the fake Slack enforces only when asked to.
import type { SlackIds } from './ids.js';
import type { Args } from './types.js';

/** Methods that post into a channel, and so count against its one-per-second limit. */
const POSTING = new Set(['chat.postMessage', 'files.completeUploadExternal']);

export class ChannelRateLimit {
  readonly #lastPost = new Map<string, number>();

  constructor(
    private readonly enabled: boolean,
    private readonly ids: SlackIds,
  ) {}

  /** Whether this call is to be answered 429; if not, a post counts as the channel's latest. */
  refuses(method: string, args: Args): boolean {
    if (!this.enabled || !POSTING.has(method)) return false;
    const channel = String(args.channel ?? args.channel_id ?? '');
    const now = this.ids.now();
    const last = this.#lastPost.get(channel);
    if (last !== undefined && now - last < 1_000) return true;
    this.#lastPost.set(channel, now);
    return false;
  }
}
