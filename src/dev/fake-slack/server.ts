// A fake Slack Web API on loopback, strict where Slack is strict, for tests and the local console.
// The app's WebClient points at it through SLACK_API_URL; it records every call for assertions.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '../../clock.js';
import { type Surface, validateBlocks, validateView } from './validate.js';

export interface FakeUser {
  id: string;
  name: string;
  isAdmin?: boolean;
  isOwner?: boolean;
  /** IANA time zone, e.g. Europe/Paris. */
  tz?: string;
}

export interface FakeChannel {
  id: string;
  name: string;
  /** Whether the bot is a member (can post without being invited). */
  botMember: boolean;
  archived?: boolean;
}

type Args = Record<string, unknown>;

export interface ApiCall {
  method: string;
  args: Args;
  response: Args;
  /** The team whose token made the call, when the token was valid. */
  teamId?: string;
}

export interface Message {
  channel: string;
  ts: string;
  text?: string;
  blocks?: unknown[];
  /** Who posted it: `api` (the bot), `response_url`, or `user` (a person, in the console). */
  via: 'api' | 'response_url' | 'user';
  /** The person who posted a `user` message. */
  user?: string;
  ephemeralTo?: string;
  threadTs?: string;
  deleted: boolean;
  /** Previous versions, oldest first. */
  history: Array<{ text?: string; blocks?: unknown[] }>;
}

export interface FakeView {
  id: string;
  hash: string;
  userId: string;
  view: Args;
}

export interface UploadedFile {
  id: string;
  filename: string;
  bytes: Buffer;
  channel?: string;
  title?: string;
  initialComment?: string;
}

interface ResponseTarget {
  channel: string;
  user: string;
  /** The message "original" refers to (the button's message, or the last response). */
  original?: Message;
  uses: number;
  expiresAt: number;
}

export interface FakeSlackOptions {
  clock?: Clock;
  teamId?: string;
  botToken?: string;
  botUserId?: string;
  /** Extra accepted tokens (OAuth installs), each of one team. */
  tokens?: Record<string, { teamId: string; botUserId: string }>;
  /** The app's OAuth credentials, for oauth.v2.access. */
  oauth?: { clientId: string; clientSecret: string };
  /** Socket Mode: the app-level token, and the WebSocket URL apps.connections.open hands out. */
  socket?: { appToken: string; url: string };
  /** Enforce Slack's one post per second per channel (HTTP 429 with Retry-After). Default off. */
  channelRateLimit?: boolean;
}

/** Methods that post into a channel, and so count against its one-per-second limit. */
const POSTING = new Set(['chat.postMessage', 'files.completeUploadExternal']);

const TRIGGER_TTL_MS = 3_000;
const RESPONSE_URL_TTL_MS = 30 * 60_000;
const RESPONSE_URL_USES = 5;

export class FakeSlack extends EventEmitter<{ call: [ApiCall]; response: [Message] }> {
  readonly teamId: string;
  readonly botToken: string;
  readonly botUserId: string;
  readonly calls: ApiCall[] = [];
  readonly messages: Message[] = [];
  readonly users = new Map<string, FakeUser>();
  readonly channels = new Map<string, FakeChannel>();
  readonly usergroups = new Map<string, { handle: string; members: string[] }>();
  readonly views = new Map<string, FakeView>();
  readonly homes = new Map<string, FakeView>();
  readonly files = new Map<string, UploadedFile>();
  readonly #clock: Clock;
  readonly #tokens: Map<string, { teamId: string; botUserId: string }>;
  readonly #triggers = new Map<string, { userId: string; issuedAt: number; used: boolean }>();
  readonly #responseUrls = new Map<string, ResponseTarget>();
  readonly #oauthCodes = new Map<string, { teamId: string; userId: string }>();
  readonly #lastPost = new Map<string, number>();
  readonly #channelRateLimit: boolean;
  /** How many calls were answered 429. */
  rateLimited = 0;
  /** Bot tokens handed out by oauth.v2.access (tests search logs for them). */
  readonly issuedTokens: string[] = [];
  readonly #oauth: FakeSlackOptions['oauth'];
  readonly #socket: FakeSlackOptions['socket'];
  readonly #server: Server;
  #url = '';
  #sequence = 0;

