// Why Slack refused to post somewhere, in words for the person who asked: one table for every
// place the bot posts (charts, approval requests, daily reports).

const REASONS: Record<string, string> = {
  not_in_channel: 'I am not in that channel. Invite me with `/invite @cdn`',
  channel_not_found: 'I can’t see that channel. Invite me with `/invite @cdn`',
  is_archived: 'the channel is archived',
  invalid_auth: 'the app was uninstalled or its token revoked',
  token_revoked: 'the app was uninstalled or its token revoked',
  account_inactive: 'the app was uninstalled or its token revoked',
};

/** The reason for a Web API error that is about where we post, or undefined for anything else. */
export function cannotPostReason(error: unknown): string | undefined {
  const code = (error as { data?: { error?: string } }).data?.error;
  return code === undefined ? undefined : REASONS[code];
}
