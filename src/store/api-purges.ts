// Repository: purges asked for over the HTTP API. One row per request, or per (token,
// Idempotency-Key): inserting is insert-or-get on a unique index, so a key names one purge on
// every replica and across restarts. Status writes are conditional, so a late write never
// moves a purge back (running after succeeded).
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import type { ApiPurgeKind, ApiPurgeStatus, ApiPurgesTable, Database } from './schema.js';

export type { ApiPurgeKind, ApiPurgeStatus };

export interface ApiPurgeContext {
  repository?: string | undefined;
  commit?: string | undefined;
  run_url?: string | undefined;
  actor?: string | undefined;
}

export interface ApiPurge {
  id: string;
  workspaceId: string;
  tokenId: string;
  tokenName: string;
  idempotencyKey: string | null;
  bodyHash: string;
  zoneId: string;
  zoneName: string;
  /** The zone's CDN account (its id). */
  accountId: string;
  /** That account's name when asked (empty: an account removed before its name was kept). */
  accountName: string;
  kind: ApiPurgeKind;
  status: ApiPurgeStatus;
  done: number;
  total: number;
  approvalId: string | null;
  error: string | null;
  reason: string | null;
  context: ApiPurgeContext | null;
  createdAt: number;
  updatedAt: number;
}

export type NewApiPurge = Pick<
  ApiPurge,
  | 'accountId'
  | 'accountName'
  | 'workspaceId'
  | 'tokenId'
  | 'tokenName'
  | 'idempotencyKey'
  | 'bodyHash'
  | 'zoneId'
  | 'zoneName'
  | 'kind'
  | 'status'
  | 'total'
  | 'reason'
  | 'context'
>;

/** Statuses a purge never leaves. */
export const FINAL_STATUSES: ReadonlySet<ApiPurgeStatus> = new Set([
  'succeeded',
  'failed',
  'rejected',
  'expired',
  'unknown',
]);

export class ApiPurgeRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly newId: () => string = randomUUID,
  ) {}

  /**
   * Stores a new purge, or, when the token already used this Idempotency-Key, returns the purge
   * stored under it (`created` false), whichever replica stored it.
   */
  async insertOrGet(input: NewApiPurge): Promise<{ purge: ApiPurge; created: boolean }> {
    const now = this.clock.now();
    const row: Selectable<ApiPurgesTable> = {
      id: `ap_${this.newId().replace(/-/g, '')}`,
      workspace_id: input.workspaceId,
      token_id: input.tokenId,
      token_name: input.tokenName,
      idempotency_key: input.idempotencyKey,
      body_hash: input.bodyHash,
      zone_id: input.zoneId,
      zone_name: input.zoneName,
      account_id: input.accountId,
      account_name: input.accountName,
      kind: input.kind,
      status: input.status,
      done: 0,
      total: input.total,
      approval_id: null,
      error: null,
      reason: input.reason,
      context: input.context === null ? null : JSON.stringify(input.context),
      created_at: now,
      updated_at: now,
    };
    const inserted = await this.db
      .insertInto('api_purges')
      .values(row)
      .onConflict((c) => c.columns(['token_id', 'idempotency_key']).doNothing())
      .executeTakeFirst();
    if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n)
      return { purge: toPurge(row), created: true };
    const existing = await this.byKey(input.tokenId, input.idempotencyKey ?? '');
    if (!existing) throw new Error('api purge: key conflict without a row');
    return { purge: existing, created: false };
  }

  async byKey(tokenId: string, key: string): Promise<ApiPurge | undefined> {
    const row = await this.db
      .selectFrom('api_purges')
      .selectAll()
      .where('token_id', '=', tokenId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    return row && toPurge(row);
  }

  async get(id: string): Promise<ApiPurge | undefined> {
    const row = await this.db
      .selectFrom('api_purges')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toPurge(row);
  }

  /**
   * Each of these purges as stored (one query for many: the waiting GETs of one process read
   * theirs together); a purge not found is left out.
   */
  async many(ids: readonly string[]): Promise<Map<string, ApiPurge>> {
    const found = new Map<string, ApiPurge>();
    // In slices, well under either database's limit on bound parameters.
    for (let at = 0; at < ids.length; at += 500) {
      const rows = await this.db
        .selectFrom('api_purges')
        .selectAll()
        .where('id', 'in', ids.slice(at, at + 500))
        .execute();
      for (const row of rows) found.set(row.id, toPurge(row));
    }
    return found;
  }

  /** Removes a purge whose start was refused (nothing was sent): the request created nothing. */
  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('api_purges').where('id', '=', id).execute();
  }

  async setApproval(id: string, approvalId: string): Promise<void> {
    await this.db
      .updateTable('api_purges')
      .set({ approval_id: approvalId, updated_at: this.clock.now() })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Moves a purge on, unless it already ended: a final status is never overwritten. Returns the
   * purge as it now is when it changed (one statement), else undefined.
   */
  async update(
    id: string,
    change: { status?: ApiPurgeStatus; done?: number; total?: number; error?: string | null },
  ): Promise<ApiPurge | undefined> {
    const row = await this.db
      .updateTable('api_purges')
      .set({
        ...(change.status ? { status: change.status } : {}),
        ...(change.done === undefined ? {} : { done: change.done }),
        ...(change.total === undefined ? {} : { total: change.total }),
        ...(change.error === undefined ? {} : { error: change.error }),
        updated_at: this.clock.now(),
      })
      .where('id', '=', id)
      .where('status', 'not in', [...FINAL_STATUSES])
      .returningAll()
      .executeTakeFirst();
    return row && toPurge(row);
  }

  /**
   * Deletes up to `limit` purges asked for before `before` (their Idempotency-Keys go with them);
   * returns how many.
   */
  async prune(before: number, limit: number): Promise<number> {
    const old = this.db
      .selectFrom('api_purges')
      .select('id')
      .where('created_at', '<', before)
      .limit(limit);
    const result = await this.db.deleteFrom('api_purges').where('id', 'in', old).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Purges not started since before `before`, oldest first (then by id): queued (their job may
   * never have been stored), or waiting for an approval that may never have been posted (one
   * posted is left out). `after`: the last purge of the page before; the page goes on after it.
   */
  async notStartedBefore(
    before: number,
    after?: Pick<ApiPurge, 'updatedAt' | 'id'>,
    limit = 100,
  ): Promise<ApiPurge[]> {
    let query = this.db
      .selectFrom('api_purges')
      .selectAll()
      .where('status', 'in', ['queued', 'waiting_for_approval'])
      .where('approval_id', 'is', null)
      .where('updated_at', '<', before);
    if (after)
      query = query.where((eb) =>
        eb.or([
          eb('updated_at', '>', after.updatedAt),
          eb.and([eb('updated_at', '=', after.updatedAt), eb('id', '>', after.id)]),
        ]),
      );
    const rows = await query.orderBy('updated_at').orderBy('id').limit(limit).execute();
    return rows.map(toPurge);
  }
}

function toPurge(row: Selectable<ApiPurgesTable>): ApiPurge {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    tokenId: row.token_id,
    tokenName: row.token_name,
    idempotencyKey: row.idempotency_key,
    bodyHash: row.body_hash,
    zoneId: row.zone_id,
    zoneName: row.zone_name,
    accountId: row.account_id,
    accountName: row.account_name ?? '',
    kind: row.kind,
    status: row.status,
    done: Number(row.done),
    total: Number(row.total),
    approvalId: row.approval_id,
    error: row.error,
    reason: row.reason,
    context: row.context === null ? null : (JSON.parse(row.context) as ApiPurgeContext),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
