// The console's database and its sandbox's state go together: a zone the console created is in
// both or in neither. At start, with one of them and not the other, both start afresh (the old
// database is kept aside), and the console says so in one line.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { DatabaseInUseError, holdSqliteFile } from '../../store/process-lock.js';
import type { SandboxSnapshot } from '../sandbox/server.js';
import { readSandboxFile } from '../sandbox/state-file.js';

export interface ConsoleData {
  /** The sandbox's state to restore; absent, the sandbox starts from its seed. */
  snapshot?: SandboxSnapshot;
  /** What was reset and why, in one line; absent when nothing was. */
  notice?: string;
}

/** The SQLite files of a database: the file itself and what SQLite keeps beside it. */
const SQLITE_SUFFIXES = ['', '-wal', '-shm'];

/**
 * Reads the sandbox's state kept at `sandboxFile` if the console's `database` is there too; with
 * only one of them, starts both afresh: the database is moved to `<database>.old` (replacing an
 * earlier one) and the sandbox's file is left to be written again from the seed. A database in
 * use by another process is not touched (opening it then refuses, saying so).
 */
export function consoleData(paths: { database: string; sandboxFile: string }): ConsoleData {
  const { database, sandboxFile } = paths;
  const read = readSandboxFile(sandboxFile);
  const hasDatabase = existsSync(database);
  if (!hasDatabase)
    return read.kind === 'missing'
      ? {}
      : {
          notice: `${database} is missing while the sandbox's state (${sandboxFile}) was kept: the sandbox starts afresh too.`,
        };
  if (read.kind === 'read') return { snapshot: read.snapshot };
  let lock: { release(): void };
  try {
    lock = holdSqliteFile(database);
  } catch (error) {
    if (error instanceof DatabaseInUseError) return {};
    throw error;
  }
  try {
    const old = `${database}.old`;
    for (const suffix of SQLITE_SUFFIXES) rmSync(`${old}${suffix}`, { force: true });
    for (const suffix of SQLITE_SUFFIXES)
      if (existsSync(`${database}${suffix}`)) renameSync(`${database}${suffix}`, `${old}${suffix}`);
    const why =
      read.kind === 'missing'
        ? `The sandbox's state (${sandboxFile}) is missing`
        : `The sandbox's state (${sandboxFile}) is unreadable (${read.reason})`;
    return {
      notice: `${why} while ${database} is there: both start afresh (the old database is now ${old}).`,
    };
  } finally {
    lock.release();
  }
}
