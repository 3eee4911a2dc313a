// Repository: each CDN account's zone index (its zones as the CDN last listed them) and its state.
// Invariant: an account's rows and state belong to its current key generation. Setting or deleting
// a key drops them in its own transaction (accounts.ts); every write here first locks the account's
// row and checks its generation, so a refresh that started under an old key writes nothing.
// Over 400 lines on purpose: its reads (one account's index, or several at once) and its writes
// (build, probe, failure, drop) share that one invariant and the row shapes, and are clearer side by
// side than split over files.
import {
  type ExpressionBuilder,
  type Kysely,
  type Selectable,
  sql,
  type Transaction,
} from 'kysely';
import type { Clock } from '../clock.js';
import { zoneKey } from '../zone-names.js';
import type { SqlDialect } from './db.js';
import type { Database, ZoneIndexStateTable, ZoneIndexTable } from './schema.js';

/** A zone as the index keeps it (the same shape as the CDN client's CdnZone). */
export interface IndexedZone {
  id: string;
  name: string;
  status: string;
  createdAt: string;
}

export interface ZoneIndexState {
  workspaceId: string;
  accountId: string;
  generation: string;
  /** When a full listing last replaced the rows; null: never built yet. */
  refreshedAt: number | null;
  cdnTotal: number;
  zoneCount: number;
  failedAt: number | null;
  error: string | null;
}

/** One account's index as `findAcross` reads it: its view, and the zones matching. */
export interface AccountMatches {
  /** Undefined: the account has no key (as `view`). */
  view: IndexView | undefined;
  zones: IndexedZone[];
}

/** What a read needs to know: the account key's generation, and the index state if it is for it. */
export interface IndexView {
  generation: string;
  state: ZoneIndexState | undefined;
}

export interface ReplaceResult {
  /** False when the key changed meanwhile: nothing was written. */
  written: boolean;
  inserted: number;
  updated: number;
  deleted: number;
}

/** Rows per multi-row INSERT: 6 parameters each, far below both databases' limits. */
const INSERT_CHUNK = 500;
/** Rows read at a time when a refresh compares the listing with the index. */
const SCAN_CHUNK = 1_000;
/** Ids per `IN (…)` list (deletes, lookups). */
const DELETE_CHUNK = 500;

/** The zone indexes of every account: one account's (`forAccount`), several at once, those due. */
export class ZoneIndexRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly clock: Clock,
  ) {}

  /** The index of one account (its id). */
  forAccount(accountId: string): AccountZoneIndex {
    return new AccountZoneIndex(this.db, this.dialect, this.clock, accountId);
  }

  /**
   * `find` in the indexes of several accounts at once, each with its view, in one statement: for
   * each of `accountIds`, in that order, its key's view (undefined: no key) and its zones whose id
   * is `id` or name is `key`.
   */
  async findAcross(
    workspaceId: string,
    accountIds: string[],
    id: string,
    key: string,
  ): Promise<AccountMatches[]> {
    const ids = [...new Set(accountIds)];
    if (ids.length === 0) return [];
    const inIds = sql.join(ids);
    // One row per account's key (its index state beside it), then one per zone matching: point
    // lookups only, as in `find` (by name on zone_index_by_name, by id on the primary key).
    // Raw SQL: a lookup runs it on every command, and Kysely's builder would cost more than it.
    const branches = [
      sql`select a.id as account, a.generation as key_generation, ${STATE_SQL}, ${NO_ZONE_SQL} from cdn_accounts a left join zone_index_state s on s.workspace_id = a.workspace_id and s.account_id = a.id where a.workspace_id = ${workspaceId} and a.id in (${inIds})`,
      sql`select account_id, null, ${NO_STATE_SQL}, ${ZONE_SQL} from zone_index where workspace_id = ${workspaceId} and account_id in (${inIds}) and name_key = ${key}`,
      sql`select account_id, null, ${NO_STATE_SQL}, ${ZONE_SQL} from zone_index where workspace_id = ${workspaceId} and account_id in (${inIds}) and zone_id = ${id}`,
    ];
    const { rows } = await sql<AcrossRow>`${sql.join(branches, sql` union all `)}`.execute(this.db);
    const found = new Map<string, AccountMatches>();
    // The views, then the zones of each: an account without a key has no view, nor any zone.
    for (const row of rows) {
      if (row.zone_id !== null || row.key_generation === null) continue;
      found.set(row.account, {
        view: indexView(workspaceId, row.account, row.key_generation, row),
        zones: [],
      });
    }
    for (const row of rows) {
      if (row.zone_id === null || row.name === null || row.status === null) continue;
      const zones = found.get(row.account)?.zones;
      // A zone by its name and by its id is one zone.
      if (zones && !zones.some((zone) => zone.id === row.zone_id))
        zones.push({
          id: row.zone_id,
          name: row.name,
          status: row.status,
          createdAt: row.zone_created_at ?? '',
        });
    }
    return accountIds.map((account) => found.get(account) ?? { view: undefined, zones: [] });
  }

  /**
   * Accounts whose index is for their current key and due a background refresh: never built or
   * refreshed before `staleBefore`, no failure since `retryBefore`. Oldest first.
   */
  async due(
    staleBefore: number,
    retryBefore: number,
    limit: number,
  ): Promise<Array<{ workspaceId: string; accountId: string }>> {
    const rows = await this.db
      .selectFrom('zone_index_state as s')
      .innerJoin('cdn_accounts as a', (join) =>
        join.onRef('a.id', '=', 's.account_id').onRef('a.generation', '=', 's.generation'),
      )
      .select(['s.workspace_id', 's.account_id'])
      .where(dueState(staleBefore, retryBefore))
      .orderBy(sql`coalesce(${sql.ref('s.refreshed_at')}, 0)`)
      .limit(limit)
      .execute();
    return rows.map((row) => ({ workspaceId: row.workspace_id, accountId: row.account_id }));
  }
}

