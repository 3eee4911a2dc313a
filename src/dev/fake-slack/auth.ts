// The fake Slack's tokens: whose each is, auth.test, the OAuth install (a workspace's, or a Grid
// organization's, and the refresh of a rotating token), Socket Mode's app token. Errors as the
// methods' pages and Slack's OpenAPI spec (slackapi/slack-api-specs
// web-api/slack_web_openapi_v2.json) name them.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Args, FakeSlackOptions, Identity } from './types.js';

/** Who approves an install on Slack's authorize page: into a workspace, or a whole organization. */
export type InstallGrant =
  | { teamId: string; userId: string; enterpriseId?: string }
  | { orgWide: true; enterpriseId: string; userId: string };

/** How long a rotating token lives: 12 hours (https://api.slack.com/authentication/rotation). */
const ROTATING_TOKEN_SECONDS = 43_200;

/** The app's id, as in payloads (payloads.ts puts it in api_app_id). */
export const APP_ID = 'A0FAKE';

export class SlackAuth {
  readonly #tokens: Map<string, Identity>;
  readonly #oauthCodes = new Map<string, InstallGrant>();
  /** Refresh tokens of rotating bot tokens: each gives a new bot token (and refresh token) once. */
  readonly #refreshTokens = new Map<string, Identity>();
  /** When each rotating token expires (ms, on the fake's clock). */
  readonly #expiresAt = new Map<string, number>();
  /** The app config's Redirect URL (OAuth & Permissions), once the app's address is known. */
  redirectUrl: string | undefined;

