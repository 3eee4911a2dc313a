// Fault-test harness: the bot as a REAL child process (`node --import tsx src/main.ts`, HTTP mode)
// on a database of its own, with the fake Slack and the CDN sandbox in the test process. A test
// kills the process (SIGKILL, SIGTERM) at a moment it chooses, starts another on the same
// database, and checks what the world saw: Slack's messages, the CDN's request log, the store.
//
// Moments are chosen by waiting on events, never by sleeping: a log line, a request the sandbox
// recorded (or holds, with a `hang` or `latency` fault), or a Slack Web API call the world holds
// (`world.holdSlack`: the bot's Web API traffic goes through a gate in front of the fake Slack;
// response_url posts go to the fake Slack directly).
//
//   const world = await startWorld({ backend: 'sqlite' });   // or 'postgres'
//   world.sandbox.inject({ kind: 'hang', after: true, path: /\/purge$/ });
//   const bot = await world.spawnBot({ SHUTDOWN_TIMEOUT_MS: '1000' });
//   await bot.command('purge example.com everything', MEMBER);   // signed, as Slack sends it
//   await world.sandbox.waitFor((r) => r.path.endsWith('/purge'));
//   await bot.kill('SIGKILL');                                   // resolves with { code, signal }
//   const next = await world.spawnBot();                         // same database, same keys
//   await world.inspect((store) => store.audit.recent(world.workspaceId));
//
// Every bot is killed, and every server, folder and database removed, after each test; a failed
// test prints every bot's output, and no bot may have logged a secret.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, onTestFailed } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { type DatabaseConfig, parseEncryptionKeys } from '../../src/config.js';
import { parseArgs, readBody } from '../../src/dev/fake-slack/http.js';
import { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import {
  type FakeSlack,
  type FakeSlackOptions,
  type Message,
  startFakeSlack,
} from '../../src/dev/fake-slack/server.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/dev/sandbox/server.js';
import { generateKey, Keyring } from '../../src/store/crypto.js';
import { openStore, type Store } from '../../src/store/index.js';
import { expectNoSecrets } from '../helpers/logs.js';
import { freePort } from '../helpers/net.js';
import { type Backend, POSTGRES_URL } from '../helpers/store.js';

export type { Backend };

export const SIGNING_SECRET = 'fault-signing-secret-0123456789';
export const CDN_KEY = 'sk_fault_right_key_7d2e4b';
/** A workspace admin (may approve). */
export const ADMIN = 'UADMIN';
/** A member who asks for things. */
export const MEMBER = 'UMEMBER';
/** Another member (a second approver). */
export const OTHER = 'UOTHER';
/** A channel the bot is in. */
export const CHANNEL = 'COPS';
export const EDGE = 'edge.cdn-fault.test';
/** The job lease the bots run with: a killed bot's jobs are taken over this long after it died. */
export const JOB_LEASE_MS = 2_000;

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');
/** How long a bot may take to say it is up (tsx compiles the whole app on a busy machine). */
const START_TIMEOUT_MS = 45_000;

export interface SignedResult {
  status: number;
  body: string;
}

/** How a child process ended: its exit code, or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Bot {
  readonly name: string;
  readonly pid: number;
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly process: ChildProcess;
  /** Everything it wrote on stdout and stderr so far. */
  output(): string;
  /** Its log lines so far, parsed (lines that are not JSON are left out). */
  logs(): Array<Record<string, unknown>>;
  /**
   * Resolves with the `count`th line (past or future) containing `fragment`; rejects if the
   * process ends first.
   */
  waitForLog(fragment: string | RegExp, count?: number): Promise<string>;
  /** Resolves once the process has ended and its output is all read. */
  readonly exited: Promise<Exit>;
  /** Whether the process has ended. */
  readonly running: boolean;
  /** Sends `signal` (once more if already sent) and resolves when the process has ended. */
  kill(signal: NodeJS.Signals): Promise<Exit>;
  /** Runs /cdn <text> as `user`; resolves with the HTTP answer (Bolt acknowledged). */
  command(text: string, user: string, options?: { channel?: string }): Promise<SignedResult>;
  /** Clicks a button of a message (its current blocks, or `blocks` as a stale client shows it). */
  click(
    message: Message,
    actionId: string,
    user: string,
    options?: { blocks?: unknown[] },
  ): Promise<SignedResult>;
  /** Clicks a button of a view (App Home or modal). */
  clickInView(
    viewId: string,
    actionId: string,
    user: string,
    options?: { value?: string },
  ): Promise<SignedResult>;
  /** Submits an open modal with `values[block_id][action_id]` set. */
  submit(
    viewId: string,
    values: Record<string, Record<string, unknown>>,
    user: string,
  ): Promise<SignedResult>;
  /** Sends an Events API callback. */
  event(event: Record<string, unknown>): Promise<SignedResult>;
  /** POSTs a body to /slack/events, signed. */
  post(body: string, contentType: string): Promise<SignedResult>;
}

