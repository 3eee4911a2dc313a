// Start-up: config → store → app → receiver. Each failure stops it with one line saying why.
import { join } from 'node:path';
import type { App } from '@slack/bolt';
import pino from 'pino';
import { buildApp } from './app.js';
import { CdnTransport } from './cdn/transport.js';
import { systemClock } from './clock.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import type { AppDeps } from './deps.js';
import { startConsole } from './dev/console/start.js';
import { ReportScheduler } from './jobs/report-scheduler.js';
import { createLogger, type Logger } from './logger.js';
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

/** Background work every mode runs; with several replicas each item is claimed by one of them. */
function startBackgroundJobs(deps: AppDeps, store: Store, logger: Logger): AbortController {
  const jobs = new AbortController();
  // Expires purge-everything requests nobody approved.
  void deps.approvals.sweep(jobs.signal);
  // Posts daily reports.
  const scheduler = new ReportScheduler({
    store,
    reports: deps.reports,
    poster: new SlackReportPoster(deps.clients),
    clock: systemClock,
    logger,
  });
  void scheduler.run(jobs.signal);
  return jobs;
}

async function main(): Promise<void> {
  const config = readConfig();
  // The console owns the terminal, so its logs go to a file.
  const logFile = join(DATA_DIR, 'console.log');
  const logger = createLogger({
    level: config.logLevel,
    ...(config.mode === 'console'
      ? { destination: pino.destination({ dest: logFile, mkdir: true, sync: true }) }
      : {}),
  });
  logger.info({ mode: config.mode, database: config.database.kind }, 'starting cdn-chatops');
  const store = await openStoreOrExit(config, logger);
  const transport = new CdnTransport();

  let stopMode: () => Promise<void>;
  let consoleRun: Promise<void> | undefined;
  if (config.mode === 'console') {
    const running = await startConsole({
      config,
      store,
      transport,
      logger,
      input: process.stdin,
      output: process.stdout,
      outDir: join(DATA_DIR, 'out'),
    });
    process.stdout.write(`(logs: ${logFile})\n`);
    const jobs = startBackgroundJobs(running.deps, store, logger);
    consoleRun = running.run();
    stopMode = async () => {
      jobs.abort();
      await running.close();
    };
  } else {
    const { app, deps } = await startSlack(config, store, transport, logger);
    const jobs = startBackgroundJobs(deps, store, logger);
    stopMode = async () => {
      jobs.abort();
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
  // The console ends with its input (Ctrl-D, /quit, or the end of a piped script).
  void consoleRun?.then(() => stop('end of input'));
}

await main();