/** One account's zone index. */
export class AccountZoneIndex {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly clock: Clock,
    readonly accountId: string,
  ) {}

  /** Every column of the account's zones. */
  #zonesOf(workspaceId: string) {
    return this.db
      .selectFrom('zone_index')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('account_id', '=', this.accountId);
  }

  /** The account key's generation and its index state; undefined when it has no key. */
  async view(workspaceId: string): Promise<IndexView | undefined> {
    const row = await this.db
      .selectFrom('cdn_accounts as a')
      .leftJoin('zone_index_state as s', (join) =>
        join.onRef('s.workspace_id', '=', 'a.workspace_id').onRef('s.account_id', '=', 'a.id'),
      )
      .select(['a.generation as key_generation', ...STATE_COLUMNS])
      .where('a.workspace_id', '=', workspaceId)
      .where('a.id', '=', this.accountId)
      .executeTakeFirst();
    if (!row || row.key_generation === null) return undefined;
    return indexView(workspaceId, this.accountId, row.key_generation, row);
  }

  /** Zones whose id is `id` or whose name is `key` (a live and a deleted zone may share a name). */
  async find(workspaceId: string, id: string, key: string): Promise<IndexedZone[]> {
    // Two point lookups (by name on zone_index_by_name, by id on the primary key) in one
    // statement: an OR of both would read every row of the account.
    const rows = await this.#zonesOf(workspaceId)
      .where('name_key', '=', key)
      .unionAll(this.#zonesOf(workspaceId).where('zone_id', '=', id))
      .execute();
    const zones = new Map(rows.map((row) => [row.zone_id, toZone(row)]));
    return [...zones.values()];
  }

  /** Which of `ids` the index holds. */
  async has(workspaceId: string, ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += DELETE_CHUNK) {
      const rows = await this.db
        .selectFrom('zone_index')
        .select('zone_id')
        .where('workspace_id', '=', workspaceId)
        .where('account_id', '=', this.accountId)
        .where('zone_id', 'in', ids.slice(i, i + DELETE_CHUNK))
        .execute();
      for (const row of rows) found.add(row.zone_id);
    }
    return found;
  }

  /**
   * Zones whose name is one of `keys`, or whose id is `id`, ordered by name: a purge's zone and
   * those that may serve its URLs, without reading every zone of the workspace.
   */
  async named(workspaceId: string, keys: readonly string[], id?: string): Promise<IndexedZone[]> {
    const rows: Array<Selectable<ZoneIndexTable>> = [];
    // Point lookups (the name index, the primary key), in slices well under either database's
    // limit on bound parameters: one statement for a purge's few names and its zone's id.
    for (let at = 0; at === 0 || at < keys.length; at += DELETE_CHUNK) {
      const slice = keys.slice(at, at + DELETE_CHUNK);
      const byName = this.#zonesOf(workspaceId).where(
        'name_key',
        'in',
        slice.length > 0 ? slice : [''],
      );
      rows.push(
        ...(await (at === 0 && id !== undefined
          ? byName.unionAll(this.#zonesOf(workspaceId).where('zone_id', '=', id))
          : byName
        ).execute()),
      );
    }
    const byId = new Map(rows.map((row) => [row.zone_id, row]));
    return [...byId.values()]
      .sort((a, b) => (a.name_key < b.name_key ? -1 : a.name_key > b.name_key ? 1 : 0))
      .map(toZone);
  }

  async all(workspaceId: string): Promise<IndexedZone[]> {
    const rows = await this.#zonesOf(workspaceId).orderBy('name_key').execute();
    return rows.map(toZone);
  }

  /** Names of the live zones, for "did you mean". */
  async liveNames(workspaceId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('zone_index')
      .select('name')
      .where('workspace_id', '=', workspaceId)
      .where('account_id', '=', this.accountId)
      .where('status', '<>', 'deleted')
      .execute();
    return rows.map((row) => row.name);
  }

  /**
   * Live zones whose name contains `needle` (lowercase), or whose id is `id`: the name itself
   * first, then names starting with it, then names with a label starting with it, then the rest;
   * alphabetical within each. At most `limit`.
   */
  async search(
    workspaceId: string,
    needle: string,
    id: string,
    limit: number,
  ): Promise<IndexedZone[]> {
    const escaped = needle.replace(/[\\%_]/g, (c) => `\\${c}`);
    const like = (pattern: string) =>
      sql<boolean>`${sql.ref('name_key')} like ${pattern} escape '\\'`;
    const rank = sql<number>`case when ${sql.ref('name_key')} = ${needle} then 0 when ${like(`${escaped}%`)} then 1 when ${like(`%.${escaped}%`)} then 2 else 3 end`;
    // PostgreSQL's collation may ignore punctuation; names sort byte by byte on both databases.
    const byName =
      this.dialect === 'postgres' ? sql`${sql.ref('name_key')} collate "C"` : sql.ref('name_key');
    let query = this.#zonesOf(workspaceId).where('status', '<>', 'deleted');
    if (needle !== '') {
      query = query.where((eb) => eb.or([like(`%${escaped}%`), eb('zone_id', '=', id)]));
    }
    const rows = await query.orderBy(rank).orderBy(byName).limit(limit).execute();
    return rows.map(toZone);
  }

  /**
   * Records a failed refresh for the key of `generation` (no background refresh for a while),
   * creating the state (not built yet) when there is none. Nothing when the key changed.
   */
  async failed(workspaceId: string, generation: string, error: string): Promise<void> {
    const now = this.clock.now();
    await this.db.transaction().execute(async (trx) => {
      if (!(await this.#keyIs(trx, workspaceId, generation))) return;
      await this.#ownState(trx, workspaceId, generation, now);
      await trx
        .updateTable('zone_index_state')
        .set({ failed_at: now, error: error.slice(0, 500), updated_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('account_id', '=', this.accountId)
        .execute();
    });
  }

  /**
   * Makes the index exactly `zones` (a full listing whose `meta.total` was `total`), in one
   * transaction: a reader sees the old index or the new one, never a mix. Only what changed is
   * written. Writes nothing if the key is no longer `generation`.
   */
  async replace(
    workspaceId: string,
    generation: string,
    zones: IndexedZone[],
    total: number,
  ): Promise<ReplaceResult> {
    const now = this.clock.now();
    const nothing = { written: false, inserted: 0, updated: 0, deleted: 0 };
    return this.db.transaction().execute(async (trx) => {
      if (!(await this.#keyIs(trx, workspaceId, generation))) return nothing;
      await this.#ownState(trx, workspaceId, generation, now);
      const listed = new Map<string, IndexedZone>();
      for (const zone of zones) if (!listed.has(zone.id)) listed.set(zone.id, zone);
      const count = listed.size;
      const stale: string[] = [];
      const fresh: IndexedZone[] = [];
      let updated = 0;
      // The rows as they are, a chunk at a time (keyset on the primary key): a refresh holds the
      // listing and one chunk, not a second copy of the index. What is left listed is new.
      for (let after: string | undefined; ; ) {
        let query = trx
          .selectFrom('zone_index')
          .select(['zone_id', 'name', 'status', 'zone_created_at'])
          .where('workspace_id', '=', workspaceId)
          .where('account_id', '=', this.accountId);
        if (after !== undefined) query = query.where('zone_id', '>', after);
        const rows = await query.orderBy('zone_id').limit(SCAN_CHUNK).execute();
        for (const row of rows) {
          const zone = listed.get(row.zone_id);
          if (!zone) {
            stale.push(row.zone_id);
            continue;
          }
          listed.delete(row.zone_id);
          if (
            row.name !== zone.name ||
            row.status !== zone.status ||
            row.zone_created_at !== zone.createdAt
          ) {
            // A changed row is deleted and inserted again: one statement per chunk, not per row.
            stale.push(row.zone_id);
            fresh.push(zone);
            updated++;
          }
        }
        if (rows.length < SCAN_CHUNK) break;
        after = rows[rows.length - 1]?.zone_id;
      }
      for (const zone of listed.values()) fresh.push(zone);
      listed.clear();
      for (let i = 0; i < stale.length; i += DELETE_CHUNK) {
        await trx
          .deleteFrom('zone_index')
          .where('workspace_id', '=', workspaceId)
          .where('account_id', '=', this.accountId)
          .where('zone_id', 'in', stale.slice(i, i + DELETE_CHUNK))
          .execute();
      }
      for (let i = 0; i < fresh.length; i += INSERT_CHUNK) {
        await trx
          .insertInto('zone_index')
          .values(
            fresh
              .slice(i, i + INSERT_CHUNK)
              .map((zone) => toRow(workspaceId, this.accountId, zone)),
          )
          .execute();
      }
      await trx
        .updateTable('zone_index_state')
        .set({
          refreshed_at: now,
          cdn_total: total,
          zone_count: count,
          failed_at: null,
          error: null,
          updated_at: now,
        })
        .where('workspace_id', '=', workspaceId)
        .where('account_id', '=', this.accountId)
        .execute();
      return {
        written: true,
        inserted: fresh.length - updated,
        updated,
        deleted: stale.length - updated,
      };
    });
  }

  /**
   * Adds or updates `zones` in a built index (a zone the bot created, zones a probe saw), and
   * records the CDN's `total` if given. Nothing when the index is not built or the key changed.
   */
  async upsert(
    workspaceId: string,
    generation: string,
    zones: IndexedZone[],
    total?: number,
  ): Promise<boolean> {
    const now = this.clock.now();
    return this.db.transaction().execute(async (trx) => {
      if (!(await this.#keyIs(trx, workspaceId, generation))) return false;
      const state = await trx
        .selectFrom('zone_index_state')
        .select(['generation', 'refreshed_at'])
        .where('workspace_id', '=', workspaceId)
        .where('account_id', '=', this.accountId)
        .executeTakeFirst();
      if (!state || state.generation !== generation || state.refreshed_at === null) return false;
      const rows = [
        ...new Map(
          zones.map((zone) => [zone.id, toRow(workspaceId, this.accountId, zone)]),
        ).values(),
      ];
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        await trx
          .insertInto('zone_index')
          .values(rows.slice(i, i + INSERT_CHUNK))
          .onConflict((c) =>
            c.columns(['workspace_id', 'account_id', 'zone_id']).doUpdateSet((eb) => ({
              name: eb.ref('excluded.name'),
              name_key: eb.ref('excluded.name_key'),
              status: eb.ref('excluded.status'),
              zone_created_at: eb.ref('excluded.zone_created_at'),
            })),
          )
          .execute();
      }
      const count = await trx
        .selectFrom('zone_index')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('account_id', '=', this.accountId)
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('zone_index_state')
        .set({
          zone_count: Number(count.n),
          updated_at: now,
          ...(total === undefined ? {} : { cdn_total: total }),
        })
        .where('workspace_id', '=', workspaceId)
        .where('account_id', '=', this.accountId)
        .execute();
      return true;
    });
  }

  /**
   * Whether the account's key is still `generation`, holding its row until the transaction ends
   * on PostgreSQL (a key being set meanwhile waits for us, then drops what we wrote). SQLite runs
   * one write transaction at a time anyway.
   */
  async #keyIs(
    trx: Transaction<Database>,
    workspaceId: string,
    generation: string,
  ): Promise<boolean> {
    let query = trx
      .selectFrom('cdn_accounts')
      .select('generation')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', this.accountId);
    if (this.dialect === 'postgres') query = query.forUpdate();
    const row = await query.executeTakeFirst();
    return row?.generation != null && row.generation === generation;
  }

  /** The state row for `generation`, created (not built) if missing or left by another key. */
  async #ownState(
    trx: Transaction<Database>,
    workspaceId: string,
    generation: string,
    now: number,
  ): Promise<void> {
    const state = await trx
      .selectFrom('zone_index_state')
      .select('generation')
      .where('workspace_id', '=', workspaceId)
      .where('account_id', '=', this.accountId)
      .executeTakeFirst();
    if (state && state.generation === generation) return;
    if (state) {
      await trx
        .deleteFrom('zone_index_state')
        .where('workspace_id', '=', workspaceId)
        .where('account_id', '=', this.accountId)
        .execute();
    }
    await trx
      .insertInto('zone_index_state')
      .values({
        workspace_id: workspaceId,
        account_id: this.accountId,
        generation,
        refreshed_at: null,
        cdn_total: 0,
        zone_count: 0,
        failed_at: null,
        error: null,
        updated_at: now,
      })
      .execute();
  }
}

type DueColumns = Pick<ZoneIndexStateTable, 'refreshed_at' | 'failed_at'>;

/**
 * An index state (`s`) due a background refresh: never built or refreshed before `staleBefore`,
 * no failure since `retryBefore`. Which replica refreshes it is the job runner's lease
 * (ZoneIndexBuilder), not this table's.
 */
function dueState(staleBefore: number, retryBefore: number) {
  return (eb: ExpressionBuilder<{ s: DueColumns }, 's'>) =>
    eb.and([
      eb.or([eb('s.refreshed_at', 'is', null), eb('s.refreshed_at', '<=', staleBefore)]),
      eb.or([eb('s.failed_at', 'is', null), eb('s.failed_at', '<=', retryBefore)]),
    ]);
}

function toRow(
  workspaceId: string,
  accountId: string,
  zone: IndexedZone,
): Selectable<ZoneIndexTable> {
  return {
    workspace_id: workspaceId,
    account_id: accountId,
    zone_id: zone.id,
    name: zone.name,
    name_key: zoneKey(zone.name),
    status: zone.status,
    zone_created_at: zone.createdAt,
  };
}

/** The state columns `indexView` reads, as both views select them (alias `s`). */
const STATE_COLUMNS = [
  's.generation',
  's.refreshed_at',
  's.cdn_total',
  's.zone_count',
  's.failed_at',
  's.error',
] as const;

/** `findAcross`'s columns: a key's view (its index state as `s`), or a zone matching. */
const STATE_SQL = sql.raw(
  's.generation, s.refreshed_at, s.cdn_total, s.zone_count, s.failed_at, s.error',
);
const NO_STATE_SQL = sql.raw('null, null, null, null, null, null');
const ZONE_SQL = sql.raw('zone_id, name, status, zone_created_at');
const NO_ZONE_SQL = sql.raw(
  'cast(null as text) as zone_id, cast(null as text) as name, cast(null as text) as status, cast(null as text) as zone_created_at',
);

/** A row of `findAcross`: a view (no zone) or a zone (no key nor state). */
type AcrossRow = StateColumns & {
  account: string;
  key_generation: string | null;
  zone_id: string | null;
  name: string | null;
  status: string | null;
  zone_created_at: string | null;
};

/** A column of STATE_COLUMNS without its table alias. */
type Unaliased<C> = C extends `s.${infer K extends keyof ZoneIndexStateTable}` ? K : never;

/** A state row's columns as a left join reads them: all null when the index has no state yet. */
type StateColumns = {
  [K in Unaliased<(typeof STATE_COLUMNS)[number]>]: Selectable<ZoneIndexStateTable>[K] | null;
};

/** The view of a key's `generation`: the state row only if it was built for that generation. */
function indexView(
  workspaceId: string,
  accountId: string,
  generation: string,
  row: StateColumns,
): IndexView {
  if (row.generation !== generation) return { generation, state: undefined };
  return {
    generation,
    state: {
      workspaceId,
      accountId,
      generation,
      refreshedAt: row.refreshed_at,
      cdnTotal: row.cdn_total ?? 0,
      zoneCount: row.zone_count ?? 0,
      failedAt: row.failed_at,
      error: row.error,
    },
  };
}

function toZone(row: Selectable<ZoneIndexTable>): IndexedZone {
  return { id: row.zone_id, name: row.name, status: row.status, createdAt: row.zone_created_at };
}
