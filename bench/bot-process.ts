// The bot as a real child process for benchmarks (the minimal part of test/fault/bot-process.ts,
// which needs vitest): `node --import tsx src/main.ts` in HTTP mode on a SQLite database of the
// benchmark's, with the fake Slack and the CDN sandbox in the benchmark's process. Log lines are
// read as they come, with the time pino put on them (the child's clock is the machine's).
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEncryptionKeys } from '../src/config.js';
import { SlackPayloads } from '../src/dev/fake-slack/payloads.js';
import { type FakeSlack, startFakeSlack } from '../src/dev/fake-slack/server.js';
import { type Sandbox, startSandbox } from '../src/dev/sandbox/server.js';
import { generateKey, Keyring } from '../src/store/crypto.js';
import { openStore, type Store } from '../src/store/index.js';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');
const SIGNING_SECRET = 'bench-signing-secret-0123456789';
const CDN_KEY = 'sk_bench_key_5f1c9a';
export const USER = 'UBENCH';
export const CHANNEL = 'COPS';
const START_TIMEOUT_MS = 45_000;

/** A parsed log line, with when the bot logged it (`time`, epoch ms). */
export type LogLine = Record<string, unknown> & { time: number; msg?: string };

export interface BotProcess {
  readonly name: string;
  readonly pid: number;
  /** Date.now() just before the process was spawned. */
  readonly spawnedAt: number;
  readonly running: boolean;
  output(): string;
  /** Resolves with the first log line (past or future) matching; rejects if the process ends. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Sends the signal and resolves once the process has ended. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Runs /cdn <text> as USER in CHANNEL, signed as Slack signs it; resolves with the HTTP status. */
  command(text: string): Promise<number>;
}

export interface World {
  readonly slack: FakeSlack;
  readonly sandbox: Sandbox;
  /** A store on the bots' database, for reading what they wrote. */
  readonly store: Store;
  spawnBot(env: Record<string, string>): Promise<BotProcess>;
  /** Kills every bot still running, closes the servers and the store, removes the files. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startWorld(): Promise<World> {
  const slack = await startFakeSlack();
  slack.addUser({ id: USER, name: 'bench' });
  slack.addChannel({ id: CHANNEL, name: 'ops', botMember: true });
  const sandbox = await startSandbox({ apiKeys: [CDN_KEY] });
  const dir = await mkdtemp(join(tmpdir(), 'bench-durable-'));
  const path = join(dir, 'bot.sqlite');
  const encryptionKeys = generateKey('k1');
  const store = await openStore({
    database: { kind: 'sqlite', path },
    keyring: new Keyring(parseEncryptionKeys(encryptionKeys)),
  });
  await store.credentials.set(slack.teamId, CDN_KEY, { userId: USER, validated: true });
  const payloads = new SlackPayloads(slack, slack.teamId);
  const bots: BotProcess[] = [];
  const baseEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    BOT_MODE: 'http',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_API_URL: slack.apiUrl,
    CDN_API_BASE_URL: sandbox.baseUrl,
    CDN_EDGE_CNAME_TARGET: 'edge.bench.test',
    DATABASE_URL: `sqlite:${path}`,
    ENCRYPTION_KEYS: encryptionKeys,
    LOG_LEVEL: 'info',
    // Many purges by one user within a minute: the change-rate limit is not what is measured.
    CHANGE_RATE_LIMIT: '0',
  };

  const spawnOnce = async (env: Record<string, string>): Promise<BotProcess> => {
    const port = await freePort();
    const cwd = await mkdtemp(join(dir, 'bot-'));
    const spawnedAt = Date.now();
    const child = spawn(process.execPath, ['--import', TSX, MAIN], {
      cwd,
      env: { ...baseEnv, PORT: String(port), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const bot = handle(child, `bot ${bots.length + 1}`, port, spawnedAt, payloads);
    bots.push(bot);
    return bot;
  };

  return {
    slack,
    sandbox,
    store,
    async spawnBot(env) {
      for (let attempt = 1; ; attempt++) {
        const bot = await spawnOnce(env);
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
    async close() {
      for (const bot of bots) if (bot.running) await bot.kill('SIGKILL');
      await store.close();
      await sandbox.close();
      await slack.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function sign(timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

function handle(
  child: ChildProcess,
  name: string,
  port: number,
  spawnedAt: number,
  payloads: SlackPayloads,
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
    spawnedAt,
    get running() {
      return !ended;
    },
    output: () => output,
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
      const body = new URLSearchParams(
        payloads.slashCommand(text, { user: USER, channel: CHANNEL }),
      ).toString();
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await fetch(`http://127.0.0.1:${port}/slack/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': sign(timestamp, body),
        },
        body,
      });
      await response.text();
      return response.status;
    },
  };
}
