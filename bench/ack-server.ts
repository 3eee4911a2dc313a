// A child process for the ack benchmark: our app, or a bare Bolt app, in HTTP mode on a free port.
// Prints "READY <port>" when listening.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bolt from '@slack/bolt';
import { buildApp } from '../src/app.js';
import { CdnTransport } from '../src/cdn/transport.js';
import { systemClock } from '../src/clock.js';
import { loadConfig, parseEncryptionKeys } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { generateKey, Keyring } from '../src/store/crypto.js';
import { openStore } from '../src/store/index.js';

const which = process.argv[2];
const env = process.env;

async function ours() {
  const config = loadConfig({ ...env, BOT_MODE: 'http', LOG_LEVEL: 'silent' });
  const dir = await mkdtemp(join(tmpdir(), 'bench-ack-'));
  const store = await openStore({
    database: { kind: 'sqlite', path: join(dir, 'bot.sqlite') },
    keyring: new Keyring(parseEncryptionKeys(generateKey('k1'))),
  });
  await store.credentials.set(env.BENCH_TEAM ?? '', env.BENCH_CDN_KEY ?? '', {
    userId: 'U1',
    validated: true,
  });
  const { app } = buildApp({
    config,
    store,
    transport: new CdnTransport(),
    clock: systemClock,
    logger: createLogger({ level: 'silent' }),
    cdnBaseUrl: config.cdn.baseUrl ?? '',
    edgeCnameTarget: config.cdn.edgeCnameTarget ?? '',
  });
  await app.init();
  return app;
}

async function bare() {
  const app = new bolt.App({
    token: env.SLACK_BOT_TOKEN ?? '',
    signingSecret: env.SLACK_SIGNING_SECRET ?? '',
    clientOptions: { slackApiUrl: env.SLACK_API_URL ?? '' },
    logLevel: bolt.LogLevel.ERROR,
  });
  app.command('/cdn', async ({ ack }) => {
    await ack();
  });
  return app;
}

const app = which === 'bare' ? await bare() : await ours();
const server = (await app.start(0)) as import('node:http').Server;
process.stdout.write(`READY ${(server.address() as import('node:net').AddressInfo).port}\n`);
