// Slack's rate limits: each Web API method's tier (calls a minute per workspace per app), and one
// post a second per channel, each refused with a 429 and a Retry-After. The tiers are on by
// default, the channel limit only when asked for (FakeSlackOptions says why).
import type { SlackIds } from './ids.js';
import type { Args } from './types.js';

/**
 * Calls a minute allowed by each tier. Source: https://api.slack.com/docs/rate-limits ("Tier 1:
 * 1+ per minute, Tier 2: 20+, Tier 3: 50+, Tier 4: 100+"), counted as in Slack's own SDK:
 * slackapi/java-slack-sdk slack-api-client/.../methods/MethodsRateLimitTier.java
 * (getAllowedRequestsPerMinute: 1, 20, 50, 100; the "special" auth.test and chat.getPermalink:
 * "hundreds of requests per minute", counted 600). The "+" is Slack's margin, not ours: in doubt,
 * the fake allows the floor.
 */
const TIER = { 1: 1, 2: 20, 3: 50, 4: 100, hundreds: 600 } as const;

/**
 * Each method the bot calls, with its tier. Source: each method's page on
 * https://api.slack.com/methods (Facts → Rate limits), as listed in slackapi/java-slack-sdk
 * slack-api-client/src/main/java/com/slack/api/methods/MethodsRateLimits.java.
 * chat.postMessage is absent: its limit is per channel (see POSTING).
 */
export const SLACK_METHOD_TIERS: Readonly<Record<string, number>> = {
  'auth.test': TIER.hundreds, // SpecialTier_auth_test
  'chat.getPermalink': TIER.hundreds, // SpecialTier_chat_getPermalink
  'chat.postEphemeral': TIER[4],
  'chat.update': TIER[3],
  'chat.delete': TIER[3],
  'conversations.info': TIER[3],
  'conversations.members': TIER[4],
  'users.info': TIER[4],
  // Tier 3: https://api.slack.com/methods/users.lookupByEmail ("Rate limits: Tier 3").
  'users.lookupByEmail': TIER[3],
  'usergroups.users.list': TIER[2],
  'views.open': TIER[4],
  'views.push': TIER[4],
  'views.update': TIER[4],
  'views.publish': TIER[4],
  'files.getUploadURLExternal': TIER[4],
  'files.completeUploadExternal': TIER[4],
  'files.info': TIER[4],
};

/** The file methods the bot's reports use (Tier 4), for benchmarks that limit only those. */
export const TIER_4_FILE_METHODS: Readonly<Record<string, number>> = {
  'files.getUploadURLExternal': TIER[4],
  'files.completeUploadExternal': TIER[4],
  'files.info': TIER[4],
};

/**
 * Methods that post into a channel, and so count against its one-per-second limit. Source:
 * https://api.slack.com/docs/rate-limits ("Posting messages: 1 per second. Short bursts >1
 * allowed. If you attempt bursts, there is no guarantee that messages will be stored or
 * displayed"; chat.postMessage's page: "1 message per second per channel", Special tier). Slack
 * publishes no burst size, and a burst may be dropped silently, so the fake grants none: a second
 * post within the second is refused (in doubt, stricter). files.completeUploadExternal with a
 * channel shares the file as a message in it, so it counts as a post too (an assumption, stricter).
 */
const POSTING = new Set(['chat.postMessage', 'files.completeUploadExternal']);

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
   * Limits are "per API method per app per workspace" (https://api.slack.com/docs/rate-limits).
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
