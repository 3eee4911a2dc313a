// The bot as a real child process, for the fault tests, the e2e start-up tests and the benchmarks:
// `node --import tsx src/main.ts` (or src compiled by test/helpers/compiled-src.ts) in a
// folder of the caller's, its output read as it comes, signed Slack requests sent to it, and a
// database of its own. No vitest here: bench/ runs it outside a test runner.
//
//   const bot = await startChildBot({ name: 'bot 1', cwd, env, signingSecret, payloads });
//   await bot.command('purge example.com everything', 'UMEMBER');
//   await bot.waitForLog('job finished');
//   await bot.kill('SIGTERM');                  // resolves with { code, signal }
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { DatabaseConfig } from '../../src/config.js';
import type { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { freePort } from './net.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');
/** How long a bot may take to say it is up (tsx compiles the whole app on a busy machine). */
export const START_TIMEOUT_MS = 45_000;
/** How long `waitForLog` waits unless told otherwise. */
const LOG_TIMEOUT_MS = 60_000;

/**
 * A parsed log line (pino's `time`: epoch ms); a line that is not JSON is `{ msg: <line>, time }`,
 * with the time it was read.
 */
export type LogLine = Record<string, unknown> & { time: number; msg?: string };
/** A fragment or pattern of a raw output line, or a test of a parsed JSON log line. */
export type LogMatch = string | RegExp | ((line: LogLine) => boolean);

/** How a child process ended: its exit code, or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SignedResult {
  status: number;
  body: string;
}

/** How to start the bot, given its whole environment. */
export type Launch = (env: Record<string, string>) => { command: string; args: string[] };

export interface ChildBotOptions {
  /** Names the bot in errors and failure output. */
  name: string;
  /** Its working folder: no .env of the developer's is read, and ./data stays there. */
  cwd: string;
  /** Its whole environment; PORT is a free port unless set here. */
  env: Record<string, string>;
  /** The secret its requests are signed with (its SLACK_SIGNING_SECRET). */
  signingSecret: string;
  /** For command, click, submit and event: the fake Slack that mints ids and response_urls. */
  payloads?: SlackPayloads;
  /** Where commands come from unless told (default COPS). */
  channel?: string;
  /** Default: `node <main>`, else `node --import tsx src/main.ts`. */
  launch?: Launch;
  /** src/main.ts compiled to JavaScript (`compiledMain()`): started without tsx. */
  main?: string;
  /** Options for node itself, before the script (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

export interface ChildBot {
  readonly name: string;
  readonly pid: number;
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly process: ChildProcess;
  /** Date.now() just before the process was spawned. */
  readonly spawnedAt: number;
  /** Everything it wrote on stdout and stderr so far. */
  output(): string;
  /** Its JSON log lines so far (matching `match`, if given). */
  logs(match?: (line: LogLine) => boolean): LogLine[];
  /**
   * Resolves with the `count`th line (past or future) matching; rejects if the process ends first
   * or after `timeoutMs` (default 60 s).
   */
  waitForLog(match: LogMatch, options?: { count?: number; timeoutMs?: number }): Promise<LogLine>;
  /** Resolves once the process has ended and its output is all read. */
  readonly exited: Promise<Exit>;
  readonly running: boolean;
  /** Sends `signal` (unless it has ended) and resolves when the process has ended. */
  kill(signal: NodeJS.Signals): Promise<Exit>;
  /** POSTs a body to /slack/events, signed. */
  post(body: string, contentType: string): Promise<SignedResult>;
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
}

/** Slack's request signature (v0). */
export function sign(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** The headers Slack sends with `body`, signed with `secret` now. */
export function signedHeaders(
  secret: string,
  body: string,
  contentType = 'application/x-www-form-urlencoded',
): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'content-type': contentType,
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': sign(secret, timestamp, body),
  };
}

/** A form-encoded body as Slack POSTs a slash command. */
export function formBody(fields: Record<string, string>): { body: string; contentType: string } {
  return {
    body: new URLSearchParams(fields).toString(),
    contentType: 'application/x-www-form-urlencoded',
  };
}

/** A body as Slack POSTs an interaction (a click, a submission). */
export function interactionBody(payload: Record<string, unknown>): {
  body: string;
  contentType: string;
} {
  return formBody({ payload: JSON.stringify(payload) });
}

/**
 * A database for bots of their own: a SQLite file in a fresh folder, or a fresh PostgreSQL
 * database on `postgresUrl`'s server; `drop` removes it.
 */
