// Start-up: config → store → app → receiver. A configuration problem stops it with one line.
import { type Config, ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { SANDBOX_DEMO_KEY, startSandbox } from './sandbox/server.js';
import { openStore, type Store } from './store/index.js';
import { loadKeyring } from './store/keyring.js';

/** Where development keys and console output live. */
const DATA_DIR = './data';

function exitWith(message: string): never {
  console.error(`cdn-chatops: ${message}`);
  process.exit(1);
}

async function startConsole(config: Config, logger: Logger): Promise<() => Promise<void>> {
  // Without a CDN of its own, the console brings the sandbox along so everything works offline.
  const sandbox = config.cdn.baseUrl ? undefined : await startSandbox();
  const baseUrl = config.cdn.baseUrl ?? sandbox?.baseUrl;
  logger.info(
    { baseUrl, demoKey: sandbox ? SANDBOX_DEMO_KEY : undefined },
    sandbox ? 'embedded CDN sandbox started' : 'using the configured CDN API',
  );
  logger.warn('the interactive console is not built yet; the CDN sandbox stays up until Ctrl-C');
  return async () => {
    await sandbox?.close();
  };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) exitWith(`configuration error: ${error.message}`);
    throw error;
  }
  const logger = createLogger({ level: config.logLevel });
  logger.info({ mode: config.mode, database: config.database.kind }, 'starting cdn-chatops');

  let store: Store;
  try {
    const keyring = await loadKeyring(config, { dataDir: DATA_DIR, logger });
    store = await openStore({ database: config.database, keyring, logger });
  } catch (error) {
    if (error instanceof ConfigError) exitWith(`configuration error: ${error.message}`);
    // The URL may carry a password, so the database is named by its kind only.
    exitWith(`cannot open the ${config.database.kind} database: ${(error as Error).message}`);
  }

  if (config.mode !== 'console') {
    await store.close();
    exitWith(`${config.mode} mode is not built yet; use BOT_MODE=console`);
  }
  const stopConsole = await startConsole(config, logger);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      void stopConsole()
        .then(() => store.close())
        .then(() => process.exit(0));
    });
  }
}

await main();
