// Slack's rate limits, which the fake Slack enforces only when asked to: one post per second per
// channel, and per-minute limits on methods per workspace (the rate tiers), each refused with a
// 429 and a Retry-After.
import type { SlackIds } from './ids.js';
import type { Args } from './types.js';

/** Methods that post into a channel, and so count against its one-per-second limit. */
const POSTING = new Set(['chat.postMessage', 'files.completeUploadExternal']);

/** Tier 4 ("100+ per minute"): the file methods the bot's reports use. */
export const TIER_4_FILE_METHODS: Record<string, number> = {
  'files.getUploadURLExternal': 100,
  'files.completeUploadExternal': 100,
  'files.info': 100,
};

const MINUTE = 60_000;

export class SlackRateLimit {
  readonly #lastPost = new Map<string, number>();
  /** Per workspace and method: the times of the calls of the last minute, oldest first. */
  readonly #calls = new Map<string, number[]>();

  constructor(
    private readonly channels: boolean,
    private readonly perMinute: Readonly<Record<string, number>>,
    private readonly ids: SlackIds,
  ) {}

  /**
   * Seconds to wait when this call is to be answered 429; otherwise undefined, and the call
   * counts (a post as the channel's latest, a limited method's call against its minute).
   */
  refuses(method: string, args: Args, teamId: string): number | undefined {
    const now = this.ids.now();
    const limit = this.perMinute[method];
    const key = `${teamId}:${method}`;
    const recent = limit === undefined ? undefined : this.#recent(key, now);
    if (limit !== undefined && recent && recent.length >= limit)
      return Math.max(1, Math.ceil(((recent[0] ?? now) + MINUTE - now) / 1_000));
    if (this.channels && POSTING.has(method)) {
      const channel = String(args.channel ?? args.channel_id ?? '');
      const last = this.#lastPost.get(channel);
      if (last !== undefined && now - last < 1_000) return 1;
      this.#lastPost.set(channel, now);
    }
    recent?.push(now);
    return undefined;
  }

  #recent(key: string, now: number): number[] {
    const calls = this.#calls.get(key) ?? [];
    let stale = 0;
    while (stale < calls.length && (calls[stale] ?? 0) <= now - MINUTE) stale += 1;
    if (stale > 0) calls.splice(0, stale);
    this.#calls.set(key, calls);
    return calls;
  }
}
