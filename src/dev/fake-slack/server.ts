// A fake Slack Web API on loopback, strict where Slack is strict, for tests and the local console.
// The app's WebClient points at it through SLACK_API_URL; it records every call for assertions,
// and injects faults when told to (a method answering 500, late, or never; a dead response_url).
// It also plays Slack's side of Socket Mode (socket-mode.ts). This module is the server: its
// lifecycle and routes; the methods live in modules by concern. Each behaviour cites its source;
// docs/real-slack.md lists what real Slack does that this does not.
// (Over 400 lines: the route table of every method family; the methods themselves live apart.)
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../../clock.js';
import { APP_ID, type InstallGrant, SlackAuth } from './auth.js';
import { ChatMethods } from './chat.js';
import {
  conversationsInfo,
  conversationsMembers,
  conversationsOpen,
  usergroupMembers,
  usersInfo,
  usersLookupByEmail,
} from './directory.js';
import { applyFault, type FaultHit, type SlackFault, SlackFaults } from './faults.js';
import { FileUploads, uploadedBytes } from './files.js';
import { type FunctionExecution, FunctionExecutions } from './functions.js';
import { bearer, parseArgs, parseJsonObject, readBody, reply } from './http.js';
import { SlackIds } from './ids.js';
import { SLACK_METHOD_TIERS, SlackRateLimit } from './rate-limit.js';
import { SlackRecords } from './records.js';
import { type ResponseUrlSource, ResponseUrls } from './response-urls.js';
import { type EnvelopeType, type Retry, type SocketAck, SocketModeLink } from './socket-mode.js';
import type { ApiCall, Args, FakeSlackOptions, FakeView, Identity, Message } from './types.js';
import { ViewMethods } from './views.js';

export type { FaultHit, SlackFault } from './faults.js';
export type { FunctionExecution } from './functions.js';
export type {
  ApiCall,
  FakeChannel,
  FakeSlackOptions,
  FakeUser,
  FakeView,
  Message,
  RefusedCall,
  ResponseUrlPost,
  UploadedFile,
} from './types.js';

type Method = (args: Args, identity: Identity) => Args;

export class FakeSlack extends SlackRecords {
  readonly teamId: string;
  /** The workspace's Enterprise Grid organization, if it is in one. */
  readonly enterpriseId: string | undefined;
  /** The app is installed for the whole organization (payloads say `is_enterprise_install`). */
  readonly orgWideInstall: boolean;
  readonly botToken: string;
  readonly botUserId: string;
  readonly #auth: SlackAuth;
  readonly #chat: ChatMethods;
  readonly #responseUrls: ResponseUrls;
  readonly #views: ViewMethods;
  readonly #rateLimit: SlackRateLimit;
  readonly #ids: SlackIds;
  readonly #faults = new SlackFaults();
  readonly #socketMode = new SocketModeLink(APP_ID);
  /** Executions of the app's workflow steps (functions.ts). */
  readonly functions = new FunctionExecutions();
  /** The Web API methods a valid bot token may call. */
  readonly #methods: Map<string, Method>;
  readonly #server: Server;
  #url = '';
  #installer: InstallGrant | 'deny' | undefined;

