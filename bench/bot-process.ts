// The bot as a real child process for benchmarks: `node --import tsx src/main.ts` in HTTP mode
// (test/helpers/child-bot.ts, shared with the fault and e2e tests). `startBotHost` gives bots a
// database of the benchmark's (a SQLite file, or a fresh PostgreSQL database dropped at the end)
// and leaves Slack and the CDN to the caller (a process of their own: bench/services.ts);
// `startWorld` is that with the fake Slack and the sandbox in the benchmark's process. Log lines
// are read as they come, with the time pino put on them (the child's clock is the machine's).
// Every bot is killed and every database dropped on close, on an exception, and on SIGINT/SIGTERM.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseConfig, parseEncryptionKeys } from '../src/config.js';
import { SlackPayloads } from '../src/dev/fake-slack/payloads.js';
import { type FakeSlack, startFakeSlack } from '../src/dev/fake-slack/server.js';
import { type Sandbox, startSandbox } from '../src/dev/sandbox/server.js';
import { generateKey, Keyring } from '../src/store/crypto.js';
import { openStore, type Store } from '../src/store/index.js';
import {
  type ChildBot,
  prepareDatabase,
  signedHeaders,
  startChildBot,
} from '../test/helpers/child-bot.js';

export const SIGNING_SECRET = 'bench-signing-secret-0123456789';
export const CDN_KEY = 'sk_bench_key_5f1c9a';
export const USER = 'UBENCH';
export const CHANNEL = 'COPS';
/** Where a fresh database is created (then dropped) for a run on PostgreSQL. */
export const POSTGRES_URL =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';

export type { LogLine } from '../test/helpers/child-bot.js';
export type BotProcess = ChildBot;

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

export async function startBotHost(options: {
  database: 'sqlite' | 'postgres';
  /** Environment every bot gets (Slack and CDN addresses, the bot token); spawnBot's env wins. */
  env: Record<string, string>;
  /** For `command`: the fake Slack in this process mints its response_urls. */
  payloads?: SlackPayloads;
}): Promise<BotHost> {
  guardExit();
  const dir = await mkdtemp(join(tmpdir(), 'bench-bots-'));
  const prepared = await prepareDatabase(options.database, {
    prefix: 'bench',
    postgresUrl: POSTGRES_URL,
  }).catch(async (error: unknown) => {
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

  let closed: Promise<void> | undefined;
  const host: BotHost = {
    database: prepared.database,
    encryptionKeys,
    store,
    async spawnBot(env = {}, spawnOptions = {}) {
      return startChildBot(
        {
          name: `bot ${bots.length + 1}`,
          cwd: await mkdtemp(join(dir, 'bot-')),
          env: { ...baseEnv, ...env },
          signingSecret: SIGNING_SECRET,
          channel: CHANNEL,
          ...(options.payloads ? { payloads: options.payloads } : {}),
          ...(spawnOptions.nodeArgs ? { nodeArgs: spawnOptions.nodeArgs } : {}),
        },
        (bot) => {
          killOnExit(bot.process);
          bots.push(bot);
        },
      );
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
export const signedCommandHeaders = (body: string) => signedHeaders(SIGNING_SECRET, body);
