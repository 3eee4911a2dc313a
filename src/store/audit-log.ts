// Repository: the audit log: who did what to which zone, and how it went. Never holds a secret.
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely';
import { AUDIT_KINDS, type AuditKindName } from '../audit-kinds.js';
import type { Clock } from '../clock.js';
import { zoneKey } from '../zone-names.js';
import type { AuditLogTable, Database } from './schema.js';

export interface AuditEntry {
  id: number;
  workspaceId: string;
  actorId: string;
  /** Dotted verb, e.g. `purge.files`, `credentials.set`, `ratelimit.on`. */
  action: string;
  zoneId: string | null;
  zoneName: string | null;
  /** e.g. `ok`, `partial`, `failed`, `refused`. */
  outcome: string;
  /** Structured detail (purge ids, counts, error codes). */
  detail: Record<string, unknown> | null;
  at: number;
  /** The CDN account of the zone acted on; absent when the entry names no zone. */
  accountId?: string;
}

/** An entry that names a zone (its id) names its account too. */
export type ZoneOfEntry =
  | { zoneId: string; zoneName: string; accountId: string }
  | { zoneId?: null; zoneName?: string | null; accountId?: string };

export type NewAuditEntry = Omit<
  AuditEntry,
  'id' | 'at' | 'zoneId' | 'zoneName' | 'detail' | 'accountId'
> &
  ZoneOfEntry &
  Partial<Pick<AuditEntry, 'detail'>> & {
    /** Makes the entry once-only: a second record with the same key writes nothing. */
    key?: string;
  };

/** Which entries a search or an export reads; every field narrows it. */
export interface AuditFilter {
  /** A zone by id, or by name in either form. */
  zone?: string;
  /** The entries on zones of one CDN account (its id). */
  account?: { id: string };
  /** Exactly this actor: a Slack user id, `token:<name>`, or `system`. */
  actorId?: string;
  kind?: AuditKindName;
  /** From this time on (ms, included). */
  since?: number;
  /** Before this time (ms, excluded). */
  until?: number;
}

/** Where a page starts or ends: an entry's (at, id), newest first. */
export interface AuditCursor {
  at: number;
  id: number;
}

