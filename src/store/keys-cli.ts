// `npm run keys:generate` prints a new key; `npm run keys:rotate` re-seals every secret under the
// first key of ENCRYPTION_KEYS, after which the others can be removed.
import { ConfigError, loadStoreConfig } from '../config.js';
import { loadEnvFile } from '../env-file.js';
import { createLogger } from '../logger.js';
import { generateKey } from './crypto.js';
import { openStore } from './index.js';
import { loadKeyring } from './keyring.js';
import { rotateSecrets } from './rotate.js';

const [command, argument] = process.argv.slice(2);

async function rotate(): Promise<void> {
  // As `npm start` does: .env first, the environment winning; only the store's variables are read.
  loadEnvFile('.env');
  const config = loadStoreConfig();
  const logger = createLogger({ level: config.logLevel });
  const keyring = await loadKeyring(config, { dataDir: './data', logger });
  const store = await openStore({ database: config.database, keyring, logger });
  try {
    const report = await rotateSecrets(store.db, keyring);
    for (const [column, count] of Object.entries(report)) {
      process.stdout.write(`${column}: ${count} re-encrypted under "${keyring.primaryId}"\n`);
    }
    process.stdout.write(
      `Every secret is now under "${keyring.primaryId}"; the other keys can be removed from ENCRYPTION_KEYS.\n`,
    );
  } finally {
    await store.close();
  }
}

try {
  if (command === 'generate') {
    const id = argument ?? `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`;
    process.stdout.write(
      `${generateKey(id)}\nPut it first in ENCRYPTION_KEYS (id:base64key,…), then run npm run keys:rotate.\n`,
    );
  } else if (command === 'rotate') {
    await rotate();
  } else {
    console.error('usage: keys-cli generate [id] | rotate');
    process.exitCode = 2;
  }
} catch (error) {
  if (!(error instanceof ConfigError) && !(error instanceof Error && 'code' in error)) throw error;
  console.error(`keys: ${error.message}`);
  process.exitCode = 1;
}
