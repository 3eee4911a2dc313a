// What both entry points (src/main.ts, src/dev/console/main.ts) share: one-line exits, opening the
// store, the background jobs, and a graceful stop.
import type { CdnTransport } from './cdn/transport.js';
import { systemClock } from './clock.js';
import { ConfigError, type DatabaseConfig } from './config.js';
import type { AppDeps } from './deps.js';
import { ReportScheduler } from './jobs/report-scheduler.js';
import type { Logger } from './logger.js';
import { SlackReportPoster } from './slack/report-poster.js';
import type { Keyring } from './store/crypto.js';
import { openStore, type Store } from './store/index.js';

/** How long a graceful stop may take before the process exits anyway. */
const STOP_TIMEOUT_MS = 10_000;

/** Stops start-up with one line on stderr and a non-zero exit. */
export function exitWith(message: string): never {
  console.error(`cdn-chatops: ${message}`);
  process.exit(1);
}

export async function openStoreOrExit(
  database: DatabaseConfig,
  keyring: () => Promise<Keyring>,
  logger: Logger,
): Promise<Store> {
  try {
    return await openStore({ database, keyring: await keyring(), logger });
  } catch (error) {
    if (error instanceof ConfigError) exitWith(`configuration error: ${error.message}`);
    // The URL may carry a password, so the database is named by its kind only.
    exitWith(`cannot open the ${database.kind} database: ${(error as Error).message}`);
  }
}

/** Background work every mode runs; with several replicas each item is claimed by one of them. */
export function startBackgroundJobs(deps: AppDeps, store: Store, logger: Logger): AbortController {
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

/**
 * Stops on SIGTERM or SIGINT: the mode first (receiver, jobs), then the transport and the store,
 * then exits 0 (1 if that fails or takes too long). Returns the same stop for other reasons.
 */
export function stopOnSignals(options: {
  logger: Logger;
  stopMode: () => Promise<void>;
  transport: CdnTransport;
  store: Store;
}): (reason: string) => void {
  const { logger, transport, store } = options;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('graceful shutdown timed out');
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
    options
      .stopMode()
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
  return stop;
}
