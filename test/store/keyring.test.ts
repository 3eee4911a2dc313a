import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { DEV_KEY_FILE, loadKeyring } from '../../src/store/keyring.js';
import { captureLogs } from '../helpers/logs.js';
import { testKey } from '../helpers/store.js';

const here = { workspace: 'T1', column: 'c' };

describe('loadKeyring', () => {
  it('uses ENCRYPTION_KEYS when set', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'keys-'));
    const keyring = await loadKeyring(
      { encryptionKeys: [testKey('a', 1), testKey('b', 2)], nodeEnv: 'production' },
      { dataDir, logger: captureLogs().logger },
    );
    expect([keyring.primaryId, keyring.keyIds]).toEqual(['a', ['a', 'b']]);
  });

  it('refuses to start in production without keys', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'keys-'));
    const error = await loadKeyring(
      { encryptionKeys: [], nodeEnv: 'production' },
      { dataDir, logger: captureLogs().logger },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('ENCRYPTION_KEYS');
  });

  it('in development generates a key file readable by its owner only, warns, and reuses it', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'keys-')), 'data');
    const logs = captureLogs();
    const first = await loadKeyring(
      { encryptionKeys: [], nodeEnv: 'development' },
      { dataDir, logger: logs.logger },
    );
    const file = join(dataDir, DEV_KEY_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(logs.text()).toContain('ENCRYPTION_KEYS is not set');
    expect(logs.text()).not.toContain((await readFile(file, 'utf8')).split(':')[1]?.trim());

    const second = await loadKeyring(
      { encryptionKeys: [], nodeEnv: 'development' },
      { dataDir, logger: logs.logger },
    );
    expect(second.decrypt(first.encrypt('x', here), here)).toBe('x');
  });

  it('says so when the development key file is damaged', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'keys-'));
    await writeFile(join(dataDir, DEV_KEY_FILE), 'garbage');
    await expect(
      loadKeyring(
        { encryptionKeys: [], nodeEnv: 'development' },
        { dataDir, logger: captureLogs().logger },
      ),
    ).rejects.toThrow(/damaged/);
  });
});
