// Start-up: config → store → app → receiver. A configuration problem stops it with one line.
import { type Config, ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { SANDBOX_DEMO_KEY, startSandbox } from './sandbox/server.js';

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`cdn-chatops: configuration error: ${error.message}`);
    process.exit(1);
  }
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
  const config = readConfig();
  const logger = createLogger({ level: config.logLevel });
  logger.info({ mode: config.mode }, 'starting cdn-chatops');
  if (config.mode !== 'console') {
    logger.fatal(
      { mode: config.mode },
      'the Slack receivers are not built yet; use BOT_MODE=console',
    );
    process.exit(1);
  }
  const stop = await startConsole(config, logger);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      void stop().then(() => process.exit(0));
    });
  }
}

await main();
