// Opens the database named by DATABASE_URL: embedded SQLite (WAL) or a PostgreSQL pool.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  Kysely,
  type LogEvent,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type SqliteDatabase,
  SqliteDialect,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { type DatabaseConfig, type DatabaseLimits, DEFAULT_DATABASE_LIMITS } from '../config.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Database } from './schema.js';

export type SqlDialect = 'sqlite' | 'postgres';

/** Distinct SQL texts kept prepared: the store issues a few dozen shapes. */
const PREPARED_STATEMENTS = 256;

/**
 * Kysely's SQLite driver prepares every query anew; preparing is most of a small write's cost (a
 * purge writes once per batch). The same SQL text reuses its statement. Safe because nothing here
 * streams a result (a statement being iterated could not serve a second query meanwhile).
 */
function keepStatements(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const prepared = new LRUCache<string, BetterSqlite3.Statement>({ max: PREPARED_STATEMENTS });
  return {
    close: () => sqlite.close(),
    prepare: (text) => {
      let statement = prepared.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        prepared.set(text, statement);
      }
      return statement;
    },
  };
}

const INT8_OID = 20;

/** Where a PostgreSQL pool stands: connections open, of which idle, and queries waiting for one. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL's timeouts, keepalive and pool size; SQLite ignores them. */
  limits?: Partial<DatabaseLimits>;
  /** Told when a connection is lost (it is replaced on next use, the process stays up). */
  logger?: Logger;
  /** Told of every statement run, once it has (Kysely's `log`): for tests and benchmarks. */
  onQuery?: (event: LogEvent) => void;
}

export function openDatabase(
  config: DatabaseConfig,
  options: OpenDatabaseOptions = {},
): { db: Kysely<Database>; dialect: SqlDialect; poolStats?: () => PoolStats } {
  if (config.kind === 'sqlite') {
    if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
    const sqlite = new BetterSqlite3(config.path);
    // WAL lets readers run beside the writer; NORMAL is durable across app crashes in WAL mode.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    return {
      db: new Kysely<Database>({
        dialect: new SqliteDialect({ database: keepStatements(sqlite) }),
        ...(options.onQuery ? { log: options.onQuery } : {}),
      }),
      dialect: 'sqlite',
    };
  }
  const limits = { ...DEFAULT_DATABASE_LIMITS, ...options.limits };
  const pool = new pg.Pool({
    connectionString: config.url,
    max: limits.poolSize,
    // Opening a connection, and waiting for a free one: past this, storage is unavailable.
    connectionTimeoutMillis: limits.connectTimeoutMs,
    // 0 (migrations): no limit. The client gives up; the server cancels the statement too.
    ...(limits.queryTimeoutMs > 0
      ? { query_timeout: limits.queryTimeoutMs, statement_timeout: limits.queryTimeoutMs }
      : {}),
    idle_in_transaction_session_timeout: limits.idleInTransactionTimeoutMs,
    // A peer gone without a word (a partition, a failover) is noticed instead of waited on.
    keepAlive: true,
    keepAliveInitialDelayMillis: limits.keepAliveMs,
    // Epoch-millisecond bigints fit a JS number; pg would hand them back as strings.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary'
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  const lost = (error: Error) =>
    options.logger?.warn(
      { err: error },
      'database connection lost; a new one is opened when needed',
    );
  // An idle connection's error (pg_terminate_backend, a failover) reaches the pool; a connection
  // in use between two statements reports it on itself. Unheard, either would end the process.
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', lost));
  return {
    db: new Kysely<Database>({
      dialect: new PostgresDialect({ pool: boundedPool(pool, options.logger) }),
      ...(options.onQuery ? { log: options.onQuery } : {}),
    }),
    dialect: 'postgres',
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
  };
}

/**
 * The pool as Kysely sees it: a connection that timed out or broke is dropped when released (the
 * pool opens a fresh one instead of handing out one stuck behind a black hole), and every such
 * failure, or a failure to get a connection, becomes `storage_unavailable`.
 */
function boundedPool(pool: pg.Pool, logger: Logger | undefined): PostgresPool {
  const unavailable = (error: unknown, what: string) => {
    logger?.warn({ err: error }, `database ${what}: storage unavailable`);
    return storageUnavailable(error);
  };
  return {
    async connect() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw unavailable(error, 'connection not had');
      }
      let broken: Error | undefined;
      const query = async (text: unknown, parameters?: readonly unknown[]) => {
        if (typeof text !== 'string') throw new TypeError('cursors are not used by this store');
        try {
          return await client.query(text, parameters as unknown[]);
        } catch (error) {
          if (!isUnavailable(error)) throw error;
          broken = error as Error;
          throw unavailable(error, 'query failed, its connection dropped');
        }
      };
      return {
        query: query as unknown as PostgresPoolClient['query'],
        release: () => client.release(broken),
      };
    },
    end: () => pool.end(),
  };
}

/** Error codes of a connection that failed or went away (Node's, and SQLSTATE classes 08, 57P). */
const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Whether a database error says "not reachable, or not answering", rather than "wrong query". */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof AppError && error.code === 'storage_unavailable') return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    // 08: connection exception; 57P01-3: terminated by an admin, crash shutdown, cannot connect
    // now; 57014: cancelled (statement_timeout).
    if (code.startsWith('08') || code.startsWith('57P') || code === '57014') return true;
    if (NETWORK_ERRORS.has(code)) return true;
  }
  return (
    typeof message === 'string' &&
    /Query read timeout|timeout exceeded when trying to connect|Connection terminated|connection error|Connection ended/i.test(
      message,
    )
  );
}

function storageUnavailable(cause: unknown): AppError {
  return cause instanceof AppError
    ? cause
    : new AppError({ code: 'storage_unavailable' }, { cause });
}