  constructor(options: FakeSlackOptions = {}) {
    super();
    this.#clock = options.clock ?? systemClock;
    this.teamId = options.teamId ?? 'T0FAKE';
    this.botToken = options.botToken ?? 'xoxb-fake-bot-token';
    this.botUserId = options.botUserId ?? 'UBOT';
    this.#tokens = new Map([
      [this.botToken, { teamId: this.teamId, botUserId: this.botUserId }],
      ...Object.entries(options.tokens ?? {}),
    ]);
    this.#oauth = options.oauth;
    this.#socket = options.socket;
    this.#channelRateLimit = options.channelRateLimit ?? false;
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent)
          reply(res, 500, { ok: false, error: 'fatal_error', detail: String(error) });
      });
    });
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
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  addUser(user: FakeUser): FakeUser {
    this.users.set(user.id, user);
    return user;
  }

  addChannel(channel: FakeChannel): FakeChannel {
    this.channels.set(channel.id, channel);
    return channel;
  }

  addUsergroup(id: string, handle: string, members: string[]): void {
    this.usergroups.set(id, { handle, members });
  }

  /** A trigger id as Slack puts in an interaction: usable once, for 3 seconds. */
  mintTrigger(userId: string): string {
    const id = `${++this.#sequence}.${Date.now()}.${randomBytes(8).toString('hex')}`;
    this.#triggers.set(id, { userId, issuedAt: this.#clock.now(), used: false });
    return id;
  }

  /** The code Slack hands the app's redirect URL after a user approves an install. */
  mintOAuthCode(teamId: string, userId: string): string {
    const code = `code-${randomBytes(8).toString('hex')}`;
    this.#oauthCodes.set(code, { teamId, userId });
    return code;
  }

  /** A response_url for an interaction in `channel` by `user`, optionally tied to a message. */
  mintResponseUrl(channel: string, user: string, original?: Message): string {
    const token = randomBytes(12).toString('hex');
    const target: ResponseTarget = {
      channel,
      user,
      uses: 0,
      expiresAt: this.#clock.now() + RESPONSE_URL_TTL_MS,
      ...(original ? { original } : {}),
    };
    this.#responseUrls.set(token, target);
    return `${this.#url}/response/${token}`;
  }

  /** A message a person posts in a channel (the console's `/say`), for shortcuts to act on. */
  postAsUser(channel: string, user: string, text: string): Message {
    return this.#record({ channel, via: 'user', user, text });
  }

  /**
   * A view replaced by a view_submission's `response_action: "update"` (or pushed, with
   * `push`), checked as views.update would check it. Returns Slack's error, if any.
   */
  applyResponseAction(
    viewId: string,
    response: { response_action: 'update' | 'push'; view: Args },
  ): { ok: true; view: FakeView } | { ok: false; errors: string[] } {
    const current = this.views.get(viewId);
    if (!current) return { ok: false, errors: [`no view ${viewId}`] };
    const errors = validateView(response.view);
    if (errors.length > 0) return { ok: false, errors };
    if (response.response_action === 'push') {
      const pushed: FakeView = {
        id: `V${++this.#sequence}`,
        hash: this.#hash(),
        userId: current.userId,
        view: response.view,
      };
      this.views.set(pushed.id, pushed);
      return { ok: true, view: pushed };
    }
    current.view = response.view;
    current.hash = this.#hash();
    return { ok: true, view: current };
  }

  /** Resolves once `count` recorded calls (past or future) satisfy `predicate`. */
  waitForCalls(predicate: (call: ApiCall) => boolean, count = 1): Promise<ApiCall[]> {
    return waitFor(this, 'call', () => this.calls.filter(predicate), count);
  }

  /** Resolves once `count` messages (posted, updated or responded) satisfy `predicate`. */
  waitForMessages(predicate: (message: Message) => boolean, count = 1): Promise<Message[]> {
    return waitFor(this, 'response', () => this.messages.filter(predicate), count);
  }

  callsTo(method: string): ApiCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    if (url.pathname.startsWith('/response/')) {
      const result = this.#respond(url.pathname.slice('/response/'.length), parseJsonObject(body));
      res.writeHead(result.status, { 'content-type': 'text/plain' }).end(result.body);
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
    const args = parseArgs(req.headers['content-type'] ?? '', body);
    const token =
      bearer(req.headers.authorization) ??
      (typeof args.token === 'string' ? args.token : undefined);
    delete args.token;
    const identity = token ? this.#tokens.get(token) : undefined;
    if (identity && this.#isRateLimited(method, args)) {
      this.rateLimited += 1;
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
        .end('{"ok":false,"error":"ratelimited"}');
      return;
    }
    // The OAuth exchange authenticates with the app's client credentials, not a token.
    const response =
      method === 'oauth.v2.access'
        ? this.#oauthAccess(args, req.headers.authorization)
        : method === 'apps.connections.open'
          ? this.#socket && token === this.#socket.appToken
            ? { ok: true, url: this.#socket.url }
            : { ok: false, error: 'invalid_auth' }
          : identity
            ? this.#call(method, args, identity)
            : { ok: false, error: token ? 'invalid_auth' : 'not_authed' };
    const call: ApiCall = {
      method,
      args,
      response,
      ...(identity ? { teamId: identity.teamId } : {}),
    };
    this.calls.push(call);
    this.emit('call', call);
    reply(res, 200, response);
  }

  #call(method: string, args: Args, identity: { teamId: string; botUserId: string }): Args {
    switch (method) {
      case 'auth.test':
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
      case 'users.info':
        return this.#usersInfo(args);
      case 'usergroups.users.list': {
        const group = this.usergroups.get(String(args.usergroup));
        return group ? { ok: true, users: group.members } : { ok: false, error: 'no_such_subteam' };
      }
      case 'conversations.info': {
        const channel = this.channels.get(String(args.channel));
        if (!channel) return { ok: false, error: 'channel_not_found' };
        return {
          ok: true,
          channel: {
            id: channel.id,
            name: channel.name,
            is_member: channel.botMember,
            is_archived: !!channel.archived,
          },
        };
      }
      case 'chat.postMessage':
        return this.#postMessage(args);
      case 'chat.postEphemeral':
        return this.#postEphemeral(args);
      case 'chat.update':
        return this.#update(args);
      case 'chat.delete': {
        const message = this.#find(String(args.channel), String(args.ts));
        if (!message) return { ok: false, error: 'message_not_found' };
        message.deleted = true;
        this.emit('response', message);
        return { ok: true, channel: message.channel, ts: message.ts };
      }
      case 'views.open':
      case 'views.push':
        return this.#openView(args);
      case 'views.update':
        return this.#updateView(args);
      case 'views.publish':
        return this.#publish(args);
      case 'files.getUploadURLExternal':
        return this.#uploadUrl(args);
      case 'files.completeUploadExternal':
        return this.#completeUpload(args);
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  #isRateLimited(method: string, args: Args): boolean {
    if (!this.#channelRateLimit || !POSTING.has(method)) return false;
    const channel = String(args.channel ?? args.channel_id ?? '');
    const now = this.#clock.now();
    const last = this.#lastPost.get(channel);
    if (last !== undefined && now - last < 1_000) return true;
    this.#lastPost.set(channel, now);
    return false;
  }

  #oauthAccess(args: Args, authorization: string | undefined): Args {
    const basic = /^Basic (.+)$/.exec(authorization ?? '')?.[1];
    const [clientId, clientSecret] = basic
      ? Buffer.from(basic, 'base64').toString('utf8').split(':')
      : [args.client_id, args.client_secret];
    if (
      !this.#oauth ||
      clientId !== this.#oauth.clientId ||
      clientSecret !== this.#oauth.clientSecret
    ) {
      return { ok: false, error: 'invalid_client_id' };
    }
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

  #usersInfo(args: Args): Args {
    const user = this.users.get(String(args.user));
    if (!user) return { ok: false, error: 'user_not_found' };
    return {
      ok: true,
      user: {
        id: user.id,
        team_id: this.teamId,
        name: user.name,
        real_name: user.name,
        is_admin: !!user.isAdmin || !!user.isOwner,
        is_owner: !!user.isOwner,
        is_primary_owner: !!user.isOwner,
        is_bot: false,
        tz: user.tz ?? 'UTC',
        tz_offset: 0,
      },
    };
  }

  /** A posted message must have text or valid blocks; Slack's texts and sizes apply. */
  #messageProblems(args: Args, surface: Surface = 'message'): Args | undefined {
    const blocks = args.blocks;
    if (blocks !== undefined) {
      const errors = validateBlocks(blocks, surface);
      if (errors.length > 0) return invalidBlocks(errors);
    }
    const text = args.text;
    if ((blocks === undefined || (Array.isArray(blocks) && blocks.length === 0)) && !text) {
      return { ok: false, error: 'no_text' };
    }
    if (typeof text === 'string' && text.length > 40_000)
      return { ok: false, error: 'msg_too_long' };
    return undefined;
  }

  #channelProblem(channelId: string, forPost: boolean): Args | undefined {
    if (this.users.has(channelId) || channelId.startsWith('D')) return undefined;
    const channel = this.channels.get(channelId);
    if (!channel) return { ok: false, error: 'channel_not_found' };
    if (channel.archived) return { ok: false, error: 'is_archived' };
    if (forPost && !channel.botMember) return { ok: false, error: 'not_in_channel' };
    return undefined;
  }

  #postMessage(args: Args): Args {
    const channel = String(args.channel ?? '');
    const problem = this.#channelProblem(channel, true) ?? this.#messageProblems(args);
    if (problem) return problem;
    const message = this.#record({
      channel,
      via: 'api',
      ...textAndBlocks(args),
      ...(typeof args.thread_ts === 'string' ? { threadTs: args.thread_ts } : {}),
    });
    return {
      ok: true,
      channel,
      ts: message.ts,
      message: { text: message.text, blocks: message.blocks },
    };
  }

  #postEphemeral(args: Args): Args {
    const channel = String(args.channel ?? '');
    const problem = this.#channelProblem(channel, false) ?? this.#messageProblems(args);
    if (problem) return problem;
    if (!this.users.has(String(args.user))) return { ok: false, error: 'user_not_in_channel' };
    const message = this.#record({
      channel,
      via: 'api',
      ephemeralTo: String(args.user),
      ...textAndBlocks(args),
    });
    return { ok: true, message_ts: message.ts };
  }

  #update(args: Args): Args {
    const message = this.#find(String(args.channel), String(args.ts));
    if (!message) return { ok: false, error: 'message_not_found' };
    if (message.via !== 'api' || message.ephemeralTo)
      return { ok: false, error: 'cant_update_message' };
    const problem = this.#messageProblems(args);
    if (problem) return problem;
    replaceContent(message, args);
    this.emit('response', message);
    return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
  }

  #openView(args: Args): Args {
    const trigger = this.#triggers.get(String(args.trigger_id));
    if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
    if (trigger.used) return { ok: false, error: 'exchanged_trigger_id' };
    if (this.#clock.now() - trigger.issuedAt > TRIGGER_TTL_MS)
      return { ok: false, error: 'expired_trigger_id' };
    const errors = validateView(args.view);
    if (errors.length > 0) return invalidBlocks(errors);
    trigger.used = true;
    const view: FakeView = {
      id: `V${++this.#sequence}`,
      hash: this.#hash(),
      userId: trigger.userId,
      view: args.view as Args,
    };
    this.views.set(view.id, view);
    return { ok: true, view: { ...view.view, id: view.id, hash: view.hash } };
  }

  #updateView(args: Args): Args {
    const view =
      this.views.get(String(args.view_id)) ??
      [...this.views.values()].find(
        (v) => args.external_id !== undefined && v.view.external_id === args.external_id,
      );
    if (!view) return { ok: false, error: 'not_found' };
    if (args.hash !== undefined && args.hash !== view.hash)
      return { ok: false, error: 'hash_conflict' };
    const errors = validateView(args.view);
    if (errors.length > 0) return invalidBlocks(errors);
    view.view = args.view as Args;
    view.hash = this.#hash();
    return { ok: true, view: { ...view.view, id: view.id, hash: view.hash } };
  }

  #publish(args: Args): Args {
    const userId = String(args.user_id ?? '');
    if (!this.users.has(userId)) return { ok: false, error: 'user_not_found' };
    const errors = validateView(args.view);
    if (errors.length > 0) return invalidBlocks(errors);
    if ((args.view as Args).type !== 'home') return { ok: false, error: 'invalid_arguments' };
    const home: FakeView = {
      id: this.homes.get(userId)?.id ?? `VH${++this.#sequence}`,
      hash: this.#hash(),
      userId,
      view: args.view as Args,
    };
    this.homes.set(userId, home);
    return { ok: true, view: { ...home.view, id: home.id, hash: home.hash } };
  }

  #uploadUrl(args: Args): Args {
    const filename = args.filename;
    const length = Number(args.length);
    if (typeof filename !== 'string' || filename === '')
      return { ok: false, error: 'invalid_arguments' };
    if (!Number.isInteger(length) || length <= 0) return { ok: false, error: 'invalid_arguments' };
    const id = `F${++this.#sequence}`;
    this.files.set(id, { id, filename, bytes: Buffer.alloc(0) });
    return { ok: true, upload_url: `${this.#url}/upload/${id}`, file_id: id };
  }

  #completeUpload(args: Args): Args {
    const list = args.files;
    if (!Array.isArray(list) || list.length === 0) return { ok: false, error: 'invalid_arguments' };
    const channel = typeof args.channel_id === 'string' ? args.channel_id : undefined;
    if (channel) {
      const problem = this.#channelProblem(channel, true);
      if (problem) return problem;
    }
    const done: Args[] = [];
    for (const entry of list as Args[]) {
      const file = this.files.get(String(entry.id));
      if (!file || file.bytes.length === 0) return { ok: false, error: 'file_not_found' };
      if (channel) file.channel = channel;
      if (typeof entry.title === 'string') file.title = entry.title;
      if (typeof args.initial_comment === 'string') file.initialComment = args.initial_comment;
      done.push({ id: file.id, title: file.title ?? file.filename });
    }
    return { ok: true, files: done };
  }

  /** A POST to a response_url: up to 5 uses in 30 minutes, like Slack. */
  #respond(token: string, body: Args | undefined): { status: number; body: string } {
    const target = this.#responseUrls.get(token);
    if (!target || this.#clock.now() > target.expiresAt)
      return { status: 404, body: 'expired_url' };
    if (target.uses >= RESPONSE_URL_USES) return { status: 404, body: 'used_url' };
    if (!body) return { status: 400, body: 'invalid_payload' };
    const problem = this.#messageProblems(body);
    if (problem) {
      return {
        status: 400,
        body: problem.error === 'invalid_blocks' ? 'invalid_blocks' : String(problem.error),
      };
    }
    target.uses += 1;
    if (body.delete_original === true) {
      if (target.original) {
        target.original.deleted = true;
        this.emit('response', target.original);
      }
      return { status: 200, body: 'ok' };
    }
    if (body.replace_original === true && target.original) {
      replaceContent(target.original, body);
      this.emit('response', target.original);
      return { status: 200, body: 'ok' };
    }
    const inChannel = body.response_type === 'in_channel';
    target.original = this.#record({
      channel: target.channel,
      via: 'response_url',
      ...(inChannel ? {} : { ephemeralTo: target.user }),
      ...textAndBlocks(body),
    });
    return { status: 200, body: 'ok' };
  }

  #record(fields: Omit<Message, 'ts' | 'deleted' | 'history'>): Message {
    const message: Message = { ...fields, ts: this.#ts(), deleted: false, history: [] };
    this.messages.push(message);
    this.emit('response', message);
    return message;
  }

  #find(channel: string, ts: string): Message | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts && !m.deleted);
  }

  #ts(): string {
    const seconds = Math.floor(this.#clock.now() / 1000);
    return `${seconds}.${String(++this.#sequence).padStart(6, '0')}`;
  }

  #hash(): string {
    return `${this.#clock.now()}.${randomBytes(4).toString('hex')}`;
  }
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  return new FakeSlack(options).start();
}

