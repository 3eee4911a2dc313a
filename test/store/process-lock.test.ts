import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Keyring } from '../../src/store/crypto.js';
import { openStore } from '../../src/store/index.js';
import { DatabaseInUseError, holdSqliteFile } from '../../src/store/process-lock.js';
import { testKey } from '../helpers/store.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lock-'));
  dirs.push(dir);
  return dir;
}

describe('one process per SQLite file', () => {
  it('opens a first start whose folder does not exist yet, holding the file', async () => {
    const path = join(await folder(), 'data', 'nested', 'bot.sqlite');
    const store = await openStore({
      database: { kind: 'sqlite', path },
      keyring: new Keyring([testKey('k1', 1)]),
      singleProcess: true,
    });
    try {
      // Held: a second holder in this process (as in another) is refused at once.
      expect(() => holdSqliteFile(path)).toThrow(DatabaseInUseError);
    } finally {
      await store.close();
    }
    // Closing the store lets it go.
    holdSqliteFile(path).release();
  });

  it('names the file and the way to run several replicas', () => {
    const error = new DatabaseInUseError('/srv/bot.sqlite');
    expect(error.message).toContain('another process is using /srv/bot.sqlite');
    expect(error.message).toContain('use PostgreSQL');
  });
});
