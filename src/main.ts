// Start-up: config → store → app → receiver. Each failure stops it with one line saying why.
import type { App } from '@slack/bolt';
import { buildApp } from './app.js';
import { CdnTransport } from './cdn/transport.js';
import { systemClock } from './clock.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import type { AppDeps } from './deps.js';
import { createLogger, type Logger } from './logger.js';
import { ReportScheduler } from './reports/scheduler.js';
import { SANDBOX_DEMO_KEY, startSandbox } from './sandbox/server.js';
import { SlackReportPoster } from './slack/report-poster.js';
import { openStore, type Store } from './store/index.js';
import { loadKeyring } from './store/keyring.js';

/** Where development keys and console output live. */
const DATA_DIR = './data';
/** How long a graceful stop may take before the process exits anyway. */
const STOP_TIMEOUT_MS = 10_000;

function exitWith(message: string): never {
  console.error(`cdn-chatops: ${message}`);
  process.exit(1);
}

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) exitWith(`configuration error: ${error.message}`);
    throw error;
  }
}

async function openStoreOrExit(config: Config, logger: Logger): Promise<Store> {
  try {
    const keyring = await loadKeyring(config, { dataDir: DATA_DIR, logger });
    return await openStore({ database: config.database, keyring, logger });
  } catch (error) {
    if (error instanceof ConfigError) exitWith(`configuration error: ${error.message}`);
    // The URL may carry a password, so the database is named by its kind only.
    exitWith(`cannot open the ${config.database.kind} database: ${(error as Error).message}`);
  }
}

async function startSlack(
  config: Config,
  store: Store,
  transport: CdnTransport,
  logger: Logger,
): Promise<{ app: App; deps: AppDeps }> {
  const { app, deps } = buildApp({
    config,
    store,
    transport,
    clock: systemClock,
    logger,
    // loadConfig requires both outside console mode.
    cdnBaseUrl: config.cdn.baseUrl ?? '',
    edgeCnameTarget: config.cdn.edgeCnameTarget ?? '',
  });
  try {
    await app.init();
  } catch (error) {
    exitWith(`Slack refused the app's credentials: ${(error as Error).message}`);
  }
  await app.start(config.port);
  logger.info(
    config.mode === 'http'
      ? { port: config.port, endpoints: ['POST /slack/events', 'GET /healthz'] }
      : { mode: 'socket' },
    'cdn-chatops is up',
  );
  return { app, deps };
}

async function startConsole(config: Config, logger: Logger): Promise<() => Promise<void>> {
  // Without a CDN of its own, the console brings the sandbox along so everything works offline.
  const sandbox = config.cdn.baseUrl ? undefined : await startSandbox();
  logger.info(
    {
      baseUrl: config.cdn.baseUrl ?? sandbox?.baseUrl,
      demoKey: sandbox ? SANDBOX_DEMO_KEY : undefined,
    },
    sandbox ? 'embedded CDN sandbox started' : 'using the configured CDN API',
  );
  logger.warn('the interactive console is not built yet; the CDN sandbox stays up until Ctrl-C');
  return async () => {
    await sandbox?.close();
  };
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger({ level: config.logLevel });
  logger.info({ mode: config.mode, database: config.database.kind }, 'starting cdn-chatops');
  const store = await openStoreOrExit(config, logger);
  const transport = new CdnTransport();

  let stopMode: () => Promise<void>;
  if (config.mode === 'console') {
    stopMode = await startConsole(config, logger);
  } else {
    const { app, deps } = await startSlack(config, store, transport, logger);
    // Expires purge-everything requests nobody approved; every replica sweeps, each request once.
    const sweeper = new AbortController();
    void deps.approvals.sweep(sweeper.signal);
    // Posts daily reports; with several replicas each occurrence is claimed by one of them.
    const scheduler = new ReportScheduler({
      store,
      reports: deps.reports,
      poster: new SlackReportPoster(deps.clients),
      clock: systemClock,
      logger,
    });
    void scheduler.run(sweeper.signal);
    stopMode = async () => {
      sweeper.abort();
      await app.stop();
    };
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('graceful shutdown timed out');
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
    stopMode()
      .then(() => transport.close())
      .then(() => store.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

await main();