/** A Web API call the bot made, as the gate in front of the fake Slack sees it. */
export interface GatedCall {
  /** The Web API method, e.g. chat.update. */
  method: string;
  args: Record<string, unknown>;
}

/** A Web API call held at the gate until released. */
export interface Hold {
  /** Resolves with the call once the bot has made it (it is being held from then on). */
  readonly reached: Promise<GatedCall>;
  /**
   * Lets the held call through to the fake Slack, unless the bot that made it is gone (a killed
   * process's call is dropped, as if it never left). Before the call arrives: lets it through.
   */
  release(): void;
}

export interface WorldOptions {
  backend: Backend;
  sandbox?: SandboxOptions;
  slack?: FakeSlackOptions;
  /** Environment every bot of this world gets (spawnBot's own env wins). */
  env?: Record<string, string>;
  /**
   * How a bot is started, given its whole environment (default: `node --import tsx src/main.ts`);
   * e.g. the built bot of a production install, or a container.
   */
  launch?: (env: Record<string, string>) => { command: string; args: string[] };
}

export interface World {
  readonly backend: Backend;
  readonly slack: FakeSlack;
  readonly sandbox: Sandbox;
  /** The database every bot of this world opens, and its DATABASE_URL. */
  readonly database: DatabaseConfig;
  readonly databaseUrl: string;
  /** ENCRYPTION_KEYS every bot gets; `openStore` uses the same keys. */
  readonly encryptionKeys: string;
  readonly workspaceId: string;
  /** Every bot spawned, oldest first. */
  readonly bots: readonly Bot[];
  /** The Web API URL the bots use (the gate in front of the fake Slack). */
  readonly slackApiUrl: string;
  /**
   * Builds what Slack sends (slash commands, clicks, submissions) without sending it: for a test
   * that POSTs one body several times (`formBody`, `interactionBody`, then `bot.post`).
   */
  readonly payloads: SlackPayloads;
  /**
   * Starts `node --import tsx src/main.ts` on this world's database; resolves once it logs that
   * it is up. `env` is added to (and wins over) the world's environment.
   */
  spawnBot(env?: Record<string, string>): Promise<Bot>;
  /** Starts a bot and resolves at once, up or not: for a start that is meant to fail. */
  launchBot(env?: Record<string, string>): Promise<Bot>;
  /**
   * Holds the next Web API call matching `match` (one call; set several holds for more). With
   * `answer: true` the call reaches Slack at once and only its answer is held: Slack did the work,
   * the bot has not heard (`reached` resolves once Slack has answered).
   */
  holdSlack(match: (call: GatedCall) => boolean, options?: { answer?: boolean }): Hold;
  /** Opens the store in the test process (same keys), runs `read`, closes it. */
  inspect<T>(read: (store: Store) => Promise<T>): Promise<T>;
}

interface Cleanup {
  label: string;
  run: () => Promise<void>;
}

const cleanups: Cleanup[] = [];
/** Per world: its bots and the secrets that must never appear in their output. */
const watched: Array<{ bots: Bot[]; secrets: Record<string, string> }> = [];

afterEach(async () => {
  const failures: string[] = [];
  // Children first (a database is dropped only once nothing holds it), then servers, then files.
  for (const { label, run } of cleanups.splice(0).reverse()) {
    await run().catch((error: unknown) => failures.push(`${label}: ${(error as Error).message}`));
  }
  const leaks = watched.splice(0);
  if (failures.length > 0) throw new Error(`fault harness cleanup failed: ${failures.join('; ')}`);
  for (const { bots, secrets } of leaks) {
    for (const bot of bots) expectNoSecrets({ text: bot.output }, secrets);
  }
});

