// The fake Slack's tokens: whose each is, auth.test, the OAuth install (and the refresh of a
// rotating token), Socket Mode's app token. Errors as the methods' pages and Slack's OpenAPI spec
// (slackapi/slack-api-specs web-api/slack_web_openapi_v2.json) name them.
import { randomBytes } from 'node:crypto';
import type { Args, FakeSlackOptions, Identity } from './types.js';

/** The app's id, as in payloads (payloads.ts puts it in api_app_id). */
export const APP_ID = 'A0FAKE';

export class SlackAuth {
  readonly #tokens: Map<string, Identity>;
  readonly #oauthCodes = new Map<string, { teamId: string; userId: string }>();
  /** Refresh tokens of rotating bot tokens: each gives a new bot token (and refresh token) once. */
  readonly #refreshTokens = new Map<string, string>();

  constructor(
    bot: { token: string } & Identity,
    private readonly options: Pick<FakeSlackOptions, 'tokens' | 'oauth' | 'socket'>,
    /** Where tokens handed out by oauth.v2.access are listed. */
    private readonly issuedTokens: string[],
  ) {
    this.#tokens = new Map([
      [bot.token, { teamId: bot.teamId, botUserId: bot.botUserId }],
      ...Object.entries(options.tokens ?? {}),
    ]);
  }

  /** Whose token this is, if it is a valid bot token. */
  identify(token: string | undefined): Identity | undefined {
    return token ? this.#tokens.get(token) : undefined;
  }

  /** A token Slack issued for this workspace's bot elsewhere (a step's workflow token). */
  addToken(token: string, identity: Identity): void {
    this.#tokens.set(token, identity);
  }

  /** The code Slack hands the app's redirect URL after a user approves an install. */
  mintOAuthCode(teamId: string, userId: string): string {
    const code = `code-${randomBytes(8).toString('hex')}`;
    this.#oauthCodes.set(code, { teamId, userId });
    return code;
  }

  addRefreshToken(refreshToken: string, teamId: string): void {
    this.#refreshTokens.set(refreshToken, teamId);
  }

  /**
   * auth.test for a bot token. Fields: slackapi/java-slack-sdk json-logs/samples/api/auth.test.json
   * (url, team, user, team_id, user_id, bot_id, app_id, is_enterprise_install, and
   * `enterprise_id` for a workspace of an Enterprise Grid organization).
   */
  authTest(identity: Identity): Args {
    return {
      ok: true,
      url: 'https://fake.slack.test/',
      team: 'Fake Team',
      team_id: identity.teamId,
      user: 'cdn-bot',
      user_id: identity.botUserId,
      bot_id: 'B0FAKE',
      app_id: APP_ID,
      is_enterprise_install: false,
      ...(identity.enterpriseId ? { enterprise_id: identity.enterpriseId } : {}),
    };
  }

  /**
   * apps.connections.open: a Socket Mode URL (`link`, or the test's own server's), for the
   * app-level token, which must come in the Authorization header ("passing it as a POST parameter
   * will result in an error"; missing_args: "An app-level token wasn't provided"; invalid_auth).
   * Source: https://api.slack.com/methods/apps.connections.open
   */
  openConnection(bearerToken: string | undefined, link: () => string): Args {
    const socket = this.options.socket;
    if (!bearerToken) return { ok: false, error: 'missing_args' };
    if (!socket || bearerToken !== socket.appToken) return { ok: false, error: 'invalid_auth' };
    return { ok: true, url: socket.url ?? link() };
  }

  /**
   * oauth.v2.access: a code exchanged for a new bot token, with the app's client credentials (in
   * a Basic Authorization header, or as client_id and client_secret). The answer's fields: Slack's
   * OpenAPI spec (slack_web_openapi_v2.json, /oauth.v2.access) and slackapi/java-slack-sdk
   * json-logs/samples/api/oauth.v2.access.json; errors (invalid_client_id, bad_client_secret,
   * invalid_code, invalid_refresh_token): https://api.slack.com/methods/oauth.v2.access
   */
  oauthAccess(args: Args, authorization: string | undefined): Args {
    const oauth = this.options.oauth;
    const basic = /^Basic (.+)$/.exec(authorization ?? '')?.[1];
    const [clientId, clientSecret] = basic
      ? Buffer.from(basic, 'base64').toString('utf8').split(':')
      : [args.client_id, args.client_secret];
    if (!oauth || clientId !== oauth.clientId) return { ok: false, error: 'invalid_client_id' };
    if (clientSecret !== oauth.clientSecret) return { ok: false, error: 'bad_client_secret' };
    if (args.grant_type === 'refresh_token') return this.#refresh(String(args.refresh_token));
    const grant = this.#oauthCodes.get(String(args.code));
    if (!grant) return { ok: false, error: 'invalid_code' };
    this.#oauthCodes.delete(String(args.code));
    const token = `xoxb-${grant.teamId}-${randomBytes(8).toString('hex')}`;
    this.issuedTokens.push(token);
    const botUserId = `UBOT${grant.teamId}`;
    this.#tokens.set(token, { teamId: grant.teamId, botUserId });
    return {
      ok: true,
      app_id: APP_ID,
      authed_user: { id: grant.userId },
      scope: 'commands,chat:write,users:read,usergroups:read',
      token_type: 'bot',
      access_token: token,
      bot_user_id: botUserId,
      team: { id: grant.teamId, name: `Team ${grant.teamId}` },
      enterprise: null,
      is_enterprise_install: false,
    };
  }

  /**
   * A rotating bot token's refresh: a new token for 12 hours (expires_in 43,200), and a new
   * refresh token; the old one is spent. Source: https://api.slack.com/authentication/rotation
   */
  #refresh(refreshToken: string): Args {
    const teamId = this.#refreshTokens.get(refreshToken);
    if (!teamId) return { ok: false, error: 'invalid_refresh_token' };
    this.#refreshTokens.delete(refreshToken);
    const token = `xoxe.xoxb-${teamId}-${randomBytes(8).toString('hex')}`;
    const next = `xoxe-1-${randomBytes(8).toString('hex')}`;
    this.issuedTokens.push(token, next);
    this.#tokens.set(token, { teamId, botUserId: `UBOT${teamId}` });
    this.#refreshTokens.set(next, teamId);
    return {
      ok: true,
      app_id: APP_ID,
      token_type: 'bot',
      access_token: token,
      refresh_token: next,
      expires_in: 43_200,
      team: { id: teamId, name: `Team ${teamId}` },
      enterprise: null,
      is_enterprise_install: false,
    };
  }
}
