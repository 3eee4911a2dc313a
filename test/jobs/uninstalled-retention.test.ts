// The retention sweep and uninstalled workspaces, on both backends: every row of a workspace the
// app was uninstalled from stays through the grace period and goes, in batches, once it is over;
// another workspace loses nothing; a reinstall within the grace keeps everything.
import type { Installation } from '@slack/bolt';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { RetentionSweep } from '../../src/jobs/retention.js';
import type { Store } from '../../src/store/index.js';
import { WORKSPACE_TABLES } from '../../src/store/uninstalled-workspaces.js';
import { ManualClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';
import { BACKENDS, testStore } from '../helpers/store.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const DAY = 86_400_000;
const GRACE = 30 * DAY;

interface Column {
  name: string;
  type: string;
  /** Filled by the database (audit_log.id). */
  auto: boolean;
}

/** Every table's columns, read from the database itself (on PostgreSQL, of this test's schema only). */
async function tablesOf(store: Store): Promise<Map<string, Column[]>> {
  const tables = new Map<string, Column[]>();
  if (store.dialect === 'postgres') {
    const { rows } = await sql<{
      table_name: string;
      column_name: string;
      data_type: string;
      column_default: string | null;
      is_identity: string;
    }>`select table_name, column_name, data_type, column_default, is_identity
       from information_schema.columns where table_schema = current_schema()`.execute(store.db);
    for (const row of rows) {
      const auto = row.is_identity === 'YES' || (row.column_default ?? '').startsWith('nextval');
      const columns = tables.get(row.table_name) ?? [];
      columns.push({ name: row.column_name, type: row.data_type, auto });
      tables.set(row.table_name, columns);
    }
  } else {
    for (const table of await store.db.introspection.getTables())
      tables.set(
        table.name,
        table.columns.map((c) => ({ name: c.name, type: c.dataType, auto: c.isAutoIncrementing })),
      );
  }
  return tables;
}

/** Tables rows of one workspace live in, found in the database itself (not in the code's list). */
async function workspaceTables(store: Store): Promise<string[]> {
  return [...(await tablesOf(store)).entries()]
    .filter(
      ([name, columns]) =>
        !name.startsWith('kysely_') && columns.some((c) => c.name === 'workspace_id'),
    )
    .map(([name]) => name)
    .sort();
}

/** Tables whose rows belong to a row of a workspace table (a job's steps, a watch's rule states). */
const CHILDREN: Record<string, string> = { job_steps: 'job_id', watch_rule_states: 'watch_id' };

/**
 * One row of `table` for `workspace` (`n` tells rows of the same workspace apart): every column
 * filled from its type, so a table added by a later migration is filled without changing this.
 */
async function insertRow(store: Store, table: string, workspace: string, n: number) {
  const columns = (await tablesOf(store)).get(table);
  if (!columns) throw new Error(`no table ${table}`);
  const values: Record<string, unknown> = {};
  for (const column of columns) {
    if (column.auto) continue;
    const type = column.type.toLowerCase();
    const numeric = /int|real|numeric|double|float/.test(type);
    if (column.name === 'workspace_id' || (table === 'workspaces' && column.name === 'id'))
      values[column.name] = workspace;
    else if (column.name === 'uninstalled_at') values[column.name] = null;
    else if (column.name === CHILDREN[table]) values[column.name] = `${workspace}-id-${n}`;
    // An account's zone index and watched zones point at the account (cdn_accounts.id, filled as below).
    else if (
      column.name === 'account_id' &&
      (table.startsWith('zone_index') || table === 'watch_zones')
    )
      values[column.name] = `${workspace}-id-0`;
    else if (numeric) values[column.name] = n;
    else values[column.name] = `${workspace}-${column.name}-${n}`;
  }
  await sql`insert into ${sql.table(table)} (${sql.join(
    Object.keys(values).map((c) => sql.ref(c)),
  )}) values (${sql.join(Object.values(values))})`.execute(store.db);
}

/** Three rows of every table for the workspace (one for tables of one row a workspace). */
async function fill(store: Store, workspace: string) {
  await insertRow(store, 'workspaces', workspace, 0);
  // Foreign keys: a zone index's rows point at its state, an account's index state at the
  // account. Those referred to first.
  const first = ['cdn_accounts', 'zone_index_state'];
  const last = ['zone_index', 'watch_zones'];
  const rank = (table: string) =>
    first.includes(table) ? first.indexOf(table) - 2 : last.includes(table) ? 1 : 0;
  const tables = (await workspaceTables(store)).sort((a, b) => rank(a) - rank(b));
  const single = ['zone_index_state'];
  for (const table of tables) {
    const rows = single.includes(table) ? 1 : 3;
    for (let n = 0; n < rows; n++) await insertRow(store, table, workspace, n);
  }
  for (const child of Object.keys(CHILDREN))
    for (let n = 0; n < 3; n++) await insertRow(store, child, workspace, n);
}

/** How many rows each table holds of the workspace. */
async function rowsOf(store: Store, workspace: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const count = async (table: string, where: ReturnType<typeof sql>) => {
    const { rows } = await sql<{
      n: number | string;
    }>`select count(*) as n from ${sql.table(table)} where ${where}`.execute(store.db);
    counts[table] = Number(rows[0]?.n ?? 0);
  };
  await count('workspaces', sql`id = ${workspace}`);
  for (const table of await workspaceTables(store))
    await count(table, sql`workspace_id = ${workspace}`);
  for (const [child, column] of Object.entries(CHILDREN))
    await count(child, sql`${sql.ref(column)} like ${`${workspace}-%`}`);
  return counts;
}

function sweepOf(store: Store, clock: ManualClock) {
  return new RetentionSweep({
    store,
    clock,
    logger: captureLogs().logger,
    jobsMs: 7 * DAY,
    auditMs: 365 * DAY,
    uninstalledMs: GRACE,
    // Small batches: each table takes several rounds.
    batch: 2,
  });
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(`uninstalled workspaces' data on ${backend}`, () => {
    it('deletes no table of workspace data unknown to the sweep', async () => {
      const { store } = await testStore(backend);
      const known = WORKSPACE_TABLES.map((t) => t.table as string).sort();
      expect(await workspaceTables(store)).toEqual(known);
    });

    it('keeps every row through the grace period, then deletes them all, and only them', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      // T2, never uninstalled, is the control: the sweep's deletes by age (the filled rows'
      // times are long past) touch both alike.
      await fill(store, 'T1');
      await fill(store, 'T2');
      expect(Object.values(await rowsOf(store, 'T1')).every((n) => n > 0)).toBe(true);

      expect(await store.uninstalled.mark('T1')).toBe(T0);
      // A second event for the same uninstall, a day later, does not push the deletion back.
      clock.advance(DAY);
      expect(await store.uninstalled.mark('T1')).toBe(T0);

      clock.advance(GRACE - DAY - 1);
      expect((await sweepOf(store, clock).sweep()).uninstalled).toBe(0);
      const kept = await rowsOf(store, 'T1');
      expect(kept).toEqual(await rowsOf(store, 'T2'));
      expect(kept.workspaces).toBe(1);
      expect(kept.watches).toBe(3);

      clock.advance(2);
      const deleted = (await sweepOf(store, clock).sweep()).uninstalled;
      const gone = await rowsOf(store, 'T1');
      expect(Object.entries(gone).filter(([, n]) => n > 0)).toEqual([]);
      // Every row of the workspace's own tables (the children go with them, uncounted).
      const counted = Object.entries(kept)
        .filter(([table]) => !(table in CHILDREN))
        .reduce((sum, [, n]) => sum + n, 0);
      expect(deleted).toBe(counted);
      // The other workspace lost nothing, and a second sweep (another replica's) finds nothing.
      expect(await rowsOf(store, 'T2')).toEqual(kept);
      expect((await sweepOf(store, clock).sweep()).uninstalled).toBe(0);
    }, 60_000); // Every workspace table, written and swept on a busy machine: 7.5 s idle, over 20 s at load 14.

    it('keeps everything of a workspace installed again within the grace period', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      await fill(store, 'T1');
      await fill(store, 'T2');
      await store.uninstalled.mark('T1');
      clock.advance(GRACE - DAY);
      await store.installations.storeInstallation({
        team: { id: 'T1', name: 'Again' },
        enterprise: undefined,
        bot: { token: 'xoxb-again', scopes: ['commands'], id: 'B1', userId: 'UBOT' },
        isEnterpriseInstall: false,
      } as unknown as Installation);
      expect(await store.uninstalled.markedAt('T1')).toBeUndefined();
      clock.advance(10 * GRACE);
      expect((await sweepOf(store, clock).sweep()).uninstalled).toBe(0);
      const kept = await rowsOf(store, 'T1');
      expect(kept).toEqual(await rowsOf(store, 'T2'));
      expect(kept.workspaces).toBe(1);
    });

    it('stops deleting once the workspace is installed again mid-way', async () => {
      const clock = new ManualClock(T0);
      const { store } = await testStore(backend, { clock });
      await fill(store, 'T1');
      await store.uninstalled.mark('T1');
      clock.advance(GRACE + 1);
      const before = T0 + 1;
      expect(await store.uninstalled.deleteBatch('jobs', 'T1', before, 1)).toBe(1);
      await store.uninstalled.clear({ teamId: 'T1' });
      expect(await store.uninstalled.deleteBatch('jobs', 'T1', before, 10)).toBe(0);
      expect(await store.uninstalled.deleteBatch('workspaces', 'T1', before, 1)).toBe(0);
      expect((await rowsOf(store, 'T1')).jobs).toBe(2);
    });
  });
}
