// The console's start-up, loaded by src/main.ts in console mode only: a database and a key of its
// own under ./data (never DATABASE_URL or ENCRYPTION_KEYS), the embedded sandbox's state beside
// them, logs to a file, and the background jobs over that database alone.
import { join } from 'node:path';
import pino from 'pino';
import { CdnTransport } from '../../cdn/transport.js';
import type { Config, DatabaseConfig } from '../../config.js';
import type { EnvFileLoad } from '../../env-file.js';
import { openStoreOrExit, stopOnSignals } from '../../lifecycle.js';
import { createLogger } from '../../logger.js';
import { DEV_KEY_FILE, loadKeyring } from '../../store/keyring.js';
import { consoleData } from './data.js';
import { startConsole } from './start.js';

/** Where the console keeps everything: logs, charts, its database and its key. */
const DATA_DIR = './data';
/** The console's own database, whatever DATABASE_URL says. */
const CONSOLE_DATABASE = join(DATA_DIR, 'console.sqlite');
/** The console's own key folder, apart from a deployment's ./data/encryption-keys. */
const CONSOLE_KEY_DIR = join(DATA_DIR, 'console');
/** The embedded sandbox's state, beside the database that refers to its zones. */
const SANDBOX_FILE = join(CONSOLE_KEY_DIR, 'sandbox.json');

export async function runConsole(
  config: Config,
  options: { envFile: EnvFileLoad | undefined },
): Promise<void> {
  // The console owns the terminal, so its logs go to a file.
  const logFile = join(DATA_DIR, 'console.log');
  const logger = createLogger({
    level: config.logLevel,
    destination: pino.destination({ dest: logFile, mkdir: true, sync: true }),
  });
  const database: DatabaseConfig = { kind: 'sqlite', path: CONSOLE_DATABASE };
  logger.info(
    {
      mode: config.mode,
      database: database.kind,
      // Names only: the values may be secrets.
      ...(options.envFile ? { envFile: options.envFile } : {}),
    },
    'starting cdn-chatops',
  );
  logger.info(
    { database: CONSOLE_DATABASE, keyFile: join(CONSOLE_KEY_DIR, DEV_KEY_FILE) },
    "the console uses a database and a key of its own; DATABASE_URL and ENCRYPTION_KEYS aren't used",
  );
  // With the embedded sandbox (no CDN_API_BASE_URL), its state and the database go together.
  const sandboxed = config.cdn.baseUrl === undefined;
  const data = sandboxed
    ? consoleData({ database: CONSOLE_DATABASE, sandboxFile: SANDBOX_FILE })
    : undefined;
  if (data?.notice) logger.warn({ notice: data.notice }, 'console data started afresh');
  const store = await openStoreOrExit(
    { database, databaseLimits: config.databaseLimits },
    () =>
      loadKeyring(
        { encryptionKeys: [], nodeEnv: 'development' },
        // Its "ENCRYPTION_KEYS is not set" warning is not about the console: the line above says it.
        { dataDir: CONSOLE_KEY_DIR, logger: logger.child({}, { level: 'error' }) },
      ),
    logger,
  );
  const transport = new CdnTransport({ limits: config.cdnLimits });
  const running = await startConsole({
    config: { ...config, database, encryptionKeys: [] },
    store,
    transport,
    logger,
    input: process.stdin,
    output: process.stdout,
    outDir: join(DATA_DIR, 'out'),
    database: CONSOLE_DATABASE,
    ...(sandboxed
      ? {
          sandboxState: {
            file: SANDBOX_FILE,
            ...(data?.snapshot ? { snapshot: data.snapshot } : {}),
          },
        }
      : {}),
    ...(data?.notice ? { notice: data.notice } : {}),
  });
  process.stdout.write(`(logs: ${logFile})\n`);
  // Every job kind and tick, started here and nowhere else in console mode (startConsole starts
  // none): over the console's own database only, its pretend workspace and nothing else.
  const { background } = running.deps;
  background.start();
  const stop = stopOnSignals({
    logger,
    transport,
    store,
    deadlineMs: config.jobs.shutdownMs,
    stopMode: async () => {
      await Promise.all([running.close(), background.stop(config.jobs.shutdownMs)]);
    },
  });
  // The console ends with its input (Ctrl-D, /quit, or the end of a piped script).
  void running.run().then(() => stop('end of input'));
}
