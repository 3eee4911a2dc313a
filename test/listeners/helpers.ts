// Small fakes of what Bolt hands a middleware or a listener, to drive src/listeners directly:
// bodies shaped as Slack sends them, recorders for ack/respond and the Web API methods the
// middleware calls, and a chain runner that calls middleware the way Bolt does.
import type { AllMiddlewareArgs, AnyMiddlewareArgs, Context, Middleware } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { type Mock, vi } from 'vitest';

export const TEAM = 'T0TEAM';
export const USER = 'U0ALICE';
export const CHANNEL = 'C0OPS';
export const TRIGGER = '1337.42.trigger';
export const RESPONSE_URL = 'https://hooks.slack.test/actions/T0TEAM/1/response';

/** What every global middleware receives. */
export type Args = AnyMiddlewareArgs & AllMiddlewareArgs;
/** What a listener that can acknowledge receives (every surface but events). */
export type ListenerArgs = Args & { ack: (response?: unknown) => Promise<void> };

type Json = Record<string, unknown>;
type Call = (args: Json) => Promise<Json>;

/** The Web API methods the middleware under test may call, each a recorder. */
export interface FakeClient {
  chat: { postMessage: Mock<Call>; postEphemeral: Mock<Call> };
  views: { open: Mock<Call> };
  users: { info: Mock<Call> };
  usergroups: { users: { list: Mock<Call> } };
}

export function fakeClient(): FakeClient {
  const ok = () => vi.fn<Call>(async () => ({ ok: true }));
  return {
    chat: { postMessage: ok(), postEphemeral: ok() },
    views: { open: ok() },
    users: { info: ok() },
    usergroups: { users: { list: ok() } },
  };
}

export interface Built {
  /** The arguments as Bolt passes them to a global middleware. */
  args: Args;
  body: Json;
  context: Context;
  ack: Mock<(response?: unknown) => Promise<void>>;
  respond: Mock<(message: unknown) => Promise<void>>;
  client: FakeClient;
  next: Mock<() => Promise<void>>;
}

export interface Overrides {
  body?: Json;
  /** Bolt's context; by default an authorized request from TEAM. */
  context?: Context;
  ack?: Built['ack'];
  respond?: Built['respond'];
  client?: FakeClient;
  next?: Built['next'];
}

/**
 * Bolt's arguments for `body`, as Bolt builds them: `ack` for everything but Events API requests
 * (Bolt acknowledges those itself), `respond` only when the body has a response_url. The recorders
 * are returned alongside, whether or not the args carry them.
 */
export function buildArguments(overrides: Overrides = {}): Built {
  const body = overrides.body ?? slashCommand();
  const context: Context = overrides.context ?? { isEnterpriseInstall: false, teamId: TEAM };
  const ack = overrides.ack ?? vi.fn(async (_response?: unknown) => {});
  const respond = overrides.respond ?? vi.fn(async (_message: unknown) => {});
  const client = overrides.client ?? fakeClient();
  const next = overrides.next ?? vi.fn(async () => {});
  const args = {
    body,
    payload: body,
    context,
    client: client as unknown as WebClient,
    logger: silentBoltLogger,
    next,
    ...(body.type === 'event_callback' ? {} : { ack }),
    ...(typeof body.response_url === 'string' ? { respond } : {}),
  } as unknown as Args;
  return { args, body, context, ack, respond, client, next };
}

/**
 * Runs `middleware` in order as Bolt does (each one's `next` calls the one after, every one sees
 * the same context and client), then `listener` with a no-op `next`.
 */
export async function runChain(
  args: Args,
  middleware: ReadonlyArray<Middleware<AnyMiddlewareArgs>>,
  listener: (args: ListenerArgs) => Promise<void>,
): Promise<void> {
  const at = async (index: number): Promise<void> => {
    const current = middleware[index];
    if (!current) return listener({ ...args, next: async () => {} } as ListenerArgs);
    await current({ ...args, next: () => at(index + 1) });
  };
  await at(0);
}

