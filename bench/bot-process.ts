// The bot as a real child process for benchmarks (the minimal part of test/fault/bot-process.ts,
// which needs vitest): `node --import tsx src/main.ts` in HTTP mode. `startBotHost` gives bots a
// database of the benchmark's (a SQLite file, or a fresh PostgreSQL database dropped at the end)
// and leaves Slack and the CDN to the caller (a process of their own: bench/services.ts);
// `startWorld` is that with the fake Slack and the sandbox in the benchmark's process. Log lines
// are read as they come, with the time pino put on them (the child's clock is the machine's).
// Every bot is killed and every database dropped on close, on an exception, and on SIGINT/SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type DatabaseConfig, parseEncryptionKeys } from '../src/config.js';
import { SlackPayloads } from '../src/dev/fake-slack/payloads.js';
import { type FakeSlack, startFakeSlack } from '../src/dev/fake-slack/server.js';
import { type Sandbox, startSandbox } from '../src/dev/sandbox/server.js';
import { generateKey, Keyring } from '../src/store/crypto.js';
import { openStore, type Store } from '../src/store/index.js';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');
export const SIGNING_SECRET = 'bench-signing-secret-0123456789';
export const CDN_KEY = 'sk_bench_key_5f1c9a';
export const USER = 'UBENCH';
export const CHANNEL = 'COPS';
const START_TIMEOUT_MS = 45_000;
/** Where a fresh database is created (then dropped) for a run on PostgreSQL. */
export const POSTGRES_URL =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';

/** A parsed log line, with when the bot logged it (`time`, epoch ms). */
export type LogLine = Record<string, unknown> & { time: number; msg?: string };

export interface BotProcess {
  readonly name: string;
  readonly pid: number;
  /** Its HTTP port on 127.0.0.1 (POST /slack/events). */
  readonly port: number;
  /** Date.now() just before the process was spawned. */
  readonly spawnedAt: number;
  readonly running: boolean;
  output(): string;
  /** Resolves with the first log line (past or future) matching; rejects if the process ends. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Every log line so far matching. */
  logs(match: (line: LogLine) => boolean): LogLine[];
  /** Sends the signal and resolves once the process has ended. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /**
   * Runs /cdn <text> as USER in CHANNEL, signed as Slack signs it; resolves with the HTTP status.
   * Only with the fake Slack in this process (`startWorld`), which mints the response_url.
   */
  command(text: string): Promise<number>;
}

export interface SpawnOptions {
  /** Options for node itself, before `--import tsx` (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

/** Bots on one database of the benchmark's. */
export interface BotHost {
  readonly database: DatabaseConfig;
  readonly encryptionKeys: string;
  /** A store on the bots' database, for seeding it and reading what they wrote. */
  readonly store: Store;
  /** Starts a bot; resolves once it has logged that it is up. */
  spawnBot(env?: Record<string, string>, options?: SpawnOptions): Promise<BotProcess>;
  /** Kills every bot still running, closes the store, drops the database, removes the files. */
  close(): Promise<void>;
}

export interface World extends BotHost {
  readonly slack: FakeSlack;
  readonly sandbox: Sandbox;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Children alive now: killed synchronously if this process exits without closing them. */
const live = new Set<ChildProcess>();
/** Hosts not closed yet: closed (their databases dropped) on SIGINT or SIGTERM. */
const open = new Set<BotHost>();
let guarded = false;

/** A child of the benchmark's other than a bot: killed too if this process exits first. */
export function killOnExit(child: ChildProcess): void {
  guardExit();
  live.add(child);
  child.once('exit', () => live.delete(child));
}

function guardExit(): void {
  if (guarded) return;
  guarded = true;
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`bench: ${signal}: stopping the bots, dropping their databases\n`);
      void Promise.allSettled([...open].map((host) => host.close())).then(() => process.exit(130));
    });
  }
}

