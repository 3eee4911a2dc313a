// The console (`npm start` without Slack credentials) beside a deployment's data: it keeps to a
// database and a key of its own, so its session and background jobs leave the deployment's
// database (a workspace with a CDN key, a due daily report, a pending approval) byte for byte.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEncryptionKeys } from '../../../src/config.js';
import { generateKey, Keyring } from '../../../src/store/crypto.js';
import { openStore } from '../../../src/store/index.js';
import { DEFAULT_LIMITS } from '../../../src/store/workspaces.js';
import { startFromSource } from '../../helpers/build.js';

const PROD_TEAM = 'T0PROD';
const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

/** A deployment's ./data: its dev key file and its database, closed (no -wal or -shm left). */
async function deploymentData(dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  const key = generateKey('deploy1');
  await writeFile(join(dataDir, 'encryption-keys'), `${key}\n`, { mode: 0o600 });
  const store = await openStore({
    database: { kind: 'sqlite', path: join(dataDir, 'cdn-bot.sqlite') },
    keyring: new Keyring(parseEncryptionKeys(key)),
  });
  try {
    await store.credentials.set(PROD_TEAM, 'prod-cdn-api-key-0123456789', {
      userId: 'U0ADMIN',
      validated: true,
    });
    const login = await store.credentials.get(PROD_TEAM);
    if (!login) throw new Error('the deployment has no login key');
    const account = login.accountId;
    await store.schedules.create(
      {
        workspaceId: PROD_TEAM,
        accountId: account,
        zoneId: 'zone_prod',
        zoneName: 'prod.example',
        channelId: 'C0PROD',
        createdBy: 'U0ADMIN',
        timeOfDay: '09:00',
        timeZone: 'UTC',
        nextRunAt: Date.now() - 60_000,
      },
      DEFAULT_LIMITS,
    );
    await store.approvals.create({
      workspaceId: PROD_TEAM,
      accountId: account,
      zoneId: 'zone_prod',
      zoneName: 'prod.example',
      requesterId: 'U0BOB',
      reason: 'A bad deploy cached broken HTML everywhere',
      channelId: 'C0PROD',
      ttlMs: 30 * 60_000,
    });
    // What a scheduler over this database would act on at once.
    const reports = await store.schedules.listForWorkspace(PROD_TEAM);
    expect(reports.filter((r) => r.nextRunAt <= Date.now())).toHaveLength(1);
  } finally {
    await store.close();
  }
  return key;
}

/** Every file in the folder (not its subfolders) by name, with a hash of its bytes. */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const bytes = await readFile(join(dir, entry.name));
    files[entry.name] = createHash('sha256').update(bytes).digest('hex');
  }
  return files;
}

describe('the console beside a deployment', () => {
  it("uses its own database and key, and leaves the deployment's untouched", async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'console-sandboxed-'));
    folders.push(cwd);
    const dataDir = join(cwd, 'data');
    const deploymentKey = await deploymentData(dataDir);
    const before = await fingerprint(dataDir);
    // Nothing uncheckpointed beside the database: the hashes cover all of it.
    expect(Object.keys(before).sort()).toEqual(['cdn-bot.sqlite', 'encryption-keys']);

    // What a deployment's environment (or .env) says; the console must ignore both.
    const { code, stdout, stderr } = await startFromSource(cwd, ['/cdn help', '/cdn zones'], {
      DATABASE_URL: 'sqlite:./data/cdn-bot.sqlite',
      ENCRYPTION_KEYS: deploymentKey,
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('alice in #ops › /cdn zones');

    // The deployment's database and key file: byte for byte as they were, and nothing beside them.
    const after = await fingerprint(dataDir);
    expect(after).toMatchObject(before);
    expect(Object.keys(after).filter((name) => name.startsWith('cdn-bot.sqlite'))).toEqual([
      'cdn-bot.sqlite',
    ]);

    // The console's own database and key, and it said so in its banner and its log.
    expect(existsSync(join(dataDir, 'console.sqlite'))).toBe(true);
    const consoleKey = (await readFile(join(dataDir, 'console', 'encryption-keys'), 'utf8')).trim();
    expect(parseEncryptionKeys(consoleKey)[0]?.key).not.toEqual(
      parseEncryptionKeys(deploymentKey)[0]?.key,
    );
    expect(stdout).toContain(
      "Data is kept in data/console.sqlite, the console's own database (DATABASE_URL is not used).",
    );
    const log = await readFile(join(dataDir, 'console.log'), 'utf8');
    expect(log).toContain('"database":"data/console.sqlite"');
    expect(log).toContain('a database and a key of its own');
    // No secret of the deployment's in the console's log.
    expect(log).not.toContain(deploymentKey.split(':')[1]);
    expect(log).not.toContain('prod-cdn-api-key');

    // Nothing of the deployment's was copied into the console's database.
    const own = await openStore({
      database: { kind: 'sqlite', path: join(dataDir, 'console.sqlite') },
      keyring: new Keyring(parseEncryptionKeys(consoleKey)),
    });
    try {
      expect(await own.workspaces.get(PROD_TEAM)).toBeUndefined();
      expect(await own.schedules.listForWorkspace(PROD_TEAM)).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
