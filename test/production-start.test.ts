// The built bot (tsc → JavaScript, as `npm start` runs it) loads no development code in HTTP mode:
// a module hook records every module the process loads, and none is under dev/. The same harness
// in console mode does see dev/ modules, so the check can fail. Then how it refuses to start: bad
// configuration, and Slack or the database out of reach or refusing the credentials, one line each.
// Longer than ~400 lines because every case runs the one build (builtDist, shared with the install
// smoke): a second file would add its own start-up cases' setup again.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../src/dev/fake-slack/server.js';
import { generateKey } from '../src/store/crypto.js';
import { builtDist } from './helpers/build.js';
import { freePort } from './helpers/net.js';
import { BACKENDS, POSTGRES_URL } from './helpers/store.js';

/** Records the URL of every module the ESM loader loads (the project is ESM throughout). */
const RECORDER = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) {
  log = data.log;
}
export async function load(url, context, nextLoad) {
  appendFileSync(log, url + '\\n');
  return nextLoad(url, context);
}
`;
const REGISTER = `
import { register } from 'node:module';
register('./recorder.mjs', import.meta.url, { data: { log: process.env.MODULE_LOG_FILE } });
`;

/** This file's folder: the recorder hooks, each bot's working folder, its SQLite files. */
let root: string;
/** The shared build's dist/ (builtDist), and its main.js. */
let dist: string;
let main: string;
let slack: FakeSlack | undefined;
let child: ChildProcess | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'production-start-'));
  await mkdir(join(root, 'hooks'));
  await writeFile(join(root, 'hooks', 'recorder.mjs'), RECORDER);
  await writeFile(join(root, 'hooks', 'register.mjs'), REGISTER);
  // tsconfig.build.json's rootDir is src, so src/main.ts lands at dist/main.js. Seconds of tsc
  // (tens on a busy machine) when src changed; none when the build of this src is there already.
  ({ dist } = await builtDist());
  // Every loaded path is checked for "/dev/", so the build must not sit under such a folder.
  expect(dist).not.toContain('/dev/');
  main = join(dist, 'main.js');
}, 180_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  await slack?.close();
  slack = undefined;
});

/**
 * Runs the built main.js in a fresh working folder, with the recorder unless told not to (a hook
 * on every module load is slow); `loaded()` reads its log.
 */
async function start(name: string, env: Record<string, string>, { record = true } = {}) {
  const cwd = await mkdtemp(join(root, `${name}-`));
  const log = join(cwd, 'modules.log');
  await writeFile(log, '');
  const process_ = spawn(
    process.execPath,
    [
      ...(record ? ['--import', pathToFileURL(join(root, 'hooks', 'register.mjs')).href] : []),
      main,
    ],
    {
      cwd,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', MODULE_LOG_FILE: log, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  child = process_;
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    process_.emit('output');
  };
  process_.stdout?.on('data', collect);
  process_.stderr?.on('data', collect);
  const seen = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!output.includes(text)) return;
        process_.off('output', check);
        process_.off('exit', early);
        resolve();
      };
      const early = () => reject(new Error(`exited before "${text}":\n${output}`));
      process_.on('output', check);
      process_.once('exit', early);
      check();
    });
  const loaded = async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  return { process: process_, seen, output: () => output, loaded };
}

// Each case's bound (90 s) is for a hang only: a start of the built bot takes a second or two on
// an idle machine and several times that on a busy one; what a case waits for is an event (a
// line, an exit), never a time.
const fromDev = (urls: string[]) => urls.filter((url) => url.includes('/dev/'));

describe('the built bot', () => {
  it('loads no development code in HTTP mode (NODE_ENV=production)', async () => {
    slack = await startFakeSlack();
    const port = await freePort();
    const bot = await start('http', {
      NODE_ENV: 'production',
      SLACK_SIGNING_SECRET: 'production-start-signing-secret',
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_API_URL: slack.apiUrl,
      CDN_API_BASE_URL: 'https://api.cdn.example/v1',
      CDN_EDGE_CNAME_TARGET: 'edge.cdn.example',
      DATABASE_URL: `sqlite:${join(root, 'http.sqlite')}`,
      ENCRYPTION_KEYS: generateKey('k1'),
      PORT: String(port),
    });
    await bot.seen('cdn-chatops is up');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    bot.process.kill('SIGTERM');
    const [code, signal] = await once(bot.process, 'exit');
    // On failure, the signal and what the bot said (a native crash shows as a signal, not a code).
    expect({ code, signal, output: code === 0 ? '' : bot.output() }).toEqual({
      code: 0,
      signal: null,
      output: '',
    });

    const loaded = await bot.loaded();
    // The recorder saw the project's modules…
    expect(loaded).toContain(pathToFileURL(main).href);
    expect(loaded).toContain(pathToFileURL(join(dist, 'app.js')).href);
    // …and none of the console, the fake Slack or the sandbox.
    expect(fromDev(loaded)).toEqual([]);
  }, 90_000);

  it('loads the development code in console mode (so the check above can fail)', async () => {
    const bot = await start('console', {});
    bot.process.stdin?.end('/cdn help\n');
    const [code] = await once(bot.process, 'exit');
    expect({ code, output: bot.output() }).toMatchObject({ code: 0 });
    expect(bot.output()).toContain('cdn-chatops console');

    const dev = fromDev(await bot.loaded());
    for (const module of [
      'dev/console/main.js',
      'dev/console/start.js',
      'dev/fake-slack/server.js',
      'dev/sandbox/server.js',
    ]) {
      expect(dev).toContain(pathToFileURL(join(dist, module)).href);
    }
  }, 90_000);
});

/** Runs the built bot expecting a refusal: its exit code and output, or "started" if it got going. */
async function refusal(name: string, env: Record<string, string>) {
  const bot = await start(name, env, { record: false });
  // The console reads commands from stdin: at its end it exits, so a silent console shows as 0.
  bot.process.stdin?.end();
  const exited = once(bot.process, 'exit').then(([code]) => code as number);
  const started = bot.seen('starting cdn-chatops').then(
    () => 'started' as const,
    () => exited,
  );
  const code = await Promise.race([exited, started]);
  return { code, output: bot.output(), lines: bot.output().trim().split('\n') };
}

const CDN = {
  CDN_API_BASE_URL: 'https://api.cdn.example/v1',
  CDN_EDGE_CNAME_TARGET: 'edge.cdn.example',
};

describe('start-up refusals of the built bot', () => {
  it('reports every configuration problem at once, one line each, no stack, exit 1', async () => {
    const { code, lines, output } = await refusal('several', {
      NODE_ENV: 'production',
      PORT: 'eighty',
      LOG_LEVEL: 'verbose',
      SLACK_BOT_TOKEN: 'xoxp-a-user-token',
      SLACK_SIGNING_SECRET: 'production-start-signing-secret',
    });
    expect(code).toBe(1);
    expect(lines.map((line) => line.split(':').slice(0, 3).join(':'))).toEqual([
      'cdn-chatops: configuration error: PORT',
      'cdn-chatops: configuration error: LOG_LEVEL',
      'cdn-chatops: configuration error: SLACK_BOT_TOKEN',
      'cdn-chatops: configuration error: CDN_API_BASE_URL',
      'cdn-chatops: configuration error: CDN_EDGE_CNAME_TARGET',
      'cdn-chatops: configuration error: DATABASE_URL',
      'cdn-chatops: configuration error: ENCRYPTION_KEYS',
    ]);
    // What a valid value looks like, and never the value given.
    expect(output).toContain('ENCRYPTION_KEYS: is required when NODE_ENV=production: id:base64key');
    expect(output).toContain('DATABASE_URL: is required when NODE_ENV=production: postgres://');
    expect(output).not.toContain('xoxp-a-user-token');
    expect(output).not.toMatch(/\n\s+at /);
  }, 90_000);

  it('refuses production without ENCRYPTION_KEYS in one line, not a stack trace', async () => {
    const { code, lines } = await refusal('no-keys', {
      NODE_ENV: 'production',
      SLACK_SIGNING_SECRET: 'production-start-signing-secret',
      SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
      DATABASE_URL: `sqlite:${join(root, 'no-keys.sqlite')}`,
      ...CDN,
    });
    expect({ code, lines }).toEqual({
      code: 1,
      lines: [
        'cdn-chatops: configuration error: ENCRYPTION_KEYS: is required when NODE_ENV=production: ' +
          'id:base64key of a 32-byte key, newest first (npm run -s keys:generate makes one)',
      ],
    });
  }, 90_000);

  it('refuses production without DATABASE_URL instead of a SQLite file of its own', async () => {
    const { code, lines } = await refusal('no-database', {
      NODE_ENV: 'production',
      SLACK_SIGNING_SECRET: 'production-start-signing-secret',
      SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
      ENCRYPTION_KEYS: generateKey('k1'),
      ...CDN,
    });
    expect({ code, lines }).toEqual({
      code: 1,
      lines: [
        'cdn-chatops: configuration error: DATABASE_URL: is required when NODE_ENV=production: ' +
          'postgres://user:password@host:5432/db, or sqlite:<path> for a single replica',
      ],
    });
  }, 90_000);

  // Half of Slack's credentials, in every BOT_MODE and unset, in development as in production:
  // the variable that completes them is named, and the console never starts in their place.
  const bot = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc' };
  const app = { SLACK_APP_TOKEN: 'xapp-1-2-abc' };
  const either = 'SLACK_SIGNING_SECRET or SLACK_APP_TOKEN';
  it.each([
    ['development', undefined, bot, either],
    ['development', undefined, app, 'SLACK_BOT_TOKEN'],
    ['development', 'console', bot, either],
    ['development', 'console', app, 'SLACK_BOT_TOKEN'],
    ['development', 'http', bot, 'SLACK_SIGNING_SECRET'],
    ['development', 'http', app, 'SLACK_SIGNING_SECRET'],
    ['development', 'socket', bot, 'SLACK_APP_TOKEN'],
    ['development', 'socket', app, 'SLACK_BOT_TOKEN'],
    ['production', undefined, bot, either],
    ['production', undefined, app, 'SLACK_BOT_TOKEN'],
    ['production', 'console', bot, 'BOT_MODE'],
    ['production', 'http', bot, 'SLACK_SIGNING_SECRET'],
    ['production', 'socket', app, 'SLACK_BOT_TOKEN'],
  ])(
    'NODE_ENV=%s, BOT_MODE=%s, only %j: refused naming %s',
    async (nodeEnv, mode, credentials, variable) => {
      const { code, output } = await refusal('partial', {
        NODE_ENV: nodeEnv,
        ...(mode ? { BOT_MODE: mode } : {}),
        ...credentials,
        ...CDN,
        DATABASE_URL: `sqlite:${join(root, 'partial.sqlite')}`,
        ENCRYPTION_KEYS: generateKey('k1'),
      });
      expect({ code, output }).toMatchObject({ code: 1 });
      expect(output).toContain(`cdn-chatops: configuration error: ${variable}: `);
    },
    90_000,
  );

  it('refuses a second process on the same SQLite file, naming PostgreSQL', async () => {
    slack = await startFakeSlack();
    const env = {
      NODE_ENV: 'production',
      SLACK_SIGNING_SECRET: 'production-start-signing-secret',
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_API_URL: slack.apiUrl,
      ...CDN,
      DATABASE_URL: `sqlite:${join(root, 'shared.sqlite')}`,
      ENCRYPTION_KEYS: generateKey('k1'),
    };
    const first = await start(
      'first',
      { ...env, PORT: String(await freePort()) },
      { record: false },
    );
    await first.seen('cdn-chatops is up');
    const second = await start(
      'second',
      { ...env, PORT: String(await freePort()) },
      { record: false },
    );
    const [code] = await once(second.process, 'exit');
    expect(code).toBe(1);
    expect(second.output()).toContain(
      `cdn-chatops: another process is using ${join(root, 'shared.sqlite')}`,
    );
    expect(second.output()).toContain('use PostgreSQL');
    first.process.kill('SIGTERM');
    await once(first.process, 'exit');
  }, 90_000);
});

/** Runs the built bot until it exits: its code and the line it stopped with. */
async function stopsWith(name: string, env: Record<string, string>) {
  const bot = await start(name, { NODE_ENV: 'production', PORT: String(await freePort()), ...env });
  const [code] = await once(bot.process, 'exit');
  const line = bot
    .output()
    .split('\n')
    .find((l) => l.startsWith('cdn-chatops: '));
  return { code, line, output: bot.output() };
}

/** A loopback server of `kind`, closed after the test. */
async function serve(kind: 'silent' | 'plain-http'): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server =
    kind === 'silent'
      ? createServer((socket) => sockets.add(socket))
      : createHttpServer((_req, res) => res.end('{"ok":true}'));
  server.on('connection', (socket: Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as { port: number }).port;
}
const servers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of servers.splice(0)) await close();
});

describe('start-up with Slack or the database out of reach: one line, the host and why', () => {
  const BOT_TOKEN = 'xoxb-111-222-unreachabletoken';
  const slackAt = (apiUrl: string, env: Record<string, string> = {}) => ({
    SLACK_SIGNING_SECRET: 'production-start-signing-secret',
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_API_URL: apiUrl,
    // One try, bounded for a hang only: a DNS lookup or a TLS handshake on a busy machine may take
    // longer than a small bound, and would then be reported as a timeout.
    SLACK_TIMEOUT_MS: '20000',
    SLACK_REQUEST_BUDGET_MS: '20000',
    DATABASE_URL: `sqlite:${join(root, `slack-${Math.random().toString(36).slice(2)}.sqlite`)}`,
    ENCRYPTION_KEYS: generateKey('k1'),
    ...CDN,
    ...env,
  });

  it('a Slack host name that does not resolve', async () => {
    const { code, line, output } = await stopsWith(
      'slack-dns',
      slackAt('https://slack.cdn-chatops.invalid/api/'),
    );
    expect(code).toBe(1);
    expect(line).toMatch(
      /^cdn-chatops: Cannot reach Slack at slack\.cdn-chatops\.invalid: DNS lookup failed \((ENOTFOUND|EAI_AGAIN)\)$/,
    );
    expect(output).not.toContain(BOT_TOKEN);
  }, 90_000);

  it('a closed port', async () => {
    const port = await freePort();
    const { code, line } = await stopsWith(
      'slack-closed',
      slackAt(`http://127.0.0.1:${port}/api/`),
    );
    expect({ code, line }).toEqual({
      code: 1,
      line: `cdn-chatops: Cannot reach Slack at 127.0.0.1:${port}: connection refused (ECONNREFUSED)`,
    });
  }, 90_000);

  it('a server that never answers, within SLACK_TIMEOUT_MS', async () => {
    const port = await serve('silent');
    // Small bounds, so a Slack that never answers is given up on quickly.
    const { code, line } = await stopsWith(
      'slack-silent',
      slackAt(`http://127.0.0.1:${port}/api/`, {
        SLACK_TIMEOUT_MS: '300',
        SLACK_REQUEST_BUDGET_MS: '1000',
      }),
    );
    expect({ code, line }).toEqual({
      code: 1,
      line: `cdn-chatops: Cannot reach Slack at 127.0.0.1:${port}: timed out after 0.3 s`,
    });
  }, 90_000);

  it('TLS spoken to a plain-HTTP server', async () => {
    const port = await serve('plain-http');
    const { code, line } = await stopsWith('slack-tls', slackAt(`https://127.0.0.1:${port}/api/`));
    expect(code).toBe(1);
    expect(line).toMatch(
      new RegExp(
        `^cdn-chatops: Cannot reach Slack at 127\\.0\\.0\\.1:${port}: TLS handshake failed \\(\\w+\\)$`,
      ),
    );
  }, 90_000);

  it('Slack refusing the bot token (invalid_auth): a refusal, not an outage', async () => {
    slack = await startFakeSlack();
    const { code, line, output } = await stopsWith('slack-refused', slackAt(slack.apiUrl));
    expect({ code, line }).toEqual({
      code: 1,
      line: 'cdn-chatops: Slack refused the bot token (invalid_auth)',
    });
    expect(output).not.toContain(BOT_TOKEN);
  }, 90_000);

  it('a PostgreSQL port nobody listens on, once DATABASE_START_TIMEOUT_MS is spent', async () => {
    const port = await freePort();
    const { code, line, output } = await stopsWith('db-closed', {
      ...slackAt('https://slack.cdn-chatops.invalid/api/'),
      DATABASE_URL: `postgres://bot:sekret-db-pw@127.0.0.1:${port}/app`,
      DATABASE_START_TIMEOUT_MS: '0',
    });
    expect({ code, line }).toEqual({
      code: 1,
      line: `cdn-chatops: Cannot reach the PostgreSQL database app at 127.0.0.1:${port}: connection refused (ECONNREFUSED) (tried 1 time in 0 s)`,
    });
    expect(output).not.toContain('sekret-db-pw');
  }, 90_000);

  it.skipIf(BACKENDS[1]?.skip)(
    'PostgreSQL refusing the login: a refusal, not an outage',
    async () => {
      const url = new URL(POSTGRES_URL);
      url.username = 'no_such_role_start';
      url.password = 'sekret-db-pw';
      const { code, line, output } = await stopsWith('db-refused', {
        ...slackAt('https://slack.cdn-chatops.invalid/api/'),
        DATABASE_URL: url.href,
      });
      expect(code).toBe(1);
      expect(line).toMatch(
        new RegExp(
          `^cdn-chatops: The PostgreSQL database ${url.pathname.slice(1)} at ${url.hostname}:${url.port || '5432'} refused the login for user no_such_role_start \\(28(000|P01)\\)$`,
        ),
      );
      expect(output).not.toContain('sekret-db-pw');
    },
    90_000,
  );
});