function waitFor<T>(
  emitter: EventEmitter<{ call: [ApiCall]; response: [Message] }>,
  event: 'call' | 'response',
  matching: () => T[],
  count: number,
): Promise<T[]> {
  return new Promise((resolve) => {
    const check = () => {
      const found = matching();
      if (found.length < count) return false;
      emitter.off(event, check);
      resolve(found);
      return true;
    };
    if (!check()) emitter.on(event, check);
  });
}

function textAndBlocks(args: Args): { text?: string; blocks?: unknown[] } {
  return {
    ...(typeof args.text === 'string' ? { text: args.text } : {}),
    ...(Array.isArray(args.blocks) ? { blocks: args.blocks } : {}),
  };
}

function replaceContent(message: Message, args: Args): void {
  message.history.push({
    ...(message.text !== undefined ? { text: message.text } : {}),
    ...(message.blocks !== undefined ? { blocks: message.blocks } : {}),
  });
  delete message.text;
  delete message.blocks;
  Object.assign(message, textAndBlocks(args));
}

function invalidBlocks(errors: string[]): Args {
  return { ok: false, error: 'invalid_blocks', errors, response_metadata: { messages: errors } };
}

function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer (.+)$/.exec(header ?? '');
  return match?.[1];
}

/** Slack's Web API takes form fields, with nested values as JSON strings, or a JSON body. */
function parseArgs(contentType: string, body: Buffer): Args {
  if (contentType.includes('application/json')) return parseJsonObject(body) ?? {};
  const args: Args = {};
  for (const [key, value] of new URLSearchParams(body.toString('utf8'))) {
    args[key] = /^[[{]/.test(value) ? tryJson(value) : value;
  }
  return args;
}

function parseJsonObject(body: Buffer): Args | undefined {
  const value = tryJson(body.toString('utf8'));
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Args)
    : undefined;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The file of an upload: the raw body, or the file part of a multipart form (as the Web API client sends it). */
async function uploadedBytes(contentType: string, body: Buffer): Promise<Buffer> {
  if (!contentType.startsWith('multipart/form-data')) return body;
  // The platform's own multipart parser (undici's), not a hand-written one.
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  for (const value of form.values()) {
    if (typeof value !== 'string') return Buffer.from(await value.arrayBuffer());
  }
  return Buffer.alloc(0);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function reply(res: ServerResponse, status: number, body: Args): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