/**
 * The fake Slack's clock, running at a tenth of real time. Only its trigger ids care (usable for
 * 3 s, as in Slack): a bot that needs longer on a busy machine would fail for reasons no user
 * sees. Message timestamps stay unique and ordered (they carry a sequence number).
 */
function unhurriedClock(factor = 10): Clock {
  const start = Date.now();
  return {
    now: () => start + Math.floor((Date.now() - start) / factor),
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        signal?.throwIfAborted();
        const timer = setTimeout(resolve, ms * factor);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      }),
  };
}

async function prepareDatabase(
  backend: Backend,
): Promise<{ database: DatabaseConfig; url: string; drop: () => Promise<void> }> {
  if (backend === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'fault-db-'));
    const path = join(dir, 'bot.sqlite');
    return {
      database: { kind: 'sqlite', path },
      url: `sqlite:${path}`,
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  // A database of its own, not a schema: Kysely's migrator looks for its tables in every schema
  // (introspection), so a fresh schema beside another migrated one is taken as migrated already.
  const name = `fault_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    database: { kind: 'postgres', url: url.toString() },
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** The gate in front of the fake Slack's Web API: forwards every call, holds the ones asked for. */
class SlackGate {
  readonly #target: URL;
  readonly #server: Server;
  readonly #holds: Array<{
    match: (call: GatedCall) => boolean;
    taken: boolean;
    /** Forward first, hold the answer. */
    answer: boolean;
    reached: (call: GatedCall) => void;
    released: Promise<void>;
    release: () => void;
  }> = [];
  #url = '';

  constructor(target: string) {
    this.#target = new URL(target);
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  get apiUrl(): string {
    return `${this.#url}/api/`;
  }

  hold(match: (call: GatedCall) => boolean, options: { answer?: boolean } = {}): Hold {
    let reached!: (call: GatedCall) => void;
    let release!: () => void;
    const reachedPromise = new Promise<GatedCall>((resolve) => {
      reached = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#holds.push({
      match,
      taken: false,
      answer: options.answer ?? false,
      reached,
      released,
      release,
    });
    return { reached: reachedPromise, release };
  }

  async close(): Promise<void> {
    for (const hold of this.#holds) hold.release();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    let gone = false;
    res.once('close', () => {
      gone = !res.writableFinished;
    });
    const path = req.url ?? '/';
    if (path.startsWith('/api/')) {
      const call: GatedCall = {
        method: path.slice('/api/'.length).split('?')[0] ?? '',
        args: parseArgs(String(req.headers['content-type'] ?? ''), body),
      };
      const hold = this.#holds.find((h) => !h.taken && h.match(call));
      if (hold) {
        hold.taken = true;
        // Slack does the work now; its answer waits for the release.
        const answered = hold.answer ? await this.#forward(req, body) : undefined;
        hold.reached(call);
        await hold.released;
        // The caller died while its call was held: it never hears (or the call never reaches Slack).
        if (gone || req.socket.destroyed) {
          res.destroy();
          return;
        }
        if (answered) return answer(res, answered);
      }
    }
    answer(res, await this.#forward(req, body));
  }

  #forward(req: IncomingMessage, body: Buffer): Promise<Answer> {
    const headers = { ...req.headers, host: this.#target.host };
    delete headers.connection;
    return new Promise((resolve, reject) => {
      const upstream = httpRequest(
        {
          host: this.#target.hostname,
          port: this.#target.port,
          method: req.method,
          path: req.url,
          headers,
        },
        (reply) => {
          readBody(reply).then(
            (replyBody) =>
              resolve({ status: reply.statusCode ?? 502, headers: reply.headers, body: replyBody }),
            reject,
          );
        },
      );
      upstream.once('error', reject);
      upstream.end(body);
    });
  }
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function answer(res: ServerResponse, { status, headers, body }: Answer): void {
  const rest = { ...headers };
  // The body is whole now: its length is known, whatever encoding carried it.
  delete rest['transfer-encoding'];
  res.writeHead(status, { ...rest, 'content-length': body.length }).end(body);
}

/** Starts the fake Slack, the sandbox and a database holding the workspace's CDN key. */
export async function startWorld(options: WorldOptions): Promise<World> {
  const slack = await startFakeSlack({ clock: unhurriedClock(), ...options.slack });
  cleanups.push({ label: 'fake Slack', run: () => slack.close() });
  slack.addUser({ id: ADMIN, name: 'alice', isAdmin: true, tz: 'Europe/Paris' });
  slack.addUser({ id: MEMBER, name: 'bob', tz: 'America/New_York' });
  slack.addUser({ id: OTHER, name: 'carol' });
  slack.addChannel({ id: CHANNEL, name: 'ops', botMember: true });
  const gate = await new SlackGate(slack.url).listen();
  cleanups.push({ label: 'Slack gate', run: () => gate.close() });
  const sandbox = await startSandbox({ apiKeys: [CDN_KEY], ...options.sandbox });
  cleanups.push({ label: 'sandbox', run: () => sandbox.close() });

  const { database, url: databaseUrl, drop } = await prepareDatabase(options.backend);
  cleanups.push({ label: 'database', run: drop });
  const encryptionKeys = generateKey('k1');
  const keyring = new Keyring(parseEncryptionKeys(encryptionKeys));
  const workspaceId = slack.teamId;
  const inspect = async <T>(read: (store: Store) => Promise<T>): Promise<T> => {
    const store = await openStore({ database, keyring });
    try {
      return await read(store);
    } finally {
      await store.close();
    }
  };
  // As a completed /cdn login would have left it.
  await inspect((store) =>
    store.credentials.set(workspaceId, CDN_KEY, { userId: ADMIN, validated: true }),
  );

  const bots: Bot[] = [];
  /** Bots named so far: names stay unique when several are spawned at once. */
  let named = 0;
  watched.push({
    bots,
    secrets: {
      'the CDN key': CDN_KEY,
      'the signing secret': SIGNING_SECRET,
      'the bot token': slack.botToken,
      'the encryption key': encryptionKeys.slice(encryptionKeys.indexOf(':') + 1),
    },
  });
  onTestFailed(() => {
    for (const bot of bots) {
      process.stderr.write(`\n----- ${bot.name} (pid ${bot.pid}) output -----\n${bot.output()}`);
    }
  });

  const payloads = new SlackPayloads(slack, workspaceId);
  const baseEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    BOT_MODE: 'http',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_API_URL: gate.apiUrl,
    // The gate is in front of the Web API only: response URLs are the fake Slack's.
    SLACK_RESPONSE_URL_BASE: slack.url,
    CDN_API_BASE_URL: sandbox.baseUrl,
    CDN_EDGE_CNAME_TARGET: EDGE,
    DATABASE_URL: databaseUrl,
    ENCRYPTION_KEYS: encryptionKeys,
    JOB_LEASE_MS: String(JOB_LEASE_MS),
    LOG_LEVEL: 'info',
    ...options.env,
  };

  const spawnOnce = async (env: Record<string, string>, name: string): Promise<Bot> => {
    const port = await freePort();
    const cwd = await mkdtemp(join(tmpdir(), 'fault-bot-'));
    cleanups.push({
      label: `${name} folder`,
      run: () => rm(cwd, { recursive: true, force: true }),
    });
    const fullEnv = { ...baseEnv, PORT: String(port), ...env };
    const { command, args } = options.launch?.(fullEnv) ?? {
      command: process.execPath,
      args: ['--import', TSX, MAIN],
    };
    const child = spawn(command, args, {
      // A folder of its own: no .env of the developer's is read, and ./data stays there.
      cwd,
      env: fullEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const bot = botHandle(child, name, port, payloads);
    // Killed (if still running) before the servers and the database go.
    cleanups.push({
      label: name,
      run: async () => {
        if (bot.running) await bot.kill('SIGKILL');
        else await bot.exited;
      },
    });
    bots.push(bot);
    return bot;
  };

  return {
    backend: options.backend,
    slack,
    sandbox,
    database,
    databaseUrl,
    encryptionKeys,
    workspaceId,
    bots,
    slackApiUrl: gate.apiUrl,
    payloads,
    async spawnBot(env = {}) {
      // The port is free when picked, but another process may take it before the bot binds it.
      for (let attempt = 1; ; attempt++) {
        const bot = await spawnOnce(env, `bot ${++named}`);
        const up = await Promise.race([
          bot.waitForLog('cdn-chatops is up').then(() => true),
          bot.exited.then(() => false),
          timeout(START_TIMEOUT_MS),
        ]);
        if (up === true) return bot;
        if (up === 'timeout') throw new Error(`${bot.name} did not start:\n${bot.output()}`);
        if (attempt < 3 && bot.output().includes('EADDRINUSE')) continue;
        throw new Error(`${bot.name} exited before it was up:\n${bot.output()}`);
      }
    },
    launchBot: (env = {}) => spawnOnce(env, `bot ${++named}`),
    holdSlack: (match, options) => gate.hold(match, options),
    inspect,
  };
}

/** A form-encoded body as Slack POSTs a slash command (for `bot.post`). */
export function formBody(fields: Record<string, string>): { body: string; contentType: string } {
  return {
    body: new URLSearchParams(fields).toString(),
    contentType: 'application/x-www-form-urlencoded',
  };
}

/** A body as Slack POSTs an interaction (a click, a submission), for `bot.post`. */
export function interactionBody(payload: Record<string, unknown>): {
  body: string;
  contentType: string;
} {
  return formBody({ payload: JSON.stringify(payload) });
}

/** Slack's request signature (v0). */
export function sign(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

function timeout(ms: number): Promise<'timeout'> {
  return new Promise((resolve) => setTimeout(resolve, ms, 'timeout').unref());
}

function botHandle(child: ChildProcess, name: string, port: number, payloads: SlackPayloads): Bot {
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  let ended = false;
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // 'close' comes after 'exit' and after the output is all read.
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      ended = true;
      for (const listener of listeners) listener();
      resolve({ code, signal });
    });
  });

  const post = async (body: string, contentType: string): Promise<SignedResult> => {
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await fetch(`${url}/slack/events`, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': sign(SIGNING_SECRET, timestamp, body),
      },
      body,
    });
    return { status: response.status, body: await response.text() };
  };
  const form = (fields: Record<string, string>) => {
    const { body, contentType } = formBody(fields);
    return post(body, contentType);
  };
  const interaction = (payload: Record<string, unknown>) => {
    const { body, contentType } = interactionBody(payload);
    return post(body, contentType);
  };

  return {
    name,
    pid: child.pid ?? -1,
    port,
    url,
    process: child,
    output: () => output,
    logs: () =>
      output.split('\n').flatMap((line) => {
        if (!line.startsWith('{')) return [];
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    waitForLog(fragment, count = 1) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const lines = output
            .split('\n')
            .filter((line) =>
              typeof fragment === 'string' ? line.includes(fragment) : fragment.test(line),
            );
          const line = lines[count - 1];
          if (line !== undefined) {
            listeners.delete(check);
            resolve(line);
          } else if (ended) {
            listeners.delete(check);
            reject(new Error(`${name} ended without logging ${String(fragment)}:\n${output}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
    exited,
    get running() {
      return !ended;
    },
    kill(signal) {
      if (!ended) child.kill(signal);
      return exited;
    },
    command(text, user, { channel = CHANNEL } = {}) {
      return form(payloads.slashCommand(text, { user, channel }));
    },
    click(message, actionId, user, options = {}) {
      const shown = options.blocks ? { ...message, blocks: options.blocks } : message;
      return interaction(payloads.blockAction(shown, actionId, { user }));
    },
    clickInView(viewId, actionId, user, { value } = {}) {
      return interaction(
        payloads.viewAction(viewId, actionId, { user, ...(value ? { value } : {}) }),
      );
    },
    submit(viewId, values, user) {
      return interaction(payloads.viewSubmission(viewId, values, { user }));
    },
    event(event) {
      return post(JSON.stringify(payloads.eventCallback(event)), 'application/json');
    },
    post,
  };
}
