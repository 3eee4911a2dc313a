// A world's database (see bot-process.ts), copied from one migrated once per test file: a fresh
// PostgreSQL database migrated from nothing took about a second of every world's start (and more
// on a busy machine), which a copy (CREATE DATABASE … TEMPLATE) does not. SQLite's is a copy of a
// migrated file. The bots and the test still open it through the store as usual: its migrations
// find nothing to do. Databases are dropped in the background once their test is over (nothing
// holds them then), and all of them, with the templates, before the file ends.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';
import { type DatabaseConfig, parseEncryptionKeys } from '../../src/config.js';
import { generateKey, Keyring } from '../../src/store/crypto.js';
import { openStore } from '../../src/store/index.js';
import { prepareDatabase } from '../helpers/child-bot.js';
import { type Backend, POSTGRES_URL } from '../helpers/store.js';

export interface WorldDatabase {
  database: DatabaseConfig;
  url: string;
  /** Starts removing it; resolves at once (the file's end waits for it). */
  drop: () => Promise<void>;
}

/** A migrated database per backend, made by the first world that needs it. */
const templates = new Map<Backend, Promise<Awaited<ReturnType<typeof prepareDatabase>>>>();
/** Drops under way: awaited before the file ends. */
const dropping: Array<Promise<unknown>> = [];

afterAll(async () => {
  const results = await Promise.allSettled(dropping.splice(0));
  const made = [...templates.values()];
  templates.clear();
  // A template that could not be made was removed then (and its error failed the test).
  results.push(
    ...(await Promise.allSettled(
      made.map((t) =>
        t.then(
          (p) => p.drop(),
          () => undefined,
        ),
      ),
    )),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw new Error(`fault databases not removed: ${(failed.reason as Error).message}`);
}, 60_000);

function template(backend: Backend) {
  let made = templates.get(backend);
  if (!made) {
    made = (async () => {
      const prepared = await prepareDatabase(backend, {
        prefix: 'fault_template',
        postgresUrl: POSTGRES_URL,
      });
      // Migrations need no key: this one is never used.
      const keyring = new Keyring(parseEncryptionKeys(generateKey('template')));
      try {
        const store = await openStore({ database: prepared.database, keyring });
        await store.close();
      } catch (error) {
        await prepared.drop();
        throw error;
      }
      return prepared;
    })();
    templates.set(backend, made);
  }
  return made;
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A database of its own for a world, migrated already. */
export async function worldDatabase(backend: Backend): Promise<WorldDatabase> {
  const source = await template(backend);
  const later = (remove: () => Promise<void>) => async () => {
    dropping.push(remove());
  };
  if (source.database.kind === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'fault-db-'));
    const path = join(dir, 'bot.sqlite');
    await copyFile(source.database.path, path);
    // Closed, the template has its log checkpointed into the file; a log left behind goes too.
    if (existsSync(`${source.database.path}-wal`))
      await copyFile(`${source.database.path}-wal`, `${path}-wal`);
    return {
      database: { kind: 'sqlite', path },
      url: `sqlite:${path}`,
      drop: later(() => rm(dir, { recursive: true, force: true })),
    };
  }
  const name = `fault_${randomBytes(6).toString('hex')}`;
  const templateName = new URL(source.url).pathname.slice(1);
  await admin(`create database ${name} template ${templateName}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    database: { kind: 'postgres', url: url.toString() },
    url: url.toString(),
    drop: later(() => admin(`drop database if exists ${name} with (force)`)),
  };
}
