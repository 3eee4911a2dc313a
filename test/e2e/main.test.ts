// `npm start` as a child process (src/main.ts compiled, test/helpers/child-bot.ts) in a folder of
// its own: HTTP mode, .env, production refusals, one-line start-up failures and a clean SIGTERM.
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SlackPayloads } from '../../src/dev/fake-slack/payloads.js';
import { type FakeSlack, startFakeSlack } from '../../src/dev/fake-slack/server.js';
import { type Sandbox, startSandbox } from '../../src/dev/sandbox/server.js';
import { generateKey } from '../../src/store/crypto.js';
import { type ChildBot, launchChildBot } from '../helpers/child-bot.js';
import { compiledMain } from '../helpers/compiled-src.js';
import { expectNoSecrets } from '../helpers/logs.js';
import { freePort } from '../helpers/net.js';

const SECRET = 'main-test-signing-secret';
let slack: FakeSlack;
let sandbox: Sandbox;
let child: ChildBot | undefined;

// Each case's bound (90 s, not the suite's 20 s) is for a hang only: a bot process starting on a
// busy machine takes several times its idle second or two; what a case waits for is an event (a
// log line, an exit), never a time.
let main: string;
// Compiling src (once per change of it) may take a while on a busy machine: not in a test's time.
beforeAll(async () => {
  main = await compiledMain();
}, 120_000);

afterEach(async () => {
  await child?.kill('SIGKILL');
  await Promise.all([slack?.close(), sandbox?.close()]);
});

/** Starts the bot in a fresh folder (its working directory), with `dotEnv` as its .env if given. */
async function run(env: Record<string, string>, dotEnv?: string) {
  const dir = await mkdtemp(join(tmpdir(), 'main-'));
  if (dotEnv !== undefined) await writeFile(join(dir, '.env'), dotEnv);
  child = await launchChildBot({
    name: 'the bot',
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: `sqlite:${join(dir, 'bot.sqlite')}`,
      ENCRYPTION_KEYS: generateKey('k1'),
      LOG_LEVEL: 'info',
      ...env,
    },
    signingSecret: SECRET,
    main,
  });
  return Object.assign(child, { dir });
}

describe('npm start (src/main.ts)', () => {
  it('serves HTTP mode, answers signed commands, and stops cleanly on SIGTERM', async () => {
    slack = await startFakeSlack();
    slack.addUser({ id: 'U1', name: 'u' });
    sandbox = await startSandbox();
    const port = await freePort();
    const bot = await run({
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_API_URL: slack.apiUrl,
      CDN_API_BASE_URL: sandbox.baseUrl,
      CDN_EDGE_CNAME_TARGET: 'edge.example.net',
      PORT: String(port),
    });
    await bot.waitForLog('cdn-chatops is up');
    expect(bot.output()).toContain('"mode":"http"');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    const command = new SlackPayloads(slack, slack.teamId).slashCommand('help', {
      user: 'U1',
      channel: 'C1',
    });
    const body = new URLSearchParams(command).toString();
    const answer = await bot.post(body, 'application/x-www-form-urlencoded');
    expect(answer.status).toBe(200);
    await slack.waitForMessages((m) => m.text === 'CDN commands');

    const { code } = await bot.kill('SIGTERM');
    expect(code).toBe(0);
    expect(bot.output()).toContain('shutting down');
    expectNoSecrets(
      { text: bot.output },
      { 'the signing secret': SECRET, 'the bot token': slack.botToken },
    );
  }, 90_000);

  it('stops with one line when Slack refuses the bot token', async () => {
    slack = await startFakeSlack();
    sandbox = await startSandbox();
    const bot = await run({
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_BOT_TOKEN: 'xoxb-not-a-real-token',
      SLACK_API_URL: slack.apiUrl,
      CDN_API_BASE_URL: sandbox.baseUrl,
      CDN_EDGE_CNAME_TARGET: 'edge.example.net',
      PORT: String(await freePort()),
    });
    const { code } = await bot.exited;
    // A signal instead of the code (null) says what the bot printed before it.
    expect(code, bot.output()).toBe(1);
    expect(bot.output()).toContain('cdn-chatops: Slack refused the bot token (invalid_auth)\n');
    expect(bot.output()).not.toContain('xoxb-not-a-real-token');
  }, 90_000);

  it('reads .env from its folder, with the environment winning, and logs names, not values', async () => {
    slack = await startFakeSlack();
    sandbox = await startSandbox();
    const port = await freePort();
    const dotEnv = [
      '# as .env.example says: copy it to .env and fill it in',
      'BOT_MODE=',
      `SLACK_SIGNING_SECRET=${SECRET}`,
      `SLACK_BOT_TOKEN=${slack.botToken}`,
      `SLACK_API_URL=${slack.apiUrl}`,
      `CDN_API_BASE_URL=${sandbox.baseUrl}`,
      'CDN_EDGE_CNAME_TARGET=edge.example.net',
      // Not a port: if .env won over the environment, start-up would fail on it.
      'PORT=from-dotenv',
    ].join('\n');
    const bot = await run({ PORT: String(port) }, dotEnv);
    await bot.waitForLog('cdn-chatops is up');
    // The signing secret, the token and the CDN come from .env only; the port from the environment.
    expect(bot.output()).toContain(`"port":${port}`);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const start = bot
      .output()
      .split('\n')
      .find((line) => line.includes('starting cdn-chatops'));
    expect(JSON.parse(start ?? '{}')).toMatchObject({
      mode: 'http',
      envFile: {
        path: '.env',
        set: [
          'BOT_MODE',
          'CDN_API_BASE_URL',
          'CDN_EDGE_CNAME_TARGET',
          'SLACK_API_URL',
          'SLACK_BOT_TOKEN',
          'SLACK_SIGNING_SECRET',
        ],
        ignored: ['PORT'],
      },
    });
    expect(bot.output()).not.toContain('from-dotenv');

    const { code } = await bot.kill('SIGTERM');
    expect(code).toBe(0);
    expectNoSecrets(
      { text: bot.output },
      { 'the signing secret': SECRET, 'the bot token': slack.botToken },
    );
  }, 90_000);

  it('refuses to start without Slack credentials when NODE_ENV=production: no console', async () => {
    const bot = await run({ NODE_ENV: 'production' });
    const { code } = await bot.exited;
    expect(code).toBe(1);
    expect(bot.output().trim()).toBe(
      'cdn-chatops: configuration error: SLACK_SIGNING_SECRET or SLACK_APP_TOKEN: one is ' +
        'required when NODE_ENV=production, and so is SLACK_BOT_TOKEN (or SLACK_CLIENT_ID, ' +
        'SLACK_CLIENT_SECRET and SLACK_STATE_SECRET for OAuth); only the development console ' +
        'runs without them',
    );
    // The console would have written its log (and its database) under ./data.
    expect(existsSync(join(bot.dir, 'data'))).toBe(false);
  }, 90_000);

  it('stops with one line naming a bad variable', async () => {
    const bot = await run({ BOT_MODE: 'http', PORT: 'eighty' });
    const { code } = await bot.exited;
    expect(code).toBe(1);
    // The first line; the missing Slack and CDN variables of http mode follow, one line each.
    expect(bot.output().trim().split('\n')[0]).toBe(
      'cdn-chatops: configuration error: PORT: must be a port number',
    );
  }, 90_000);
});
