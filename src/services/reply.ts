// Where a person expects the answer to what they asked, kept with work that outlives the request.

export interface ReplyTo {
  userId: string;
  /** The conversation it was asked in, if any (the App Home has none). */
  channelId?: string;
  /** The request's response_url, if it had one. */
  responseUrl?: string;
  /** When Slack issued the response_url: it takes 5 messages within 30 minutes. */
  issuedAt: number;
  /** Seen by the channel, or by the requester alone. */
  visibility: 'in_channel' | 'ephemeral';
  /**
   * Said in `channelId` or nowhere: the requester is no Slack user (a token of the HTTP API), so
   * there is no DM to fall back on; without a channel, or where the bot cannot post, nothing is said.
   */
  channelOnly?: boolean;
}
