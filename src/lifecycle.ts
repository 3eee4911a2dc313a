// What both entry points (src/main.ts, src/dev/console/main.ts) share: one-line exits, opening the
// store, and a graceful stop (the mode and its background work first, then the store).

import { setTimeout as delay } from 'node:timers/promises';
import type { CdnTransport } from './cdn/transport.js';
import { type Config, ConfigError, type DatabaseConfig } from './config.js';
import { AppError } from './errors.js';
import type { Logger } from './logger.js';
import { databaseLoginRefusal, unreachableOf, unreachableReason } from './network-failures.js';
import type { Keyring } from './store/crypto.js';
import { isUnavailable } from './store/db.js';
import { openStore, type Store } from './store/index.js';
import { DatabaseInUseError } from './store/process-lock.js';

/** What a graceful stop may take beyond the jobs' own deadline before the process exits anyway. */
const STOP_MARGIN_MS = 5_000;

/** Stops start-up with one line on stderr and a non-zero exit. */
export function exitWith(message: string): never {
  console.error(`cdn-chatops: ${message}`);
  process.exit(1);
}

/** Where the database is, for a log line or an exit: never a password. */
export function describeDatabase(database: DatabaseConfig): string {
  if (database.kind === 'sqlite') return `SQLite database ${database.path}`;
  const url = new URL(database.url);
  return `PostgreSQL database ${url.pathname.slice(1) || 'postgres'} at ${url.hostname}:${url.port || '5432'}`;
}

/** An error's own words, or its cause's when it only says "storage unavailable". */
function reasonOf(error: unknown): string {
  const cause = error instanceof AppError ? (error.cause ?? error) : error;
  return (cause as Error)?.message || String(cause);
}

/**
 * Why the database could not be opened, in one line naming where it is and never the password:
 * it refused the login ("The PostgreSQL database app at db:5432 refused the login for user bot
 * (28P01)"), it could not be reached (DNS, a refused connection, a timeout, TLS), or its own words.
 */
export function databaseFailure(
  error: unknown,
  config: Pick<Config, 'database' | 'databaseLimits'>,
): string {
  const where = describeDatabase(config.database);
  const refused = databaseLoginRefusal(error);
  if (refused && config.database.kind === 'postgres') {
    const user = decodeURIComponent(new URL(config.database.url).username) || 'postgres';
    return `The ${where} refused the login for user ${user} (${refused})`;
  }
  const unreachable = unreachableOf(error);
  if (unreachable) {
    // node-postgres says its connect timeout in words only: it is the configured one.
    const timeoutMs =
      unreachable.kind === 'timeout' && !unreachable.code
        ? config.databaseLimits.connectTimeoutMs
        : undefined;
    return `Cannot reach the ${where}: ${unreachableReason(unreachable, timeoutMs)}`;
  }
  return isUnavailable(error)
    ? `Cannot reach the ${where}: ${reasonOf(error)}`
    : `cannot open the ${where}: ${reasonOf(error)}`;
}

/**
 * Opens the store for a bot process. An unreachable PostgreSQL is tried again with backoff, one log
 * line a try, for up to `databaseLimits.startTimeoutMs` (a database starting beside the bot, a
 * failover under way); then, or for anything else (a login refused, a SQLite file another process
 * holds), the process stops with one line naming the database and why (databaseFailure).
 */
export async function openStoreOrExit(
  config: Pick<Config, 'database' | 'databaseLimits'>,
  keyring: () => Promise<Keyring>,
  logger: Logger,
): Promise<Store> {
  const { database, databaseLimits: limits } = config;
  const keys = await keyring();
  const where = describeDatabase(database);
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await openStore({ database, keyring: keys, logger, limits, singleProcess: true });
    } catch (error) {
      if (error instanceof ConfigError) exitWith(`configuration error: ${error.message}`);
      if (error instanceof DatabaseInUseError) exitWith(error.message);
      const elapsed = Date.now() - started;
      // A refused login is not tried again: it does not pass by itself.
      if (!isUnavailable(error) || databaseLoginRefusal(error)) {
        exitWith(databaseFailure(error, config));
      }
      if (elapsed >= limits.startTimeoutMs) {
        exitWith(
          `${databaseFailure(error, config)} (tried ${attempt} time${attempt === 1 ? '' : 's'} in ${Math.round(elapsed / 1000)} s)`,
        );
      }
      const retryInMs = Math.min(5_000, 250 * 2 ** (attempt - 1), limits.startTimeoutMs - elapsed);
      logger.warn(
        { attempt, database: where, retryInMs, reason: databaseFailure(error, config) },
        'database not reachable yet; trying again',
      );
      await delay(retryInMs);
    }
  }
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
