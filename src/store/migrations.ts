// Runs the versioned schema migrations (src/store/migrations/, one file a version) at start-up.
// Kysely's Migrator serializes concurrent runs (an advisory lock on Postgres), so several replicas
// may start at once.
import { setTimeout as delay } from 'node:timers/promises';
import {
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  sql,
} from 'kysely';
import type { Logger } from '../logger.js';
import type { SqlDialect } from './db.js';
import { MIGRATIONS } from './migrations/index.js';

function migrations(dialect: SqlDialect): Record<string, Migration> {
  return Object.fromEntries(
    MIGRATIONS.map(([name, up]): [string, Migration] => [name, { up: (db) => up(db, dialect) }]),
  );
}

/**
 * Brings the schema up to date (or, for tests of a migration, up to `upTo`); returns the names of
 * the migrations it applied.
 *
 * A database a newer version has migrated further (an older replica restarting during a rolling
 * upgrade, or a rollback) holds every migration this version knows and some it does not: it is
 * used as it is, with a warning, instead of refusing to start. Migrations only ever add (tables,
 * nullable columns, indexes), so the older code still reads and writes it (docs/deploy.md).
 */
export async function migrate(
  // biome-ignore lint/suspicious/noExplicitAny: the migrator works below the typed schema.
  db: Kysely<any>,
  dialect: SqlDialect,
  options: { upTo?: string; logger?: Logger } = {},
): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  // Kysely looks for its own tables in every schema unless told which: a database shared by
  // several schemas (one per tenant, or per test) would make it skip creating them in this one.
  const schema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]
          ?.schema
      : undefined;
  if (options.upTo === undefined) {
    const known = Object.keys(migrations(dialect));
    const executed = await executedMigrations(db, schema);
    const unknown = executed.filter((name) => !known.includes(name));
    if (unknown.length > 0 && known.every((name) => executed.includes(name))) {
      options.logger?.warn(
        { unknown },
        'the database was migrated by a newer version; starting on it without migrating',
      );
      return [];
    }
  }
  const migrator = new Migrator({
    db,
    provider,
    ...(schema ? { migrationTableSchema: schema } : {}),
    // Migrations only add, each on its own tables: one developed beside another may land with a
    // lower number after a higher one has run (0006 after 0008); it is run then, not refused.
    allowUnorderedMigrations: true,
  });
  // The error worth reporting: the first that is not another schema's catalog changing under
  // Kysely's look (a migration refused, say), else the last.
  let reported: unknown;
  for (let attempt = 1; ; attempt++) {
    const { error, results } =
      options.upTo === undefined
        ? await migrator.migrateToLatest()
        : await migrator.migrateTo(options.upTo);
    if (!error) {
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    }
    // Kysely takes no lock on SQLite. Two processes migrating one file at once: the loser's
    // transaction rolls back whole (SQLite DDL is transactional), and a later look finds the
    // winner's work done; the wait lets the winner commit first. On PostgreSQL an advisory lock
    // serializes migrators, but Kysely's look at the catalog (every schema's tables) can fail
    // while another schema is being changed: a second look is enough.
    if (reported === undefined && !isCatalogRace(error)) reported = error;
    if (attempt >= 5) throw reported ?? error;
    await delay(25 * attempt + Math.floor(Math.random() * 25));
  }
}

/** The migrations recorded in the database; none when it has no migration table yet. */
// biome-ignore lint/suspicious/noExplicitAny: the migration table is Kysely's, not in the schema.
async function executedMigrations(db: Kysely<any>, schema: string | undefined): Promise<string[]> {
  try {
    const rows = await (schema ? db.withSchema(schema) : db)
      .selectFrom(DEFAULT_MIGRATION_TABLE)
      .select('name')
      .execute();
    return rows.map((row: { name: string }) => row.name);
  } catch {
    return [];
  }
}

/** Another schema dropped while Kysely read every schema's catalog (PostgreSQL): worth a retry. */
function isCatalogRace(error: unknown): boolean {
  return error instanceof Error && /^(schema|relation) "[^"]+" does not exist$/.test(error.message);
}
