// Stores for tests on both backends: a temporary SQLite file, and a fresh schema in the real
// PostgreSQL. Postgres tests skip locally when it is unreachable, but never under .ci/run.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseConfig, EncryptionKey } from '../../src/config.js';
import { Keyring } from '../../src/store/crypto.js';
import { openStore, type Store, type StoreOptions } from '../../src/store/index.js';
import { afterEachTest } from './after-each-test.js';
import { InstantClock, type TestClock } from './clock.js';

export const POSTGRES_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function probePostgres(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const postgresUp = await probePostgres();
if (!postgresUp) {
  if (process.env.CI_REQUIRE_POSTGRES) {
    throw new Error(`PostgreSQL is required in CI but does not answer at ${POSTGRES_URL}`);
  }
  process.stderr.write(
    `\n[store tests] PostgreSQL unreachable at ${POSTGRES_URL}: its tests are skipped.\n`,
  );
}

export type Backend = 'sqlite' | 'postgres';

export const BACKENDS: ReadonlyArray<{ backend: Backend; skip: boolean }> = [
  { backend: 'sqlite', skip: false },
  { backend: 'postgres', skip: !postgresUp },
];

export const testKey = (id: string, fill: number): EncryptionKey => ({
  id,
  key: Buffer.alloc(32, fill),
});

const cleanups: Array<() => Promise<void>> = [];
afterEachTest(async () => {
  // Stores close before their databases are removed.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A database of its own for one test; the same one can be opened several times (replicas). */
export async function testDatabase(backend: Backend): Promise<DatabaseConfig> {
  if (backend === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'cdn-store-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return { kind: 'sqlite', path: join(dir, 'test.sqlite') };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`drop schema ${schema} cascade`);
    await client.end();
  });
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { kind: 'postgres', url: url.toString() };
}

export interface StoreFixture {
  store: Store;
  clock: TestClock;
  database: DatabaseConfig;
  keyring: Keyring;
}

export async function testStore(
  backend: Backend,
  options: {
    keys?: EncryptionKey[];
    database?: DatabaseConfig;
    clock?: TestClock;
    poolSize?: number;
    /** Put before each id: stores that share one database (replicas) need ids of their own. */
    idPrefix?: string;
    /** Told of every statement the store runs. */
    onQuery?: StoreOptions['onQuery'];
  } = {},
): Promise<StoreFixture> {
  const database = options.database ?? (await testDatabase(backend));
  const clock = options.clock ?? new InstantClock();
  const keyring = new Keyring(options.keys ?? [testKey('k1', 1)]);
  let sequence = 0;
  const store = await openStore({
    database,
    keyring,
    clock,
    newId: () => `${options.idPrefix ?? ''}id-${++sequence}`,
    ...(options.poolSize === undefined ? {} : { limits: { poolSize: options.poolSize } }),
    ...(options.onQuery ? { onQuery: options.onQuery } : {}),
  });
  cleanups.push(() => store.close());
  return { store, clock, database, keyring };
}

/**
 * Stores on one new database, as replicas would open it: three on PostgreSQL, one on SQLite (a
 * SQLite database is one process's, see process-lock.ts). Each has ids of its own; the first
 * comes first.
 */
export async function replicaStores(
  backend: Backend,
  poolSize: number,
): Promise<[StoreFixture, ...StoreFixture[]]> {
  const database = await testDatabase(backend);
  const prefixes = backend === 'postgres' ? ['a', 'b', 'c'] : ['a'];
  const [first, ...others] = await Promise.all(
    prefixes.map((idPrefix) => testStore(backend, { database, poolSize, idPrefix })),
  );
  if (!first) throw new Error('no replica');
  return [first, ...others];
}
