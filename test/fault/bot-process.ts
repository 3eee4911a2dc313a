// Fault-test harness: the bot as a REAL child process (test/helpers/child-bot.ts, src compiled
// once by test/helpers/compiled-src.ts; HTTP mode) on a database of its own, with the fake Slack
// and the CDN sandbox in the test process. A test kills the process (SIGKILL, SIGTERM) at a moment
// it chooses, starts another on the same database, and checks what the world saw: Slack's
// messages, the CDN's request log, the store.
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
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, onTestFailed } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { type DatabaseConfig, parseEncryptionKeys } from '../../src/config.js';
import { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import {
  type FakeSlack,
  type FakeSlackOptions,
  startFakeSlack,
} from '../../src/dev/fake-slack/server.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/dev/sandbox/server.js';
import { generateKey, Keyring } from '../../src/store/crypto.js';
import { openStore, type Store } from '../../src/store/index.js';
import {
  type ChildBot,
  type ChildBotOptions,
  type Launch,
  launchChildBot,
  startChildBot,
} from '../helpers/child-bot.js';
import { compiledMain } from '../helpers/compiled-src.js';
import { expectNoSecrets } from '../helpers/logs.js';
import type { Backend } from '../helpers/store.js';
import { type GatedCall, type Hold, SlackGate } from './slack-gate.js';
import { worldDatabase } from './world-database.js';

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
/**
 * The job lease the bots run with: a killed bot's jobs are taken over this long after it died. The
 * shortest the bot accepts: a bot started after a kill -9 finds the lease run out as it comes up
 * (its start takes longer) and resumes at once, instead of at its next poll. With one bot at a
 * time a late heartbeat loses nothing (a renewal only checks who holds the job); bots side by side
 * run with REPLICA_LEASE_MS.
 */
export const JOB_LEASE_MS = 1_000;
/**
 * The lease of bots running side by side on one database: a heartbeat (every third of it) late by
 * more than two thirds of it on a busy machine would let another replica take a job still running.
 */
export const REPLICA_LEASE_MS = 2_000;
/** The environment of bots that run side by side. */
export const REPLICA_ENV = { JOB_LEASE_MS: String(REPLICA_LEASE_MS) };

export type { Exit, SignedResult } from '../helpers/child-bot.js';
export { formBody, interactionBody } from '../helpers/child-bot.js';
/** A bot of the world: a child process (see test/helpers/child-bot.ts). */
export type Bot = ChildBot;

export type { GatedCall, Hold } from './slack-gate.js';

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
  launch?: Launch;
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
   * Starts a bot (src/main.ts, see test/helpers/child-bot.ts) on this world's database; resolves
   * once it logs that it is up. `env` is added to (and wins over) the world's environment.
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

let main: string;
// Compiling src (once per change of it) may take a while on a busy machine: not in a test's time.
beforeAll(async () => {
  main = await compiledMain();
}, 120_000);

/** Per world: its bots, the secrets that must never appear in their output, its set-up time. */
const watched: Array<{ bots: Bot[]; secrets: Record<string, string>; setupMs: number }> = [];

afterEach(async (context) => {
  const failures: string[] = [];
  const cleaning = performance.now();
  // Children first (a database is dropped only once nothing holds it), then servers, then files.
  for (const { label, run } of cleanups.splice(0).reverse()) {
    await run().catch((error: unknown) => failures.push(`${label}: ${(error as Error).message}`));
  }
  const leaks = watched.splice(0);
  if (process.env.FAULT_REPORT && leaks.length > 0)
    timeline(context.task.name, leaks, performance.now() - cleaning);
  if (failures.length > 0) throw new Error(`fault harness cleanup failed: ${failures.join('; ')}`);
  for (const { bots, secrets } of leaks) {
    for (const bot of bots) expectNoSecrets({ text: bot.output }, secrets);
  }
});

/**
 * FAULT_REPORT=1: where a test's time went besides its own waits: each world's set-up, each bot's
 * start (spawned to up), the clean-up.
 */
function timeline(test: string, worlds: typeof watched, cleanupMs: number): void {
  const bots = worlds.flatMap((world) => world.bots);
  const up = bots.map((bot) => {
    const line = bot.logs((l) => l.msg === 'cdn-chatops is up')[0];
    return line ? `${line.time - bot.spawnedAt}` : 'never';
  });
  const setup = worlds.map((world) => Math.round(world.setupMs));
  process.stderr.write(
    `[fault timeline] ${test}: world ${setup.join(', ')} ms; ${bots.length} bots up in ${up.join(', ')} ms; clean-up ${Math.round(cleanupMs)} ms\n`,
  );
}

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

/** Starts the fake Slack, the sandbox and a database holding the workspace's CDN key. */
export async function startWorld(options: WorldOptions): Promise<World> {
  const began = performance.now();
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

  const { database, url: databaseUrl, drop } = await worldDatabase(options.backend);
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
    setupMs: performance.now() - began,
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
    // What Slack shows: each message's text now and before (a wait for a message that never
    // came says why).
    const shown = slack.messages.map((m) => ({
      channel: m.channel,
      ts: m.ts,
      via: m.via,
      text: m.text,
      before: m.history.map((h) => h.text),
    }));
    process.stderr.write(`\n----- Slack's messages -----\n${JSON.stringify(shown, null, 1)}\n`);
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
    // Not 10 (the default, below the event loop): a worker loads its renderer before a stop may
    // end it, and the chart pool waits 10 s for that (src/charts/render-pool.ts); niced on a busy
    // machine, a worker took longer, and a bot stopped seconds after its start (as these tests
    // stop them) aborted (SIGABRT) instead of exiting 0. No fault test is about charts' priority.
    CHART_WORKER_NICE: '0',
    LOG_LEVEL: 'info',
    ...options.env,
  };

  /** A bot's options: a folder of its own, removed after the test. */
  const botOptions = async (env: Record<string, string>): Promise<ChildBotOptions> => {
    const name = `bot ${++named}`;
    const cwd = await mkdtemp(join(tmpdir(), 'fault-bot-'));
    cleanups.push({
      label: `${name} folder`,
      run: () => rm(cwd, { recursive: true, force: true }),
    });
    return {
      name,
      cwd,
      env: { ...baseEnv, ...env },
      signingSecret: SIGNING_SECRET,
      payloads,
      channel: CHANNEL,
      ...(options.launch ? { launch: options.launch } : { main }),
    };
  };
  const adopt = (bot: Bot) => {
    // Killed (if still running) before the servers and the database go.
    cleanups.push({
      label: bot.name,
      run: async () => {
        if (bot.running) await bot.kill('SIGKILL');
        else await bot.exited;
      },
    });
    bots.push(bot);
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
    spawnBot: async (env = {}) => startChildBot(await botOptions(env), adopt),
    async launchBot(env = {}) {
      const bot = await launchChildBot(await botOptions(env));
      adopt(bot);
      return bot;
    },
    holdSlack: (match, options) => gate.hold(match, options),
    inspect,
  };
}