export async function prepareDatabase(
  backend: 'sqlite' | 'postgres',
  options: { prefix: string; postgresUrl: string },
): Promise<{ database: DatabaseConfig; url: string; drop: () => Promise<void> }> {
  if (backend === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), `${options.prefix}-db-`));
    const path = join(dir, 'bot.sqlite');
    return {
      database: { kind: 'sqlite', path },
      url: `sqlite:${path}`,
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  // A database of its own, not a schema: Kysely's migrator looks for its tables in every schema
  // (introspection), so a fresh schema beside another migrated one is taken as migrated already.
  const name = `${options.prefix}_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: options.postgresUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(options.postgresUrl);
  url.pathname = `/${name}`;
  return {
    database: { kind: 'postgres', url: url.toString() },
    url: url.toString(),
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

/** Starts a bot and resolves at once, up or not: for a start that is meant to fail. */
export async function launchChildBot(options: ChildBotOptions): Promise<ChildBot> {
  const port = options.env.PORT === undefined ? await freePort() : Number(options.env.PORT);
  const env = { ...options.env, PORT: options.env.PORT ?? String(port) };
  const { command, args } = options.launch?.(env) ?? {
    command: process.execPath,
    args: [
      ...(options.nodeArgs ?? []),
      ...(options.main ? [options.main] : ['--import', TSX, MAIN]),
    ],
  };
  const spawnedAt = Date.now();
  const child = spawn(command, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return handle(child, options, port, spawnedAt);
}

/**
 * Starts a bot; resolves once it logs that it is up. The port is free when picked, but another
 * process may take it before the bot binds it: then it starts again (three tries). `started` is
 * told of every process, the failed tries too (to kill or clean up after).
 */
export async function startChildBot(
  options: ChildBotOptions,
  started: (bot: ChildBot) => void = () => {},
): Promise<ChildBot> {
  for (let attempt = 1; ; attempt++) {
    const bot = await launchChildBot(options);
    started(bot);
    try {
      await bot.waitForLog('cdn-chatops is up', { timeoutMs: START_TIMEOUT_MS });
      return bot;
    } catch (error) {
      if (attempt < 3 && bot.output().includes('EADDRINUSE')) continue;
      if (bot.running) await bot.kill('SIGKILL');
      throw error;
    }
  }
}

function parse(text: string): LogLine | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    return JSON.parse(text) as LogLine;
  } catch {
    return undefined;
  }
}

function handle(
  child: ChildProcess,
  options: ChildBotOptions,
  port: number,
  spawnedAt: number,
): ChildBot {
  const { name, signingSecret, payloads, channel: defaultChannel = 'COPS' } = options;
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  /** Every complete line so far, raw and parsed. */
  const lines: Array<{ text: string; line: LogLine | undefined; at: number }> = [];
  let partial = '';
  let ended = false;
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    const pieces = (partial + chunk.toString()).split('\n');
    partial = pieces.pop() ?? '';
    for (const text of pieces) lines.push({ text, line: parse(text), at: Date.now() });
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // 'close' comes after 'exit' and after the output is all read.
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      if (partial) lines.push({ text: partial, line: parse(partial), at: Date.now() });
      partial = '';
      ended = true;
      for (const listener of listeners) listener();
      resolve({ code, signal });
    });
  });

  const post = async (body: string, contentType: string): Promise<SignedResult> => {
    const response = await fetch(`${url}/slack/events`, {
      method: 'POST',
      headers: signedHeaders(signingSecret, body, contentType),
      body,
      signal: AbortSignal.timeout(LOG_TIMEOUT_MS),
    });
    return { status: response.status, body: await response.text() };
  };
  const slack = () => {
    if (!payloads) throw new Error(`${name}: Slack requests need the fake Slack's payloads`);
    return payloads;
  };
  const send = ({ body, contentType }: { body: string; contentType: string }) =>
    post(body, contentType);

  return {
    name,
    pid: child.pid ?? -1,
    port,
    url,
    process: child,
    spawnedAt,
    output: () => output,
    logs: (match = () => true) =>
      lines.flatMap(({ line }) => (line !== undefined && match(line) ? [line] : [])),
    waitForLog(match, { count = 1, timeoutMs = LOG_TIMEOUT_MS } = {}) {
      const test = ({ text, line }: { text: string; line: LogLine | undefined }): boolean =>
        typeof match === 'string'
          ? text.includes(match)
          : match instanceof RegExp
            ? match.test(text)
            : line !== undefined && match(line);
      return new Promise((resolve, reject) => {
        const done = () => {
          listeners.delete(check);
          clearTimeout(timer);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${name}: no line ${String(match)} within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        const check = () => {
          const found = lines.filter(test)[count - 1];
          if (found !== undefined) {
            done();
            resolve(found.line ?? { msg: found.text, time: found.at });
          } else if (ended) {
            done();
            reject(new Error(`${name} ended without logging ${String(match)}:\n${output}`));
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
    post,
    command(text, user, { channel = defaultChannel } = {}) {
      return send(formBody(slack().slashCommand(text, { user, channel })));
    },
    click(message, actionId, user, { blocks } = {}) {
      const shown = blocks ? { ...message, blocks } : message;
      return send(interactionBody(slack().blockAction(shown, actionId, { user })));
    },
    clickInView(viewId, actionId, user, { value } = {}) {
      return send(
        interactionBody(
          slack().viewAction(viewId, actionId, { user, ...(value ? { value } : {}) }),
        ),
      );
    },
    submit(viewId, values, user) {
      return send(interactionBody(slack().viewSubmission(viewId, values, { user })));
    },
    event(event) {
      return post(JSON.stringify(slack().eventCallback(event)), 'application/json');
    },
  };
}
