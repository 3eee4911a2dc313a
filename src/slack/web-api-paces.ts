// Slack's limits on Web API calls, as the paces background work keeps (src/throttles/call-pace.ts):
// one post per second per channel, and each file method within its tier (Tier 4: Slack's 100 a
// minute per workspace, of which background work takes 80), across every replica, so replicas
// posting to one channel or one workspace never collide into a 429.

/** Slack's limits, as gaps between calls under one key. */
export const SLACK_GAPS = {
  /**
   * Messages in one channel: one a second, and a fifth more for the time between taking a slot and
   * the post reaching Slack (measured: at 1,000 ms, 16 of 1,000 reports met a 429).
   */
  channelPostMs: 1_200,
  /**
   * A Tier 4 method in one workspace: Slack allows 100 a minute; background work keeps to 80, so
   * that 20 are left for charts people ask for (which never wait for a slot).
   */
  tier4Ms: 750,
  /**
   * A Tier 3 method in one workspace (chat.update: Tier 3, 50+ a minute,
   * https://api.slack.com/methods/chat.update): background work keeps to 40, leaving 10 for the
   * edits people's clicks make (which never wait for a slot).
   */
  tier3Ms: 1_500,
} as const;

/** The key of a channel's posts and of a workspace's method, as a CallPace takes them. */
export const paceKeys = {
  channel: (workspaceId: string, channelId: string): [string, number] => [
    `slack:channel:${workspaceId}:${channelId}`,
    SLACK_GAPS.channelPostMs,
  ],
  tier4: (workspaceId: string, method: string): [string, number] => [
    `slack:method:${workspaceId}:${method}`,
    SLACK_GAPS.tier4Ms,
  ],
  tier3: (workspaceId: string, method: string): [string, number] => [
    `slack:method:${workspaceId}:${method}`,
    SLACK_GAPS.tier3Ms,
  ],
};
