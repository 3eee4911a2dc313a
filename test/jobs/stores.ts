// Stores for the job and seen-request tests, immune to two faults outside them that otherwise make
// them fail at random while other PostgreSQL tests run (other files, other checkouts):
// - BUG (src/store/migrations.ts): Kysely's Migrator, run without `migrationTableSchema`, looks
//   for its kysely_migration tables in every schema of the database; once another test's schema
//   has them it skips making its own, then fails with `relation "kysely_migration_lock" does not
//   exist`. Pinned by an it.fails in test/store/jobs.test.ts. Here the fresh schema gets them first.
// - The Migrator's introspection reads the catalog of every schema and now and then fails while
//   another schema is being altered or dropped (`column … does not exist`): opening is retried.
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import type { DatabaseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/store/db.js';
import { type Backend, type StoreFixture, testDatabase, testStore } from '../helpers/store.js';

/** A database of its own for one test (see testDatabase), ready for the Migrator. */
export async function jobsDatabase(backend: Backend): Promise<DatabaseConfig> {
  const database = await testDatabase(backend);
  if (database.kind !== 'postgres') return database;
  const { db } = openDatabase(database, { poolSize: 1 });
  try {
    // Exactly the tables the Migrator would have made (kysely/dist/esm/migration/migrator.js).
    await sql`create table kysely_migration (name varchar(255) not null primary key, timestamp varchar(255) not null)`.execute(
      db,
    );
    await sql`create table kysely_migration_lock (id varchar(255) not null primary key, is_locked integer not null default 0)`.execute(
      db,
    );
  } finally {
    await db.destroy();
  }
  return database;
}

/** testStore, on a database from jobsDatabase unless one is given. */
export async function jobsStore(
  backend: Backend,
  options: Parameters<typeof testStore>[1] = {},
): Promise<StoreFixture> {
  const database = options.database ?? (await jobsDatabase(backend));
  for (let attempt = 1; ; attempt++) {
    try {
      return await testStore(backend, { ...options, database });
    } catch (error) {
      if (backend !== 'postgres' || attempt >= 5) throw error;
      await delay(25 * attempt);
    }
  }
}
