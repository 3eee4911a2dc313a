// The fake Slack's tokens: whose each is, auth.test, the OAuth install (and the refresh of a
// rotating token), Socket Mode's app token.
import { randomBytes } from 'node:crypto';
import type { Args, FakeSlackOptions, Identity } from './types.js';

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

  /** The code Slack hands the app's redirect URL after a user approves an install. */
  mintOAuthCode(teamId: string, userId: string): string {
    const code = `code-${randomBytes(8).toString('hex')}`;
    this.#oauthCodes.set(code, { teamId, userId });
    return code;
  }

  addRefreshToken(refreshToken: string, teamId: string): void {
    this.#refreshTokens.set(refreshToken, teamId);
  }

  authTest(identity: Identity): Args {
    return {
      ok: true,
      url: 'https://fake.slack.test/',
      team: 'Fake Team',
      team_id: identity.teamId,
      user: 'cdn-bot',
      user_id: identity.botUserId,
      bot_id: 'B0FAKE',
      is_enterprise_install: false,
    };
  }

  /** apps.connections.open: the Socket Mode URL, for the app-level token. */
  openConnection(token: string | undefined): Args {
    const socket = this.options.socket;
    return socket && token === socket.appToken
      ? { ok: true, url: socket.url }
      : { ok: false, error: 'invalid_auth' };
  }

  /** oauth.v2.access: a code exchanged for a new bot token, with the app's client credentials. */
  oauthAccess(args: Args, authorization: string | undefined): Args {
    const oauth = this.options.oauth;
    const basic = /^Basic (.+)$/.exec(authorization ?? '')?.[1];
    const [clientId, clientSecret] = basic
      ? Buffer.from(basic, 'base64').toString('utf8').split(':')
      : [args.client_id, args.client_secret];
    if (!oauth || clientId !== oauth.clientId || clientSecret !== oauth.clientSecret) {
      return { ok: false, error: 'invalid_client_id' };
    }
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
      app_id: 'A0FAKE',
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

  /** A rotating bot token's refresh: a new token for 12 hours, and a new refresh token. */
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
      app_id: 'A0FAKE',
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