const noop = () => {};
/** Bolt's own logger, unused by the middleware under test (they log through pino). */
const silentBoltLogger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  setLevel: noop,
  getLevel: () => 'error',
  setName: noop,
};

// Bodies as Slack sends them (the fields the middleware read, and enough of the rest that the
// payload guard accepts them).

/** A /cdn slash command's form fields. */
export function slashCommand(fields: Json = {}): Json {
  return {
    token: 'legacy-unused',
    team_id: TEAM,
    team_domain: 'ops',
    channel_id: CHANNEL,
    channel_name: 'ops',
    user_id: USER,
    user_name: 'alice',
    command: '/cdn',
    text: 'zones',
    api_app_id: 'A0APP',
    response_url: RESPONSE_URL,
    trigger_id: TRIGGER,
    ...fields,
  };
}

function who(user = USER) {
  return {
    user: { id: user, username: 'alice', team_id: TEAM },
    team: { id: TEAM, domain: 'ops' },
  };
}

/** A button clicked in a message: it carries a response_url. */
export function messageButton(actionId: string, fields: Json = {}): Json {
  return {
    type: 'block_actions',
    ...who(),
    api_app_id: 'A0APP',
    container: { type: 'message', message_ts: '1700000000.000100', channel_id: CHANNEL },
    channel: { id: CHANNEL, name: 'ops' },
    message: { ts: '1700000000.000100', text: 'zones', blocks: [] },
    response_url: RESPONSE_URL,
    trigger_id: TRIGGER,
    actions: [{ type: 'button', action_id: actionId, block_id: 'b', action_ts: '1700000001.1' }],
    ...fields,
  };
}

/** A button clicked in the App Home: no conversation, no response_url, a trigger_id. */
export function homeButton(actionId: string, fields: Json = {}): Json {
  return {
    type: 'block_actions',
    ...who(),
    api_app_id: 'A0APP',
    container: { type: 'view', view_id: 'V0HOME' },
    view: { id: 'V0HOME', type: 'home', callback_id: '', blocks: [], state: { values: {} } },
    trigger_id: TRIGGER,
    actions: [{ type: 'button', action_id: actionId, block_id: 'b', action_ts: '1700000001.1' }],
    ...fields,
  };
}

/** A modal submitted. */
export function viewSubmission(callbackId: string, fields: Json = {}): Json {
  return {
    type: 'view_submission',
    ...who(),
    api_app_id: 'A0APP',
    trigger_id: TRIGGER,
    view: {
      id: 'V0MODAL',
      type: 'modal',
      callback_id: callbackId,
      private_metadata: '',
      blocks: [],
      state: { values: { zone: { zone: { type: 'plain_text_input', value: 'example.com' } } } },
    },
    response_urls: [],
    ...fields,
  };
}

/** An external select asking for options. */
export function blockSuggestion(actionId: string, value: string): Json {
  return {
    type: 'block_suggestion',
    ...who(),
    api_app_id: 'A0APP',
    action_id: actionId,
    block_id: 'b',
    value,
    container: { type: 'view', view_id: 'V0MODAL' },
  };
}

/** A global shortcut: a trigger_id, no conversation. */
export function globalShortcut(callbackId: string): Json {
  return {
    type: 'shortcut',
    ...who(),
    callback_id: callbackId,
    trigger_id: TRIGGER,
    action_ts: '1700000001.1',
  };
}

/** An Events API envelope. */
export function eventCallback(event: Json, fields: Json = {}): Json {
  return {
    type: 'event_callback',
    token: 'legacy-unused',
    team_id: TEAM,
    api_app_id: 'A0APP',
    event: { event_ts: '1700000001.1', ...event },
    event_id: 'Ev0001',
    event_time: 1_700_000_001,
    authorizations: [{ team_id: TEAM, user_id: 'U0BOT', is_bot: true }],
    ...fields,
  };
}

/** One parsed pino line. */
export interface LogEntry {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export const LEVEL = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;

export function entries(lines: readonly string[]): LogEntry[] {
  return lines.map((line) => JSON.parse(line) as LogEntry);
}
