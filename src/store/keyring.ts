// Where the keyring comes from: ENCRYPTION_KEYS, or in development a key generated into ./data/.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Config, ConfigError, parseEncryptionKeys } from '../config.js';
import type { Logger } from '../logger.js';
import { generateKey, Keyring } from './crypto.js';

export const DEV_KEY_FILE = 'encryption-keys';

export async function loadKeyring(
  config: Pick<Config, 'encryptionKeys' | 'nodeEnv'>,
  options: { dataDir: string; logger: Logger },
): Promise<Keyring> {
  if (config.encryptionKeys.length > 0) return new Keyring(config.encryptionKeys);
  if (config.nodeEnv === 'production') {
    throw new ConfigError('ENCRYPTION_KEYS', 'is required when NODE_ENV=production');
  }
  const path = join(options.dataDir, DEV_KEY_FILE);
  const keys = (await readKeyFile(path)) ?? (await createKeyFile(path, options.dataDir));
  options.logger.warn(
    { path },
    'ENCRYPTION_KEYS is not set: using a generated development key. Set ENCRYPTION_KEYS in production.',
  );
  return new Keyring(keys);
}

async function readKeyFile(path: string) {
  try {
    return parseEncryptionKeys((await readFile(path, 'utf8')).trim());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof ConfigError) {
      throw new ConfigError('ENCRYPTION_KEYS', `the development key file ${path} is damaged`);
    }
    throw error;
  }
}

async function createKeyFile(path: string, dataDir: string) {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const id = `dev${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`;
  try {
    // 'wx': if another process made the file first, use theirs rather than overwrite it.
    await writeFile(path, `${generateKey(id)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return (await readKeyFile(path)) ?? [];
}
