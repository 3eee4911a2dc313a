import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Installation } from '@slack/bolt';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { BACKENDS, testStore } from '../helpers/store.js';

const CDN_KEY = 'sk_live_PLAINTEXT_7f3a9c2e1b';
const BOT_TOKEN = 'xoxb-PLAINTEXT-bot-4242';
const USER_TOKEN = 'xoxp-PLAINTEXT-user-4242';
const SECRETS = [CDN_KEY, BOT_TOKEN, USER_TOKEN];

const install: Installation = {
  team: { id: 'T1' },
  enterprise: undefined,
  user: { id: 'U1', token: USER_TOKEN, scopes: ['identify'] },
  bot: { id: 'B1', userId: 'UB', token: BOT_TOKEN, scopes: ['commands'] },
  isEnterpriseInstall: false,
};

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`secrets at rest on ${backend}`, () => {
    it('never writes a key or a token in plaintext', async () => {
      const { store, database } = await testStore(backend);
      await store.credentials.set('T1', CDN_KEY, { userId: 'U1', validated: true });
      await store.installations.storeInstallation(install);
      await store.audit.record({
        workspaceId: 'T1',
        actorId: 'U1',
        action: 'credentials.set',
        outcome: 'ok',
      });
      // Read back through the store: the secrets really are there, just not in the clear.
      expect((await store.credentials.get('T1'))?.apiKey).toBe(CDN_KEY);

      let dump: string;
      if (database.kind === 'sqlite') {
        await store.close();
        // The database file with its WAL and shared-memory files, byte for byte.
        const dir = dirname(database.path);
        const files = await readdir(dir);
        expect(files.some((f) => f.endsWith('.sqlite'))).toBe(true);
        dump = (await Promise.all(files.map((f) => readFile(join(dir, f)))))
          .map((b) => b.toString('latin1'))
          .join('');
        expect(dump.length).toBeGreaterThan(4096);
        expect(dump).toContain('credentials.set');
      } else {
        const tables = [
          'workspaces',
          'cdn_accounts',
          'slack_installations',
          'approvals',
          'schedules',
          'audit_log',
        ];
        const rows = await Promise.all(
          tables.map((t) =>
            sql<{ row: string }>`select row_to_json(t)::text as row from ${sql.table(t)} t`.execute(
              store.db,
            ),
          ),
        );
        dump = rows.flatMap((r) => r.rows.map((x) => x.row)).join('\n');
        expect(dump).toContain('"key_id":"k1"');
      }
      for (const secret of SECRETS) expect(dump).not.toContain(secret);
    });
  });
}
