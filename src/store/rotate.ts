// Key rotation: re-seal every stored secret under the keyring's primary key.
import { type Kysely, sql } from 'kysely';
import { ACCOUNT_KEY_COLUMN, accountKeyContext, storedKeyContext } from './accounts.js';
import type { Keyring } from './crypto.js';
import { INSTALLATION_COLUMN } from './installations.js';
import type { Database } from './schema.js';

interface SealedColumn {
  table: 'slack_installations';
  /** The row's key, which is also the secret's context (its installation). */
  key: string;
  sealed: string;
  /** The context column name, `table.column`. */
  column: string;
}

/**
 * Every column that holds a sealed secret, with its row's key as its context. A new one must be
 * listed here to be rotated. (cdn_accounts.api_key, whose context is also the account's id and
 * may be the one it was moved with, is rotated by resealAccountBatch.)
 */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'slack_installations', key: 'id', sealed: 'installation', column: INSTALLATION_COLUMN },
];

/** Secrets re-sealed, per column. */
export type RotationReport = Record<string, number>;

/**
 * Re-seals, batch by batch, every secret not under the primary key. Each row is rewritten by
 * itself and only if it still holds what was read, so the run can be interrupted and started
 * again, and a secret set meanwhile is never overwritten. When it returns, keys other than the
 * primary can be removed from ENCRYPTION_KEYS.
 */
export async function rotateSecrets(
  db: Kysely<Database>,
  keyring: Keyring,
  options: { batchSize?: number } = {},
): Promise<RotationReport> {
  const batchSize = options.batchSize ?? 200;
  const report: RotationReport = {};
  for (const spec of SEALED_COLUMNS) {
    let total = 0;
    for (;;) {
      const { seen, resealed } = await resealBatch(db, keyring, spec, batchSize);
      total += resealed;
      if (seen < batchSize) break;
    }
    report[spec.column] = total;
  }
  let accounts = 0;
  for (;;) {
    const { seen, resealed } = await resealAccountBatch(db, keyring, batchSize);
    accounts += resealed;
    if (seen < batchSize) break;
  }
  report[ACCOUNT_KEY_COLUMN] = accounts;
  return report;
}

async function resealBatch(
  db: Kysely<Database>,
  keyring: Keyring,
  spec: SealedColumn,
  limit: number,
): Promise<{ seen: number; resealed: number }> {
  const { rows } = await sql<{ key: string; sealed: string }>`
    select ${sql.ref(spec.key)} as key, ${sql.ref(spec.sealed)} as sealed
    from ${sql.table(spec.table)}
    where key_id <> ${keyring.primaryId}
    order by ${sql.ref(spec.key)}
    limit ${limit}`.execute(db);
  let resealed = 0;
  for (const row of rows) {
    const context = { workspace: row.key, column: spec.column };
    const plaintext = keyring.decrypt(row.sealed, context);
    const result = await sql`
      update ${sql.table(spec.table)}
      set ${sql.ref(spec.sealed)} = ${keyring.encrypt(plaintext, context)}, key_id = ${keyring.primaryId}
      where ${sql.ref(spec.key)} = ${row.key} and ${sql.ref(spec.sealed)} = ${row.sealed}`.execute(
      db,
    );
    // Zero when the row changed since it was read: its new value is already under the primary key.
    resealed += Number(result.numAffectedRows ?? 0n);
  }
  return { seen: rows.length, resealed };
}

/**
 * Account keys not under the primary key, or still sealed as they were moved (storedKeyContext):
 * each is re-sealed in its account's own context, by itself, and only if
 * it still holds what was read.
 */
async function resealAccountBatch(
  db: Kysely<Database>,
  keyring: Keyring,
  limit: number,
): Promise<{ seen: number; resealed: number }> {
  const rows = await db
    .selectFrom('cdn_accounts')
    .select(['id', 'workspace_id', 'api_key', 'sealed_as'])
    .where('api_key', 'is not', null)
    .where((eb) => eb.or([eb('key_id', '<>', keyring.primaryId), eb('sealed_as', '<>', 'account')]))
    .orderBy('id')
    .limit(limit)
    .execute();
  let resealed = 0;
  for (const row of rows) {
    const sealed = row.api_key as string;
    const plaintext = keyring.decrypt(sealed, storedKeyContext(row));
    const result = await db
      .updateTable('cdn_accounts')
      .set({
        api_key: keyring.encrypt(plaintext, accountKeyContext(row.workspace_id, row.id)),
        key_id: keyring.primaryId,
        sealed_as: 'account',
      })
      .where('id', '=', row.id)
      .where('api_key', '=', sealed)
      .executeTakeFirst();
    resealed += Number(result.numUpdatedRows);
  }
  return { seen: rows.length, resealed };
}