  constructor(
    bot: { token: string } & Identity,
    private readonly options: Pick<FakeSlackOptions, 'tokens' | 'oauth' | 'socket' | 'teamId'>,
    /** Where tokens handed out by oauth.v2.access are listed. */
    private readonly issuedTokens: string[],
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    this.redirectUrl = options.oauth?.redirectUrl;
    this.#tokens = new Map([
      [bot.token, { teamId: bot.teamId, botUserId: bot.botUserId }],
      ...Object.entries(options.tokens ?? {}),
    ]);
  }

  /** Whose token this is, if it is a valid bot token (a rotating one only until it expires). */
  identify(token: string | undefined): Identity | undefined {
    if (!token) return undefined;
    const expiresAt = this.#expiresAt.get(token);
    if (expiresAt !== undefined && expiresAt <= this.clock.now()) return undefined;
    return this.#tokens.get(token);
  }

  /**
   * Why a call with a token not `identify`d is refused: `not_authed` without one, `token_expired`
   * for a rotating token past its 12 hours (the error Slack answers then:
   * https://github.com/slackapi/bolt-js/issues/1968; https://api.slack.com/authentication/rotation),
   * `invalid_auth` for one Slack does not know.
   */
  refusal(token: string | undefined): string {
    if (!token) return 'not_authed';
    return this.#expiresAt.has(token) && this.#tokens.has(token) ? 'token_expired' : 'invalid_auth';
  }

  /** A token Slack issued for this workspace's bot elsewhere (a step's workflow token). */
  addToken(token: string, identity: Identity): void {
    this.#tokens.set(token, identity);
  }

  /** The code Slack hands the app's redirect URL after a user approves an install. */
  mintOAuthCode(teamId: string, userId: string): string {
    return this.mintGrant({ teamId, userId });
  }

  /** The same for any install: a workspace's, or an organization-wide one (`orgWide`). */
  mintGrant(grant: InstallGrant): string {
    const code = `code-${randomBytes(8).toString('hex')}`;
    this.#oauthCodes.set(code, grant);
    return code;
  }

  /**
   * Slack's authorize page (GET /oauth/v2/authorize), where the person signed in (`grant`, or
   * `deny` when they cancel) approves the install: back to the redirect URL with a `code` and the
   * `state`, or `error=access_denied` (what @slack/oauth's handleCallback reads as "User cancelled
   * the OAuth installation flow"). The redirect is the app config's; a `redirect_uri` given must
   * be that one exactly (https://github.com/slackapi/bolt-js/issues/1115). Returns the Location,
   * or Slack's error for a page it shows instead.
   */
  authorizePage(query: URLSearchParams, grant: InstallGrant | 'deny' | undefined) {
    const oauth = this.options.oauth;
    if (!oauth || query.get('client_id') !== oauth.clientId) return { error: 'invalid_client_id' };
    const asked = query.get('redirect_uri');
    const redirect = this.redirectUrl ?? asked;
    if (!redirect || (asked && asked !== redirect)) return { error: 'bad_redirect_uri' };
    if (!query.get('scope')) return { error: 'invalid_scope' };
    if (!grant) return { error: 'not_signed_in' };
    const back = new URL(redirect);
    if (grant === 'deny') back.searchParams.set('error', 'access_denied');
    else back.searchParams.set('code', this.mintGrant(grant));
    const state = query.get('state');
    if (state) back.searchParams.set('state', state);
    return { location: back.toString() };
  }

  /** A rotating bot token of `teamId` (expiring `expiresAt`, ms), and its refresh token. */
  addRotatingToken(token: string, refreshToken: string, identity: Identity, expiresAt: number) {
    this.#tokens.set(token, identity);
    this.#expiresAt.set(token, expiresAt);
    this.#refreshTokens.set(refreshToken, identity);
  }

  addRefreshToken(refreshToken: string, teamId: string): void {
    this.#refreshTokens.set(refreshToken, { teamId, botUserId: `UBOT${teamId}` });
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
      is_enterprise_install: identity.orgWide === true,
      ...(identity.enterpriseId ? { enterprise_id: identity.enterpriseId } : {}),
      // An org-wide token's auth.test names the organization's URL, which Bolt keeps as the
      // installation's enterpriseUrl (@slack/oauth handleCallback).
      ...(identity.orgWide
        ? { url: `https://${identity.enterpriseId}.enterprise.slack.test/` }
        : {}),
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
   * invalid_code, invalid_refresh_token): https://api.slack.com/methods/oauth.v2.access. An
   * organization-wide install answers `team: null`, the `enterprise` and `is_enterprise_install:
   * true` (https://api.slack.com/enterprise/apps/reference, "oauth.v2.access response"). With
   * token rotation on (the manifest's `token_rotation_enabled`), the token expires: `expires_in`
   * and a `refresh_token` come with it (https://api.slack.com/authentication/rotation).
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
    const orgWide = 'orgWide' in grant;
    const owner = orgWide ? grant.enterpriseId : grant.teamId;
    const identity: Identity = {
      // An organization's token acts in the fake's one workspace (where its payloads come from).
      teamId: orgWide ? (this.options.teamId ?? 'T0FAKE') : grant.teamId,
      botUserId: `UBOT${owner}`,
      ...(grant.enterpriseId ? { enterpriseId: grant.enterpriseId } : {}),
      ...(orgWide ? { orgWide: true } : {}),
    };
    const issued = this.#issue(identity, orgWide ? 'E' : grant.teamId);
    return {
      ok: true,
      app_id: APP_ID,
      authed_user: { id: grant.userId },
      scope: 'commands,chat:write,users:read,usergroups:read',
      token_type: 'bot',
      ...issued,
      bot_user_id: identity.botUserId,
      team: orgWide ? null : { id: grant.teamId, name: `Team ${grant.teamId}` },
      enterprise: grant.enterpriseId
        ? { id: grant.enterpriseId, name: `Org ${grant.enterpriseId}` }
        : null,
      is_enterprise_install: orgWide,
    };
  }

  /** A new bot token (a rotating one, with its refresh token, when rotation is on). */
  #issue(identity: Identity, owner: string): Args {
    const rotating = this.options.oauth?.tokenRotation === true;
    const token = `${rotating ? 'xoxe.' : ''}xoxb-${owner}-${randomBytes(8).toString('hex')}`;
    this.issuedTokens.push(token);
    this.#tokens.set(token, identity);
    if (!rotating) return { access_token: token };
    const refreshToken = `xoxe-1-${randomBytes(8).toString('hex')}`;
    this.issuedTokens.push(refreshToken);
    this.#expiresAt.set(token, this.clock.now() + ROTATING_TOKEN_SECONDS * 1000);
    this.#refreshTokens.set(refreshToken, identity);
    return { access_token: token, refresh_token: refreshToken, expires_in: ROTATING_TOKEN_SECONDS };
  }

  /**
   * A rotating bot token's refresh: a new token for 12 hours (expires_in 43,200), and a new
   * refresh token; the one used is revoked ("The refresh token is then revoked":
   * https://api.slack.com/authentication/rotation). Stricter than Slack has been seen to be: two
   * refreshes at once with one refresh token were both answered, one of the two pairs invalid
   * (https://github.com/slackapi/node-slack-sdk/issues/2504); here the second is refused
   * (`invalid_refresh_token`). The old access token keeps working until it expires.
   */
  #refresh(refreshToken: string): Args {
    const identity = this.#refreshTokens.get(refreshToken);
    if (!identity) return { ok: false, error: 'invalid_refresh_token' };
    this.#refreshTokens.delete(refreshToken);
    const token = `xoxe.xoxb-${identity.orgWide ? 'E' : identity.teamId}-${randomBytes(8).toString('hex')}`;
    const next = `xoxe-1-${randomBytes(8).toString('hex')}`;
    this.issuedTokens.push(token, next);
    this.#tokens.set(token, identity);
    this.#expiresAt.set(token, this.clock.now() + ROTATING_TOKEN_SECONDS * 1000);
    this.#refreshTokens.set(next, identity);
    return {
      ok: true,
      app_id: APP_ID,
      token_type: 'bot',
      access_token: token,
      refresh_token: next,
      expires_in: ROTATING_TOKEN_SECONDS,
      team: identity.orgWide ? null : { id: identity.teamId, name: `Team ${identity.teamId}` },
      enterprise: identity.enterpriseId ? { id: identity.enterpriseId } : null,
      is_enterprise_install: identity.orgWide === true,
    };
  }
}
