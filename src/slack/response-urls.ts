// Which URLs are Slack's own response URLs: the only ones the bot posts an answer to. A payload
// or a modal's metadata that names another (a loopback address, a host inside the network) is
// not followed.

/**
 * Whether `url` is a response URL of the Slack whose Web API is at `apiUrl`. Slack issues them on
 * hooks.slack.com (https://api.slack.com/interactivity/handling#message_responses; e.g.
 * `"response_url": "https://hooks.slack.com/commands/..."` in slackapi/java-slack-sdk
 * json-logs/samples/app-backend/slash-commands/SlashCommandPayload.json), and on
 * hooks.slack-gov.com for GovSlack (whose Web API is slack-gov.com/api/). With another
 * SLACK_API_URL (a test's fake Slack), its own origin is where response URLs are, unless
 * SLACK_RESPONSE_URL_BASE says where (a proxy in front of the Web API only).
 */
export function slackResponseUrls(
  apiUrl: string,
  responseUrlBase?: string,
): (url: string) => boolean {
  const api = new URL(apiUrl);
  const origin = responseUrlBase
    ? new URL(responseUrlBase).origin
    : api.hostname === 'slack.com' || api.hostname === 'slack-gov.com'
      ? `https://hooks.${api.hostname}`
      : api.origin;
  return (url) => URL.parse(url)?.origin === origin;
}
