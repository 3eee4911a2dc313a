// The embedded SQLite database belongs to one process: a second bot on the same file is refused at
// start (PostgreSQL is the way to run several replicas). The lock is SQLite's own exclusive lock,
// held on a file beside the database: the operating system releases it when the process ends,
// however it ends, so a crash leaves nothing stale behind.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

export class DatabaseInUseError extends Error {
  override readonly name = 'DatabaseInUseError';
  readonly code = 'database_in_use';
  constructor(readonly path: string) {
    super(
      `another process is using ${path}: the embedded SQLite database serves one process; ` +
        'to run several replicas, use PostgreSQL (DATABASE_URL=postgres://…)',
    );
  }
}

/** Takes the database file for this process, or throws DatabaseInUseError at once. */
export function holdSqliteFile(path: string): { release(): void } {
  // The database's folder may not exist yet (a first start): the lock lives beside the database.
  mkdirSync(dirname(path), { recursive: true });
  const lock = new BetterSqlite3(`${path}.lock`);
  try {
    // Kept until this connection closes: no other process can take it meanwhile.
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.pragma('busy_timeout = 0');
    lock.exec('BEGIN EXCLUSIVE; COMMIT;');
  } catch (error) {
    lock.close();
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new DatabaseInUseError(path);
    throw error;
  }
  return { release: () => lock.close() };
}