export class AuditLogRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async record(entry: NewAuditEntry): Promise<AuditEntry | undefined> {
    const row = {
      workspace_id: entry.workspaceId,
      account_id: entry.accountId ?? null,
      actor_id: entry.actorId,
      action: entry.action,
      zone_id: entry.zoneId ?? null,
      zone_name: entry.zoneName ?? null,
      outcome: entry.outcome,
      detail: entry.detail ? JSON.stringify(entry.detail) : null,
      at: this.clock.now(),
      event_key: entry.key ?? null,
    };
    const inserted = await this.db
      .insertInto('audit_log')
      .values(row)
      .onConflict((c) => c.column('event_key').doNothing())
      .returning('id')
      .executeTakeFirst();
    // A keyed entry written before (by an earlier attempt of the same work) is not written again.
    return inserted ? toEntry({ ...row, id: Number(inserted.id) }) : undefined;
  }

  /** The newest entries of a workspace, optionally of one zone (by id, or name in either form). */
  async recent(workspaceId: string, options: { zone?: string; limit?: number } = {}) {
    let query = this.db.selectFrom('audit_log').selectAll().where('workspace_id', '=', workspaceId);
    const zone = options.zone;
    if (zone !== undefined) query = query.where((eb) => zoneIs(eb, zone));
    const rows = await query
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit ?? 20)
      .execute();
    return rows.map(toEntry);
  }

  /**
   * One page of `filter`'s entries, newest first, by keyset: those older than `after` (the next
   * page), or newer than `before` (the previous page), never an OFFSET, so a page costs the same
   * however deep it is.
   */
  async search(
    workspaceId: string,
    filter: AuditFilter,
    page: { after?: AuditCursor; before?: AuditCursor; limit: number },
  ): Promise<AuditEntry[]> {
    let query = this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where((eb) => eb.and(filterConditions(eb, filter)));
    const { after, before } = page;
    if (after)
      query = query.where((eb) =>
        // `at <= ?` first: a range the (workspace, at) index serves, so a deep page does not
        // read every newer row before it (an OR alone is scanned on SQLite).
        eb.and([
          eb('at', '<=', after.at),
          eb.or([eb('at', '<', after.at), eb('id', '<', after.id)]),
        ]),
      );
    if (before)
      query = query.where((eb) =>
        eb.and([
          eb('at', '>=', before.at),
          eb.or([eb('at', '>', before.at), eb('id', '>', before.id)]),
        ]),
      );
    const direction = before && !after ? 'asc' : 'desc';
    const rows = await query
      .orderBy('at', direction)
      .orderBy('id', direction)
      .limit(page.limit)
      .execute();
    const entries = rows.map(toEntry);
    return direction === 'asc' ? entries.reverse() : entries;
  }

  /** The newest entry of a zone with one of `actions` and `outcome`, if any. */
  async latest(workspaceId: string, zoneId: string, actions: string[], outcome: string) {
    const row = await this.#ofZone(workspaceId, zoneId)
      .where('action', 'in', actions)
      .where('outcome', '=', outcome)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row ? toEntry(row) : undefined;
  }

  /** Deletes up to `limit` entries recorded before `before`; returns how many. */
  async prune(before: number, limit: number): Promise<number> {
    const old = this.db.selectFrom('audit_log').select('id').where('at', '<', before).limit(limit);
    const result = await this.db.deleteFrom('audit_log').where('id', 'in', old).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** A zone's entries in [since, until), oldest first (chart markers). */
  async forZoneBetween(workspaceId: string, zoneId: string, since: number, until: number) {
    const rows = await this.#ofZone(workspaceId, zoneId)
      .where('at', '>=', since)
      .where('at', '<', until)
      .orderBy('at')
      .orderBy('id')
      .execute();
    return rows.map(toEntry);
  }

  /** A zone's entries, by its id. */
  #ofZone(workspaceId: string, zoneId: string) {
    return this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('zone_id', '=', zoneId);
  }
}

/** Entries of a zone named by its id, or its name in either form (as typed, or its key). */
function zoneIs(eb: ExpressionBuilder<Database, 'audit_log'>, zone: string) {
  const typed = zone.trim();
  return eb.or([
    eb('zone_id', '=', typed),
    eb('zone_name', '=', typed),
    eb('zone_name', '=', zoneKey(typed)),
  ]);
}

/** The conditions of a filter, for a where clause (an empty filter is every entry). */
function filterConditions(eb: ExpressionBuilder<Database, 'audit_log'>, filter: AuditFilter) {
  const conditions = [];
  const zone = filter.zone?.trim();
  if (zone) conditions.push(zoneIs(eb, zone));
  const account = filter.account;
  if (account) conditions.push(eb('account_id', '=', account.id));
  if (filter.actorId !== undefined) conditions.push(eb('actor_id', '=', filter.actorId));
  if (filter.since !== undefined) conditions.push(eb('at', '>=', filter.since));
  if (filter.until !== undefined) conditions.push(eb('at', '<', filter.until));
  if (filter.kind) {
    // A prefix compared as a prefix (not LIKE, where `_` is a wildcard), the same in both engines.
    const starts = (prefix: string) =>
      eb(sql<string>`substr(action, 1, ${sql.lit(prefix.length)})`, '=', prefix);
    const { prefixes, except = [] } = AUDIT_KINDS[filter.kind];
    conditions.push(eb.or(prefixes.map(starts)));
    for (const prefix of except) conditions.push(eb.not(starts(prefix)));
  }
  return conditions;
}

function toEntry(row: Selectable<AuditLogTable>): AuditEntry {
  return {
    id: Number(row.id),
    workspaceId: row.workspace_id,
    actorId: row.actor_id,
    action: row.action,
    zoneId: row.zone_id,
    zoneName: row.zone_name,
    outcome: row.outcome,
    detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>),
    at: row.at,
    ...(row.account_id === null ? {} : { accountId: row.account_id }),
  };
}
