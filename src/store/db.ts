// Opens the database named by DATABASE_URL: embedded SQLite (WAL) or a PostgreSQL pool.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect } from 'kysely';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
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

export function openDatabase(
  config: DatabaseConfig,
  options: { poolSize?: number } = {},
): { db: Kysely<Database>; dialect: SqlDialect } {
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
      }),
      dialect: 'sqlite',
    };
  }
  const pool = new pg.Pool({
    connectionString: config.url,
    max: options.poolSize ?? 10,
    // Epoch-millisecond bigints fit a JS number; pg would hand them back as strings.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary'
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  return {
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    dialect: 'postgres',
  };
}