/** A database for the bots: a SQLite file in `dir`, or a fresh PostgreSQL database. */
async function prepareDatabase(
  kind: 'sqlite' | 'postgres',
  dir: string,
): Promise<{ database: DatabaseConfig; url: string; drop: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const path = join(dir, 'bot.sqlite');
    return { database: { kind: 'sqlite', path }, url: `sqlite:${path}`, drop: async () => {} };
  }
  // A database of its own (see test/fault/bot-process.ts for why not a schema).
  const name = `bench_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    database: { kind: 'postgres', url: url.toString() },
    url: url.toString(),
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

export async function startBotHost(options: {
  database: 'sqlite' | 'postgres';
  /** Environment every bot gets (Slack and CDN addresses, the bot token); spawnBot's env wins. */
  env: Record<string, string>;
  /** For `command`: the fake Slack in this process mints its response_urls. */
  payloads?: SlackPayloads;
}): Promise<BotHost> {
  guardExit();
  const dir = await mkdtemp(join(tmpdir(), 'bench-bots-'));
  const prepared = await prepareDatabase(options.database, dir).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const encryptionKeys = generateKey('k1');
  const store = await openStore({
    database: prepared.database,
    keyring: new Keyring(parseEncryptionKeys(encryptionKeys)),
  }).catch(async (error: unknown) => {
    await prepared.drop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const bots: BotProcess[] = [];
  const baseEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    BOT_MODE: 'http',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    CDN_EDGE_CNAME_TARGET: 'edge.bench.test',
    DATABASE_URL: prepared.url,
    ENCRYPTION_KEYS: encryptionKeys,
    LOG_LEVEL: 'info',
    // Many purges by one user within a minute: the change-rate limit is not what is measured.
    CHANGE_RATE_LIMIT: '0',
    ...options.env,
  };

  const spawnOnce = async (
    env: Record<string, string>,
    spawnOptions: SpawnOptions,
  ): Promise<BotProcess> => {
    const port = await freePort();
    const cwd = await mkdtemp(join(dir, 'bot-'));
    const spawnedAt = Date.now();
    const child = spawn(
      process.execPath,
      [...(spawnOptions.nodeArgs ?? []), '--import', TSX, MAIN],
      { cwd, env: { ...baseEnv, PORT: String(port), ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    live.add(child);
    child.once('exit', () => live.delete(child));
    const bot = handle(child, `bot ${bots.length + 1}`, port, spawnedAt, options.payloads);
    bots.push(bot);
    return bot;
  };

  let closed: Promise<void> | undefined;
  const host: BotHost = {
    database: prepared.database,
    encryptionKeys,
    store,
    async spawnBot(env = {}, spawnOptions = {}) {
      for (let attempt = 1; ; attempt++) {
        const bot = await spawnOnce(env, spawnOptions);
        try {
          await bot.waitForLog((line) => line.msg === 'cdn-chatops is up', START_TIMEOUT_MS);
          return bot;
        } catch (error) {
          // The port was free when picked; another process may have taken it since.
          if (attempt < 3 && bot.output().includes('EADDRINUSE')) continue;
          throw error;
        }
      }
    },
    close() {
      closed ??= (async () => {
        open.delete(host);
        await Promise.all(bots.map((bot) => (bot.running ? bot.kill('SIGKILL') : undefined)));
        await store.close().catch(() => undefined);
        await prepared.drop();
        await rm(dir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
  open.add(host);
  return host;
}

export async function startWorld(): Promise<World> {
  const slack = await startFakeSlack();
  slack.addUser({ id: USER, name: 'bench' });
  slack.addChannel({ id: CHANNEL, name: 'ops', botMember: true });
  const sandbox = await startSandbox({ apiKeys: [CDN_KEY] });
  const host = await startBotHost({
    database: 'sqlite',
    env: {
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_API_URL: slack.apiUrl,
      CDN_API_BASE_URL: sandbox.baseUrl,
    },
    payloads: new SlackPayloads(slack, slack.teamId),
  });
  await host.store.credentials.set(slack.teamId, CDN_KEY, { userId: USER, validated: true });
  return {
    ...host,
    slack,
    sandbox,
    async close() {
      await host.close();
      await sandbox.close();
      await slack.close();
    },
  };
}

/** The headers of a slash command's form body as Slack sends it, signed with the bots' secret. */
export function signedHeaders(body: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`,
  };
}

function handle(
  child: ChildProcess,
  name: string,
  port: number,
  spawnedAt: number,
  payloads: SlackPayloads | undefined,
): BotProcess {
  let output = '';
  let partial = '';
  let ended = false;
  const lines: LogLine[] = [];
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    partial += chunk.toString();
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const text of complete) {
      if (!text.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(text) as LogLine);
      } catch {
        // not a log line
      }
    }
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => {
      ended = true;
      for (const listener of listeners) listener();
      resolve();
    });
  });
  return {
    name,
    pid: child.pid ?? -1,
    port,
    spawnedAt,
    get running() {
      return !ended;
    },
    output: () => output,
    logs: (match) => lines.filter(match),
    waitForLog(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`${name}: no such log line within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        const check = () => {
          const line = lines.find(match);
          if (line || ended) {
            listeners.delete(check);
            clearTimeout(timer);
            if (line) resolve(line);
            else reject(new Error(`${name} ended first:\n${output}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
    kill(signal) {
      if (!ended) child.kill(signal);
      return exited;
    },
    async command(text) {
      if (!payloads) throw new Error(`${name}: command() needs the fake Slack in this process`);
      const body = new URLSearchParams(
        payloads.slashCommand(text, { user: USER, channel: CHANNEL }),
      ).toString();
      const response = await fetch(`http://127.0.0.1:${port}/slack/events`, {
        method: 'POST',
        headers: signedHeaders(body),
        body,
      });
      await response.text();
      return response.status;
    },
  };
}
