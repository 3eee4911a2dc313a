// What both entry points (src/main.ts, src/dev/console/main.ts) share: one-line exits, opening the
// store, the background jobs, and a graceful stop.
import type { CdnTransport } from './cdn/transport.js';
import { ConfigError, type DatabaseConfig } from './config.js';
import type { AppDeps } from './deps.js';
import type { Logger } from './logger.js';
import type { Keyring } from './store/crypto.js';
import { openStore, type Store } from './store/index.js';

/** What a graceful stop may take beyond the jobs' own deadline before the process exits anyway. */
const STOP_MARGIN_MS = 5_000;

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
export function startBackgroundJobs(deps: AppDeps): { stop(deadlineMs: number): Promise<void> } {
  const loops = new AbortController();
  // Durable work: purges, approved purge-everything.
  deps.runner.start();
  // Expires purge-everything requests nobody approved.
  void deps.approvals.sweep(loops.signal);
  // Turns due daily reports into jobs (the runner posts them).
  void deps.reports.run(loops.signal);
  return {
    // Nothing new is claimed; running jobs pause at a step boundary, or are released at the deadline.
    async stop(deadlineMs) {
      loops.abort();
      await deps.runner.stop(deadlineMs);
    },
  };
}

/**
 * Stops on SIGTERM or SIGINT: the mode first (no new work; the receiver closes after its in-flight
 * requests; running jobs pause within `deadlineMs`), then the transport and the store, then exits 0
 * (1 if that fails or takes too long). A second signal exits at once. Returns the same stop.
 */
export function stopOnSignals(options: {
  logger: Logger;
  stopMode: () => Promise<void>;
  transport: CdnTransport;
  store: Store;
  deadlineMs: number;
}): (reason: string) => void {
  const { logger, transport, store } = options;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'stopping at once');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, deadlineMs: options.deadlineMs }, 'shutting down');
    setTimeout(() => {
      logger.error('graceful shutdown timed out');
      process.exit(1);
    }, options.deadlineMs + STOP_MARGIN_MS).unref();
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
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return stop;
}