  constructor(options: FakeSlackOptions = {}) {
    super();
    const ids = new SlackIds(options.clock ?? systemClock);
    this.#ids = ids;
    this.teamId = options.teamId ?? 'T0FAKE';
    this.enterpriseId = options.enterpriseId;
    this.orgWideInstall = options.orgWideInstall ?? false;
    this.botToken = options.botToken ?? 'xoxb-fake-bot-token';
    this.botUserId = options.botUserId ?? 'UBOT';
    this.#auth = new SlackAuth(
      {
        token: this.botToken,
        teamId: this.teamId,
        botUserId: this.botUserId,
        ...(this.enterpriseId ? { enterpriseId: this.enterpriseId } : {}),
      },
      options,
      this.issuedTokens,
      ids,
    );
    this.#chat = new ChatMethods(this, ids, options.editWindowMs);
    this.#responseUrls = new ResponseUrls(this, ids, this.#chat);
    this.#views = new ViewMethods(this, ids);
    this.#rateLimit = new SlackRateLimit(
      options.channelRateLimit ?? false,
      { ...(options.rateLimits === false ? {} : SLACK_METHOD_TIERS), ...options.methodRateLimits },
      ids,
    );
    const chat = this.#chat;
    const views = this.#views;
    const files = new FileUploads(
      this,
      ids,
      chat,
      (id) => `${this.#url}/upload/${id}`,
      options.fileReadyMs ?? 1_000,
    );
    this.#methods = new Map<string, Method>([
      ['auth.test', (_, identity) => this.#auth.authTest(identity)],
      ['users.info', (args, identity) => usersInfo(this, identity, args)],
      ['users.lookupByEmail', (args, identity) => usersLookupByEmail(this, identity, args)],
      ['usergroups.users.list', (args, identity) => usergroupMembers(this, identity, args)],
      ['conversations.info', (args) => conversationsInfo(this, args)],
      ['conversations.open', (args) => conversationsOpen(this, args)],
      [
        'conversations.members',
        (args, identity) => conversationsMembers(this, identity.botUserId, args),
      ],
      ['chat.postMessage', (args) => chat.postMessage(args)],
      ['chat.postEphemeral', (args) => chat.postEphemeral(args)],
      ['chat.update', (args) => chat.update(args)],
      ['chat.delete', (args) => chat.delete(args)],
      ['chat.getPermalink', (args) => chat.getPermalink(args)],
      ['views.open', (args) => views.open(args)],
      ['views.push', (args) => views.open(args)],
      ['views.update', (args) => views.update(args)],
      ['views.publish', (args) => views.publish(args)],
      ['files.getUploadURLExternal', (args) => files.getUploadUrl(args)],
      ['files.completeUploadExternal', (args) => files.complete(args)],
      ['files.info', (args) => files.info(args)],
      ['functions.completeSuccess', (args) => this.functions.completeSuccess(args)],
      ['functions.completeError', (args) => this.functions.completeError(args)],
    ]);
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent)
          reply(res, 500, { ok: false, error: 'fatal_error', detail: String(error) });
      });
    });
    this.#server.on('upgrade', (req, socket, head) => this.#socketMode.upgrade(req, socket, head));
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(port, '127.0.0.1', resolve));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  get url(): string {
    return this.#url;
  }

  /** What SLACK_API_URL should be. */
  get apiUrl(): string {
    return `${this.#url}/api/`;
  }

  async close(): Promise<void> {
    this.#socketMode.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** A trigger id as Slack puts in an interaction: usable once, for 3 seconds. */
  mintTrigger(userId: string): string {
    return this.#views.mintTrigger(userId);
  }

  /** The code Slack hands the app's redirect URL after a user approves an install. */
  mintOAuthCode(teamId: string, userId: string): string {
    return this.#auth.mintOAuthCode(teamId, userId);
  }

  /** The code for any install a person approved: a workspace's, or an organization-wide one. */
  mintGrant(grant: InstallGrant): string {
    return this.#auth.mintGrant(grant);
  }

  /**
   * Who is signed in to Slack in the browser that reaches the authorize page, and what they do
   * there: approve an install (into a workspace, or org-wide), or cancel (`deny`).
   */
  signInForInstall(grant: InstallGrant | 'deny'): void {
    this.#installer = grant;
  }

  /** The app config's Redirect URL, where the authorize page sends the person back. */
  setOAuthRedirect(url: string): void {
    this.#auth.redirectUrl = url;
  }

  /** A rotating bot token (and its refresh token) of the fake's workspace, expiring at `expiresAt` (ms). */
  addRotatingToken(
    token: string,
    refreshToken: string,
    expiresAt: number,
    identity: Partial<Identity> = {},
  ): void {
    this.#auth.addRotatingToken(
      token,
      refreshToken,
      { teamId: this.teamId, botUserId: this.botUserId, ...identity },
      expiresAt,
    );
  }

  /**
   * A response_url for an interaction in `channel` by `user`: a slash command's by default (it can
   * replace nothing); a block_actions' on `message` can replace or delete that message.
   */
  mintResponseUrl(
    channel: string,
    user: string,
    source: ResponseUrlSource = { kind: 'command' },
  ): string {
    const url = `${this.#url}/response/${this.#responseUrls.mint(channel, user, source)}`;
    this.responseUrls.push(url);
    return url;
  }

  /**
   * Makes a response_url answer as a spent one does from now on: 404 with `expired_url` (its 30
   * minutes are up) or `used_url` (its 5 uses are), whatever it is sent.
   */
  killResponseUrl(url: string, answer: 'expired_url' | 'used_url' = 'expired_url'): void {
    const token = url.slice(url.lastIndexOf('/response/') + '/response/'.length);
    if (!this.#responseUrls.kill(token, answer)) throw new Error(`no response_url ${url}`);
  }

  /**
   * Delivers a payload to the app over its Socket Mode connection, in an envelope of `type`;
   * resolves with the app's acknowledgement (and how long it took).
   */
  /**
   * A workflow runs the app's step `callbackId` with `inputs`: the execution and its
   * `function_executed` event (to deliver as an Events API callback). Its workflow token is the
   * bot's for this workspace.
   */
  runStep(
    callbackId: string,
    inputs: Record<string, unknown>,
  ): { execution: FunctionExecution; event: Record<string, unknown> } {
    const started = this.functions.start(callbackId, inputs, APP_ID);
    this.#auth.addToken(started.execution.token, {
      teamId: this.teamId,
      botUserId: this.botUserId,
    });
    return started;
  }

  deliver(type: EnvelopeType, payload: Record<string, unknown>, retry?: Retry): Promise<SocketAck> {
    return this.#socketMode.deliver(type, payload, retry);
  }

  /** Injects a fault on the next `times` matching calls (see faults.ts). */
  inject(fault: SlackFault): void {
    this.#faults.inject(fault);
  }

  /** Removes the faults not yet used. */
  clearFaults(): void {
    this.#faults.clear();
  }

  /** A refresh token for `teamId`'s rotating bot token (oauth.v2.access, grant_type=refresh_token). */
  addRefreshToken(refreshToken: string, teamId: string): void {
    this.#auth.addRefreshToken(refreshToken, teamId);
  }

  /** The person closes the modal `viewId` (see ViewMethods.close). */
  closeView(viewId: string): FakeView {
    return this.#views.close(viewId);
  }

  /** A message a person posts in a channel (the console's `/say`), for shortcuts to act on. */
  postAsUser(channel: string, user: string, text: string): Message {
    return this.#chat.record({ channel, via: 'user', user, text });
  }

  /**
   * A person deletes a message (its author, or an admin any bot's): Slack forgets it, and
   * chat.update, chat.getPermalink and chat.delete answer `message_not_found` for it (each method's
   * errors in slackapi/slack-api-specs web-api/slack_web_openapi_v2.json).
   */
  deleteAsPerson(message: Message): void {
    message.deleted = true;
    this.emit('response', message);
  }

  /**
   * A view replaced by a view_submission's `response_action: "update"` (or pushed, with
   * `push`), checked as views.update would check it. Returns Slack's error, if any.
   */
  applyResponseAction(
    viewId: string,
    response: { response_action: 'update' | 'push'; view: Args },
  ): { ok: true; view: FakeView } | { ok: false; errors: string[] } {
    return this.#views.applyResponseAction(viewId, response);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    const target = url.pathname.startsWith('/response/')
      ? 'response_url'
      : url.pathname.startsWith('/api/')
        ? url.pathname.slice('/api/'.length)
        : undefined;
    const fault = target === undefined ? undefined : this.#faults.take(target);
    if (fault && target !== undefined) {
      const hit: FaultHit = { method: target, kind: fault.kind, at: Date.now() };
      this.faultHits.push(hit);
      this.emit('fault', hit);
      if (fault.kind === 'status' && fault.status === 429 && target !== 'response_url')
        this.refusedCalls.push({
          method: target,
          args: parseArgs(req.headers['content-type'] ?? '', body),
          at: this.#ids.now(),
          seq: this.nextSeq(),
          retryAfterSeconds: Number(
            Object.entries(fault.headers ?? {}).find(
              ([k]) => k.toLowerCase() === 'retry-after',
            )?.[1],
          ),
          by: 'fault',
        });
      const goOn = await applyFault(fault, hit, req, res, (abandoned) =>
        this.emit('abandoned', abandoned),
      );
      if (!goOn) return;
    }
    if (url.pathname.startsWith('/response/')) {
      const token = url.pathname.slice('/response/'.length);
      const payload = parseJsonObject(body);
      const result = this.#responseUrls.respond(token, payload);
      // Recorded as API calls are: a refusal here is a 4xx with a plain-text error (types.ts).
      const post = {
        url: `${this.#url}${url.pathname}`,
        body: payload,
        status: result.status,
        answer: result.body,
      };
      this.responseUrlPosts.push(post);
      this.emit('responseUrlPost', post);
      res.writeHead(result.status, { 'content-type': 'text/plain' }).end(result.body);
      return;
    }
    if (url.pathname === '/oauth/v2/authorize') {
      const page = this.#auth.authorizePage(url.searchParams, this.#installer);
      if ('location' in page) res.writeHead(302, { location: page.location }).end();
      else res.writeHead(400, { 'content-type': 'text/plain' }).end(page.error);
      return;
    }
    if (url.pathname.startsWith('/upload/')) {
      const file = this.files.get(url.pathname.slice('/upload/'.length));
      if (!file) return reply(res, 404, { ok: false, error: 'file_not_found' });
      file.bytes = await uploadedBytes(req.headers['content-type'] ?? '', body);
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${body.length}`);
      return;
    }
    if (!url.pathname.startsWith('/api/'))
      return reply(res, 404, { ok: false, error: 'unknown_path' });
    const method = url.pathname.slice('/api/'.length);
    const contentType = req.headers['content-type'] ?? '';
    const args = parseArgs(contentType, body);
    // A token comes in the Authorization header, or as a form field; a JSON body's token is not
    // read ("This method supports application/json via HTTP POST. Present your token in your
    // request's Authorization header": every method's page, e.g.
    // https://api.slack.com/methods/apps.connections.open).
    const fromHeader = bearer(req.headers.authorization);
    const token =
      fromHeader ??
      (!contentType.includes('application/json') && typeof args.token === 'string'
        ? args.token
        : undefined);
    delete args.token;
    const identity = this.#auth.identify(token);
    const retryAfter = identity && this.#rateLimit.refuses(method, args, identity.teamId);
    if (retryAfter) {
      this.rateLimited += 1;
      this.rateLimitedBy[method] = (this.rateLimitedBy[method] ?? 0) + 1;
      this.refusedCalls.push({
        method,
        args,
        at: this.#ids.now(),
        seq: this.nextSeq(),
        retryAfterSeconds: retryAfter,
        by: 'limit',
      });
      // As recorded from Slack: status 429, `retry-after` in seconds, and this body
      // (https://github.com/beginner-corp/slack/issues/105; https://api.slack.com/docs/rate-limits).
      res
        .writeHead(429, {
          'content-type': 'application/json; charset=utf-8',
          'retry-after': String(retryAfter),
        })
        .end('{"ok":false,"error":"ratelimited"}');
      return;
    }
    // The OAuth exchange authenticates with the app's client credentials, not a token; Socket
    // Mode's with the app-level token. Any other method: not_authed without a token, invalid_auth
    // with one Slack does not know (the errors of every method in slack_web_openapi_v2.json).
    const response =
      method === 'oauth.v2.access'
        ? this.#auth.oauthAccess(args, req.headers.authorization)
        : method === 'apps.connections.open'
          ? this.#auth.openConnection(fromHeader, () => this.#socketMode.open(this.#url))
          : identity
            ? this.#call(method, args, identity)
            : { ok: false, error: this.#auth.refusal(token) };
    const call: ApiCall = {
      method,
      args,
      response,
      ...(identity ? { teamId: identity.teamId } : {}),
      at: this.#ids.now(),
      seq: this.nextSeq(),
    };
    this.calls.push(call);
    this.emit('call', call);
    // Slack answers a refusal with HTTP 200 and `ok: false` too: only a rate limit (429) and
    // Slack's own failures (5xx) change the status (https://api.slack.com/web, "Evaluating
    // responses").
    reply(res, 200, response);
  }

  #call(method: string, args: Args, identity: Identity): Args {
    const handler = this.#methods.get(method);
    return handler ? handler(args, identity) : { ok: false, error: 'unknown_method' };
  }
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  return new FakeSlack(options).start();
}
