// End-to-end harness: the real Bolt app in HTTP mode, signed requests in (or in Socket Mode,
// envelopes in over the fake Slack's WebSocket), a fake Slack Web API and the CDN sandbox on
// loopback, a real SQLite store. Only Slack's own servers are stood in for.
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { App } from '@slack/bolt';
import { ACCOUNTS_IDS, LOGIN_IDS } from '../../src/blocks/ids.js';
import type { Resolver } from '../../src/cdn/egress.js';
import { CdnTransport } from '../../src/cdn/transport.js';
import { type ChartRenderer, TrafficChartRenderer } from '../../src/charts/traffic-chart.js';
import type { AppDeps } from '../../src/deps.js';
import { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import {
  type FakeSlack,
  type FakeSlackOptions,
  type Message,
  startFakeSlack,
} from '../../src/dev/fake-slack/server.js';
import {
  type SandboxEdge,
  type SandboxEdgeOptions,
  startSandboxEdge,
} from '../../src/dev/sandbox/edge.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/dev/sandbox/server.js';
import { BackgroundWork } from '../../src/jobs/background.js';
import { LOGIN_ACCOUNT } from '../../src/store/credentials.js';
import { openStore, type Store, type StoreOptions } from '../../src/store/index.js';
import { decodeEntities } from '../../src/text.js';
import { afterEachTest } from '../helpers/after-each-test.js';
import { buildTestApp, testConfig } from '../helpers/app.js';
import { sign } from '../helpers/child-bot.js';
import { ManualClock } from '../helpers/clock.js';
import { type CapturedLogs, captureLogs, expectNoSecrets } from '../helpers/logs.js';
import { freePort } from '../helpers/net.js';
import { type Backend, testKey, testStore } from '../helpers/store.js';

export const SIGNING_SECRET = 'e2e-signing-secret-0123456789';
export const CDN_KEY = 'sk_e2e_right_key_5f1c9a';
export const ADMIN = 'UADMIN';
export const MEMBER = 'UMEMBER';
export const OTHER = 'UOTHER';
export const CHANNEL = 'COPS';
export { EDGE } from '../helpers/app.js';

const APP_TOKEN = 'xapp-1-A0FAKE-e2e-app-token';

type Fields = Record<string, string>;

export interface Harness {
  url: string;
  /** The bot's HTTP server (HTTP mode; undefined in Socket Mode). */
  server: import('node:http').Server | undefined;
  slack: FakeSlack;
  sandbox: Sandbox;
  /** The sandbox's edge: purge verification asks it, whatever a URL's host. */
  edge: SandboxEdge;
  store: Store;
  clock: ManualClock;
  logs: CapturedLogs;
  app: App;
  deps: AppDeps;
  workspaceId: string;
  /** Stops the app and starts a new one on the same database, as a restarted process would. */
  restart(): Promise<void>;
  /** Starts a second app (another replica) on the same database; stopped after the test. */
  replica(): Promise<{ url: string; deps: AppDeps; store: Store }>;
  /** Runs a message shortcut on `message`. */
  shortcut(
    callbackId: string,
    message: {
      channel: string;
      ts: string;
      text: string;
      /** An integration's message: its bot, blocks and attachments (see SlackPayloads). */
      botId?: string;
      blocks?: Array<Record<string, unknown>>;
      attachments?: Array<Record<string, unknown>>;
    },
    options?: { user?: string },
  ): Promise<SignedResult>;
  /** Sets the workspace's CDN key directly, as a completed /cdn login would. */
  login(apiKey?: string): Promise<void>;
  /** The id of the account `login` set the key of (`default`). */
  loginAccountId(): Promise<string>;
  /** Runs /cdn <text> as `user`; resolves with the HTTP answer once Bolt acknowledged. */
  command(
    text: string,
    options?: { user?: string; channel?: string; team?: string },
  ): Promise<SignedResult>;
  /** Clicks a button of a recorded message. */
  click(message: Message, actionId: string, options?: { user?: string }): Promise<SignedResult>;
  /** Clicks a button of a view (App Home or modal). */
  clickInView(
    viewId: string,
    actionId: string,
    options?: { user?: string; value?: string },
  ): Promise<SignedResult>;
  /** Submits an open modal with `values[block_id][action_id]` set. */
  submit(
    viewId: string,
    values: Record<string, Record<string, unknown>>,
    options?: { user?: string },
  ): Promise<SignedResult>;
  /**
   * The person closes the modal `viewId`: Slack forgets it (views.update answers not_found) and,
   * for a modal opened with notify_on_close, sends view_closed (the answer, else undefined).
   */
  closeView(viewId: string, options?: { user?: string }): Promise<SignedResult | undefined>;
  /** Asks for a select's options as `value` is typed; in the open modal `viewId` when given. */
  suggest(
    actionId: string,
    value: string,
    options?: { user?: string; viewId?: string; blockId?: string },
  ): Promise<SignedResult>;
  event(event: Record<string, unknown>): Promise<SignedResult>;
  /** POSTs the last body again, exactly, freshly signed: a Slack retry or a captured replay. */
  replayLast(): Promise<SignedResult>;
  /**
   * POSTs a body to /slack/events, signed unless told otherwise, with any extra headers (Slack's
   * x-slack-retry-num); in Socket Mode, delivers it in an envelope instead.
   */
  post(
    body: string,
    contentType: string,
    signing?: { secret?: string; timestamp?: number; headers?: Record<string, string> },
  ): Promise<SignedResult>;
}

export interface SignedResult {
  status: number;
  /** The acknowledgement's body ('' when empty); in Socket Mode, the envelope's payload. */
  body: string;
  /** How long the acknowledgement took (wall time). */
  ms: number;
}

const open: Array<() => Promise<void>> = [];
/** Every harness's logs and the secrets it handled: after each test, no line may hold one. */
const watched: Array<{ logs: CapturedLogs; secrets: () => Record<string, string | Buffer> }> = [];
/** One renderer for every harness, as one per process in production. */
const chartRenderer = new TrafficChartRenderer();
afterEachTest(async () => {
  for (const close of open.splice(0).reverse()) await close();
  for (const { logs, secrets } of watched.splice(0)) expectNoSecrets(logs, secrets());
});

export async function startHarness(
  options: {
    sandbox?: SandboxOptions;
    edge?: SandboxEdgeOptions;
    slack?: FakeSlackOptions;
    env?: Record<string, string>;
    /** Run the recurring approval expiry (its sleep is one more sleeper on the manual clock). */
    sweep?: boolean;
    /** DNS for base-URL overrides, both when checked and at connect time. */
    resolve?: Resolver;
    /**
     * Probe the edge as production does: each purged URL's host resolved through `resolve` and
     * held to public addresses, instead of every probe routed to the sandbox edge.
     */
    productionEdge?: boolean;
    /** Who draws charts (default: one in-process renderer shared by every harness). */
    chartRenderer?: ChartRenderer;
    /** Run the bot in Socket Mode: deliveries go over the fake Slack's WebSocket. */
    socket?: boolean;
    /** The database (default SQLite); replicas share it. */
    backend?: Backend;
    /** Set the workspace's CDN key before returning (`login`), as most tests begin. */
    login?: boolean;
    /** Told of every statement the first app's store runs (counting a path's statements). */
    onQuery?: StoreOptions['onQuery'];
  } = {},
): Promise<Harness> {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const logs = captureLogs('debug');
  const slack = await startFakeSlack({
    clock,
    ...(options.socket ? { socket: { appToken: APP_TOKEN } } : {}),
    ...options.slack,
  });
  slack.addUser({ id: ADMIN, name: 'alice', isAdmin: true, tz: 'Europe/Paris' });
  slack.addUser({ id: MEMBER, name: 'bob', tz: 'America/New_York' });
  slack.addUser({ id: OTHER, name: 'carol' });
  slack.addChannel({ id: CHANNEL, name: 'ops', botMember: true });
  const sandbox = await startSandbox({ apiKeys: [CDN_KEY], clock, ...options.sandbox });
  const edge = await startSandboxEdge(sandbox.state, { clock, ...options.edge });
  const {
    store: firstStore,
    database,
    keyring,
  } = await testStore(options.backend ?? 'sqlite', {
    clock,
    ...(options.onQuery ? { onQuery: options.onQuery } : {}),
  });
  const port = options.socket ? await freePort() : undefined;
  const config = testConfig(slack, sandbox, {
    ...(port
      ? { BOT_MODE: 'socket', SLACK_APP_TOKEN: APP_TOKEN, PORT: String(port) }
      : { BOT_MODE: 'http', SLACK_SIGNING_SECRET: SIGNING_SECRET }),
    ...options.env,
  });
  // As main.ts builds it: CDN_ATTEMPT_TIMEOUT_MS and the other CDN limits of `env` hold.
  const transport = new CdnTransport({
    limits: config.cdnLimits,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const boot = async (store: Store) => {
    const { app, deps } = buildTestApp(config, {
      store,
      transport,
      clock,
      logger: logs.logger,
      chartRenderer: options.chartRenderer ?? chartRenderer,
      ...(options.resolve ? { resolve: options.resolve } : {}),
      edgeProbe: options.productionEdge ? {} : { edgeAddress: edge.address },
      verifyDelayMs: 0,
    });
    await app.init();
    const server = (await app.start(port ?? 0)) as import('node:http').Server | undefined;
    // The app's recurring approval expiry alone, run as the app runs it (BackgroundWork).
    const sweeper = options.sweep ? new BackgroundWork(deps.runner, logs.logger, clock) : undefined;
    for (const entry of deps.background.entries)
      if (entry.name === 'approval expiry') sweeper?.every(entry);
    sweeper?.start();
    deps.runner.start();
    const url = `http://127.0.0.1:${port ?? (server?.address() as AddressInfo | undefined)?.port}`;
    const stop = async () => {
      await sweeper?.stop(1_000);
      await app.stop();
      await deps.runner.stop();
    };
    return { app, deps, store, url, server, stop };
  };
  let current = await boot(firstStore);
  open.push(
    () => sandbox.close(),
    () => edge.close(),
    () => slack.close(),
    () => transport.close(),
    () => current.stop(),
  );
  const workspaceId = slack.teamId;
  const secrets: Record<string, string | Buffer> = {
    'the CDN key': CDN_KEY,
    'the signing secret': SIGNING_SECRET,
    'the bot token': slack.botToken,
    'the app-level token': APP_TOKEN,
    'the encryption key': testKey('k1', 1).key,
    ...(options.env?.SLACK_CLIENT_SECRET
      ? { 'the OAuth client secret': options.env.SLACK_CLIENT_SECRET }
      : {}),
    ...(options.env?.SLACK_STATE_SECRET
      ? { 'the OAuth state secret': options.env.SLACK_STATE_SECRET }
      : {}),
  };
  // Tokens the fake Slack issues during the test (OAuth installs) are secrets too.
  watched.push({
    logs,
    secrets: () => ({
      ...secrets,
      ...Object.fromEntries(
        slack.issuedTokens.map((token, i) => [`installed bot token ${i}`, token]),
      ),
    }),
  });

  let last: { body: string; contentType: string } | undefined;
  const post: Harness['post'] = async (body, contentType, signing = {}) => {
    last = { body, contentType };
    if (options.socket) return deliver(slack, body, contentType, signing.headers);
    const timestamp = signing.timestamp ?? Math.floor(Date.now() / 1000);
    const started = performance.now();
    const response = await fetch(`${current.url}/slack/events`, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': sign(signing.secret ?? SIGNING_SECRET, timestamp, body),
        ...signing.headers,
      },
      body,
    });
    const answer = await response.text();
    return { status: response.status, body: answer, ms: performance.now() - started };
  };
  const form = (fields: Fields) =>
    post(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded');
  const interaction = (payload: Record<string, unknown>) =>
    form({ payload: JSON.stringify(payload) });
  const payloads = new SlackPayloads(slack, workspaceId);

  const harness: Harness = {
    get url() {
      return current.url;
    },
    get server() {
      return current.server;
    },
    get store() {
      return current.store;
    },
    get app() {
      return current.app;
    },
    get deps() {
      return current.deps;
    },
    slack,
    sandbox,
    edge,
    clock,
    logs,
    workspaceId,
    async restart() {
      // A new process would open the database afresh: so does this, from the same file.
      await current.stop();
      const store = await openStore({ database, keyring, clock });
      open.push(() => store.close());
      current = await boot(store);
    },
    async replica() {
      let sequence = 0;
      const store = await openStore({
        database,
        keyring,
        clock,
        newId: () => `r${open.length}-id-${++sequence}`,
      });
      open.push(() => store.close());
      const booted = await boot(store);
      open.push(() => booted.stop());
      return { url: booted.url, deps: booted.deps, store };
    },
    async login(apiKey = CDN_KEY) {
      secrets[`a CDN key given to login (${Object.keys(secrets).length})`] = apiKey;
      await current.store.credentials.set(workspaceId, apiKey, { userId: ADMIN, validated: true });
    },
    async loginAccountId() {
      const account = await current.store.accounts.byName(workspaceId, LOGIN_ACCOUNT);
      if (!account) throw new Error('no login account: call login() first');
      return account.id;
    },
    shortcut(callbackId, message, { user = MEMBER } = {}) {
      return interaction(
        payloads.messageShortcut(callbackId, { ...message, user: OTHER }, { user }),
      );
    },
    command(text, { user = MEMBER, channel = CHANNEL, team = workspaceId } = {}) {
      return form(payloads.slashCommand(text, { user, channel, team }));
    },
    click(message, actionId, { user = MEMBER } = {}) {
      return interaction(payloads.blockAction(message, actionId, { user }));
    },
    clickInView(viewId, actionId, { user = MEMBER, value } = {}) {
      return interaction(
        payloads.viewAction(viewId, actionId, { user, ...(value ? { value } : {}) }),
      );
    },
    submit(viewId, values, { user = MEMBER } = {}) {
      const typedKey = values[LOGIN_IDS.keyBlock]?.[LOGIN_IDS.keyInput] as
        | { value?: string | null }
        | undefined;
      if (typedKey?.value)
        secrets[`a key typed in the login modal (${Object.keys(secrets).length})`] = typedKey.value;
      const accountKey = values[ACCOUNTS_IDS.keyBlock]?.[ACCOUNTS_IDS.keyInput] as
        | { value?: string | null }
        | undefined;
      if (accountKey?.value)
        secrets[`a key typed in an account modal (${Object.keys(secrets).length})`] =
          accountKey.value;
      return interaction(payloads.viewSubmission(viewId, values, { user }));
    },
    async closeView(viewId, { user = MEMBER } = {}) {
      const closed = slack.closeView(viewId);
      if (closed.view.notify_on_close !== true) return undefined;
      return interaction(payloads.viewClosed(viewId, { user }));
    },
    suggest(actionId, value, { user = MEMBER, viewId, blockId } = {}) {
      return interaction(
        payloads.blockSuggestion(actionId, value, {
          user,
          ...(viewId ? { viewId } : {}),
          ...(blockId ? { blockId } : {}),
        }),
      );
    },
    event(event) {
      return post(JSON.stringify(payloads.eventCallback(event)), 'application/json');
    },
    post,
    replayLast() {
      if (!last) throw new Error('nothing was posted yet');
      return post(last.body, last.contentType);
    },
  };
  if (options.login) await harness.login();
  return harness;
}

/**
 * What Slack would POST to the request URL, delivered over Socket Mode instead: a form with a
 * `payload` is an interaction, another form a slash command, JSON an Events API callback (whose
 * x-slack-retry-num / x-slack-retry-reason become the envelope's retry_attempt / retry_reason).
 */
async function deliver(
  slack: FakeSlack,
  body: string,
  contentType: string,
  headers: Record<string, string> = {},
): Promise<SignedResult> {
  const form = contentType.startsWith('application/json')
    ? undefined
    : Object.fromEntries(new URLSearchParams(body));
  const retryNum = headers['x-slack-retry-num'];
  const ack = await (form === undefined
    ? slack.deliver(
        'events_api',
        JSON.parse(body) as Record<string, unknown>,
        retryNum === undefined
          ? undefined
          : { attempt: Number(retryNum), reason: headers['x-slack-retry-reason'] ?? '' },
      )
    : form.payload === undefined
      ? slack.deliver('slash_commands', form)
      : slack.deliver('interactive', JSON.parse(form.payload) as Record<string, unknown>));
  // An empty ack() comes as no payload, or an empty one: as an empty HTTP body.
  const empty = ack.payload === undefined || ack.payload === '' || isEmptyObject(ack.payload);
  const answer = empty ? '' : JSON.stringify(ack.payload);
  return { status: 200, body: answer, ms: ack.ms };
}

const isEmptyObject = (value: unknown) =>
  typeof value === 'object' && value !== null && Object.keys(value).length === 0;

/** Every text a message or view shows, flattened and unescaped as Slack renders it. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return decodeEntities(value);
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(textOf).join('\n');
  return '';
}

/** The id of the view a views.open call opened. */
export function viewIdOf(call: { response: Record<string, unknown> } | undefined): string {
  const view = call?.response.view as { id?: string } | undefined;
  if (!view?.id) throw new Error(`no view was opened: ${JSON.stringify(call?.response)}`);
  return view.id;
}
