// Start-up: .env → config → store → app → receiver. Each failure stops it with one line saying why.
import type { App } from '@slack/bolt';
import { buildApp } from './app.js';
import { CdnTransport } from './cdn/transport.js';
import { ChartPool } from './charts/render-pool.js';
import { systemClock } from './clock.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import type { AppDeps } from './deps.js';
import { type EnvFileLoad, loadEnvFile } from './env-file.js';
import type { Health } from './health.js';
import { exitWith, openStoreOrExit, stopOnSignals } from './lifecycle.js';
import { createLogger, type Logger } from './logger.js';
import { BotMetrics } from './observability/metrics.js';
import { type MetricsServer, startMetricsServer } from './observability/server.js';
import { slackStartFailure } from './slack/web-api-errors.js';
import type { Store } from './store/index.js';
import { loadKeyring } from './store/keyring.js';

/** Where development keys live (when ENCRYPTION_KEYS is unset outside production). */
const DATA_DIR = './data';

function readEnvFile(): EnvFileLoad | undefined {
  try {
    return loadEnvFile('.env');
  } catch (error) {
    exitWith(`cannot read .env: ${(error as Error).message}`);
  }
}

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    // Every problem at once, one line each, so one restart can fix them all.
    if (error instanceof ConfigError) {
      exitWith(
        error.problems
          .map((p) => `configuration error: ${p.variable}: ${p.problem}`)
          .join('\ncdn-chatops: '),
      );
    }
    throw error;
  }
}

/**
 * Before an exit at start: a process that exits while its chart workers are still loading their
 * modules aborts (SIGABRT) instead of exiting with its code; close() waits for them, bounded.
 */
async function stopCharts(charts: ChartPool): Promise<void> {
  await charts.close().catch(() => undefined);
}

async function startSlack(
  config: Config,
  store: Store,
  transport: CdnTransport,
  charts: ChartPool,
  logger: Logger,
  metrics: BotMetrics | undefined,
): Promise<{ app: App; deps: AppDeps; health: Health; up: Record<string, unknown> }> {
  const { app, deps, health } = buildApp({
    ...(metrics ? { metrics } : {}),
    config,
    store,
    transport,
    chartRenderer: charts,
    clock: systemClock,
    logger,
    // loadConfig requires both outside console mode.
    cdnBaseUrl: config.cdn.baseUrl ?? '',
    edgeCnameTarget: config.cdn.edgeCnameTarget ?? '',
  });
  const slackFailure = (error: unknown, token: 'bot token' | 'app-level token') =>
    slackStartFailure(error, {
      apiUrl: config.slack.apiUrl,
      token,
      timeoutMs: config.slackApi.timeoutMs,
    });
  try {
    // auth.test with the bot token (not in OAuth mode, whose tokens come with each installation).
    await app.init();
  } catch (error) {
    await stopCharts(charts);
    exitWith(slackFailure(error, 'bot token'));
  }
  try {
    await app.start(config.port);
  } catch (error) {
    await stopCharts(charts);
    // Socket Mode opens its connection with the app-level token; HTTP mode only listens.
    exitWith(
      config.mode === 'socket'
        ? slackFailure(error, 'app-level token')
        : `cannot listen on PORT ${config.port}: ${(error as Error).message}`,
    );
  }
  const probes = [
    'GET /livez',
    'GET /readyz',
    'GET /healthz',
    ...(metrics && config.metrics.port === undefined ? ['GET /metrics'] : []),
    // The HTTP API (docs/api.md): on in either mode once an admin made a token.
    'POST /api/v1/purges',
    'GET /api/v1/purges/{id}',
    'GET /api/v1/openapi.json',
  ];
  const up =
    config.mode === 'http'
      ? { port: config.port, endpoints: ['POST /slack/events', ...probes] }
      : { mode: 'socket', port: config.port, endpoints: probes };
  return { app, deps, health, up };
}

/** /metrics on METRICS_PORT, when set (otherwise buildApp serves it on PORT, or not at all). */
async function serveMetrics(
  config: Config,
  metrics: BotMetrics | undefined,
  logger: Logger,
): Promise<MetricsServer | undefined> {
  const port = config.metrics.port;
  if (!metrics || port === undefined) return undefined;
  try {
    const server = await startMetricsServer({
      metrics,
      port,
      logger,
      ...(config.metrics.token ? { token: config.metrics.token } : {}),
    });
    logger.info(
      { port: server.port, token: config.metrics.token !== undefined },
      'metrics served on GET /metrics',
    );
    return server;
  } catch (error) {
    exitWith(`cannot serve metrics on METRICS_PORT ${port}: ${(error as Error).message}`);
  }
}

async function main(): Promise<void> {
  // Before the config, so .env can supply it; variables already in the environment win.
  const envFile = readEnvFile();
  const config = readConfig();
  if (config.mode === 'console') {
    // Development only (loadConfig refuses it in production). Loaded here and nowhere else, so a
    // Slack start never loads src/dev/: the console, the fake Slack, the sandbox.
    // biome-ignore lint/style/noRestrictedImports: the development console loads only in console mode, on demand
    const { runConsole } = await import('./dev/console/main.js');
    await runConsole(config, { envFile });
    return;
  }
  const logger = createLogger({ level: config.logLevel });
  logger.info(
    {
      mode: config.mode,
      database: config.database.kind,
      // Names only: the values may be secrets.
      ...(envFile ? { envFile } : {}),
    },
    'starting cdn-chatops',
  );
  const store = await openStoreOrExit(
    config,
    () => loadKeyring(config, { dataDir: DATA_DIR, logger }),
    logger,
  );
  const transport = new CdnTransport({ limits: config.cdnLimits });
  // Charts are drawn in worker threads, off the event loop that acknowledges requests.
  const charts = new ChartPool(config.charts);
  logger.info({ threads: charts.threads, queue: charts.queue }, 'chart workers started');
  // One registry for the process, recorded through taps (src/observability): services never see it.
  const metrics = config.metrics.enabled ? new BotMetrics() : undefined;
  const metricsServer = await serveMetrics(config, metrics, logger);
  const { app, deps, health, up } = await startSlack(
    config,
    store,
    transport,
    charts,
    logger,
    metrics,
  );
  // Every job kind and tick, started here and nowhere else; stopped before the store closes.
  deps.background.start();
  stopOnSignals({
    logger,
    transport,
    store,
    deadlineMs: config.jobs.shutdownMs,
    stopMode: async () => {
      // Not ready from the first moment: the load balancer stops sending new work here.
      health.markDraining();
      await Promise.all([app.stop(), deps.background.stop(config.jobs.shutdownMs)]);
      await charts.close();
      await metricsServer?.close();
    },
  });
  // Said once a SIGTERM would stop it gracefully: a supervisor (or a test) that signals as soon as
  // it reads this line never kills it mid-start.
  logger.info(up, 'cdn-chatops is up');
}

await main();
