// The built bot (tsc → JavaScript, as `npm start` runs it) loads no development code in HTTP mode:
// a module hook records every module the process loads, and none is under dev/. The same harness
// in console mode does see dev/ modules, so the check can fail.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../src/dev/fake-slack/server.js';
import { generateKey } from '../src/store/crypto.js';
import { buildInto } from './helpers/build.js';
import { freePort } from './helpers/net.js';

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

let root: string;
let main: string;
let slack: FakeSlack | undefined;
let child: ChildProcess | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'production-start-'));
  // Every loaded path is checked for "/dev/", so the build must not sit under such a folder.
  expect(root).not.toContain('/dev/');
  // The build resolves its dependencies and runs as ESM as it would in the checkout.
  await writeFile(join(root, 'package.json'), '{ "type": "module" }\n');
  await symlink(resolve('node_modules'), join(root, 'node_modules'), 'dir');
  await mkdir(join(root, 'hooks'));
  await writeFile(join(root, 'hooks', 'recorder.mjs'), RECORDER);
  await writeFile(join(root, 'hooks', 'register.mjs'), REGISTER);
  const { code, output } = await buildInto(join(root, 'dist'));
  expect({ code, output }).toEqual({ code: 0, output: '' });
  // tsconfig.build.json's rootDir is src, so src/main.ts lands at dist/main.js.
  main = join(root, 'dist', 'main.js');
}, 120_000);

afterAll(async () => {
  if (!root) return;
  // The link first, so removing the folder can never reach the checkout's node_modules.
  await unlink(join(root, 'node_modules')).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
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
    const [code] = await once(bot.process, 'exit');
    expect(code).toBe(0);

    const loaded = await bot.loaded();
    // The recorder saw the project's modules…
    expect(loaded).toContain(pathToFileURL(main).href);
    expect(loaded).toContain(pathToFileURL(join(root, 'dist', 'app.js')).href);
    // …and none of the console, the fake Slack or the sandbox.
    expect(fromDev(loaded)).toEqual([]);
  }, 30_000);

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
      expect(dev).toContain(pathToFileURL(join(root, 'dist', module)).href);
    }
  }, 30_000);
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
  }, 30_000);

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
  }, 30_000);

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
  }, 30_000);

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
    30_000,
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
  }, 30_000);
});
