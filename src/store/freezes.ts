// Repository: change freezes and their exceptions. A freeze is removed once (a conditional UPDATE);
// an exception leaves `pending` once and is used once, however many replicas or clicks race.
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import type {
  Database,
  FreezeExceptionStatus,
  FreezeExceptionsTable,
  FreezesTable,
} from './schema.js';

/** A day of the week (ISO: 1 is Monday, 7 Sunday) and a local time `HH:mm`. */
export interface WeeklyPoint {
  weekday: number;
  time: string;
}

/** When a freeze holds, in its time zone's local time (`YYYY-MM-DDTHH:mm` for one window). */
export type FreezeRule =
  | { kind: 'once'; start: string; end: string }
  | { kind: 'weekly'; start: WeeklyPoint; end: WeeklyPoint };

/** What a freeze refuses: purge everything, rate-limit changes, zone creation, URL/tag purges. */
export type FreezeAction = 'everything' | 'ratelimit' | 'create' | 'purge';
export const FREEZE_ACTIONS: readonly FreezeAction[] = [
  'everything',
  'ratelimit',
  'create',
  'purge',
];

export interface Freeze {
  id: string;
  workspaceId: string;
  scope: 'workspace' | 'account' | 'zone';
  /** The account (`account` scope), or the zone's account; null for the workspace. */
  accountId: string | null;
  zoneId: string | null;
  targetName: string;
  rule: FreezeRule;
  timeZone: string;
  reason: string;
  channelId: string;
  /** URL and tag purges are refused too. */
  purges: boolean;
  createdBy: string;
  createdAt: number;
  announcedStart: number;
  announcedEnd: number;
}

export type NewFreeze = Omit<Freeze, 'id' | 'createdAt' | 'announcedStart' | 'announcedEnd'>;

export interface FreezeException {
  id: string;
  workspaceId: string;
  freezeId: string;
  action: FreezeAction;
  zoneId: string | null;
  accountId: string | null;
  targetName: string;
  requesterId: string;
  reason: string;
  channelId: string;
  messageTs: string | null;
  status: FreezeExceptionStatus;
  decidedBy: string | null;
  decidedAt: number | null;
  usedAt: number | null;
  expiresAt: number;
  createdAt: number;
}

export type NewFreezeException = Pick<
  FreezeException,
  | 'workspaceId'
  | 'freezeId'
  | 'action'
  | 'zoneId'
  | 'accountId'
  | 'targetName'
  | 'requesterId'
  | 'reason'
  | 'channelId'
  | 'expiresAt'
>;

/** At most this many freezes a workspace keeps at once (lists and checks stay small). */
export const MAX_FREEZES = 50;

export class FreezeRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly newId: () => string = randomUUID,
  ) {}

  async create(input: NewFreeze): Promise<Freeze> {
    const row: Selectable<FreezesTable> = {
      id: this.newId(),
      workspace_id: input.workspaceId,
      scope: input.scope,
      account_id: input.accountId,
      zone_id: input.zoneId,
      target_name: input.targetName,
      rule: JSON.stringify(input.rule),
      time_zone: input.timeZone,
      reason: input.reason,
      channel_id: input.channelId,
      purges: input.purges ? 1 : 0,
      created_by: input.createdBy,
      created_at: this.clock.now(),
      removed_at: null,
      removed_by: null,
      announced_start: 0,
      announced_end: 0,
    };
    await this.db.insertInto('freezes').values(row).execute();
    return toFreeze(row);
  }

  /** The workspace's freezes not removed, oldest first. */
  async list(workspaceId: string): Promise<Freeze[]> {
    const rows = await this.db
      .selectFrom('freezes')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('removed_at', 'is', null)
      .orderBy('created_at')
      .limit(MAX_FREEZES)
      .execute();
    return rows.map(toFreeze);
  }

  async get(workspaceId: string, id: string): Promise<Freeze | undefined> {
    const row = await this.db
      .selectFrom('freezes')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    return row && toFreeze(row);
  }

  /** Removes it for the one caller that wins; false when it was already removed or is not there. */
  async remove(workspaceId: string, id: string, by: string): Promise<boolean> {
    const result = await this.db
      .updateTable('freezes')
      .set({ removed_at: this.clock.now(), removed_by: by })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    return (result.numUpdatedRows ?? 0n) > 0n;
  }

  /** Freezes of every workspace not removed, a page at a time (the announcement round). */
  async page(after: string, limit: number): Promise<Freeze[]> {
    const rows = await this.db
      .selectFrom('freezes')
      .selectAll()
      .where('removed_at', 'is', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toFreeze);
  }

  /**
   * Moves what was announced from `from` to `to` (epoch ms of a window's start or end) for the one
   * caller that wins.
   */
  async markAnnounced(
    id: string,
    which: 'start' | 'end',
    from: number,
    to: number,
  ): Promise<boolean> {
    const column = which === 'start' ? 'announced_start' : 'announced_end';
    const result = await this.db
      .updateTable('freezes')
      .set({ [column]: to })
      .where('id', '=', id)
      .where(column, '=', from)
      .executeTakeFirst();
    return (result.numUpdatedRows ?? 0n) > 0n;
  }

  async createException(input: NewFreezeException): Promise<FreezeException> {
    const row: Selectable<FreezeExceptionsTable> = {
      id: this.newId(),
      workspace_id: input.workspaceId,
      freeze_id: input.freezeId,
      action: input.action,
      zone_id: input.zoneId,
      account_id: input.accountId,
      target_name: input.targetName,
      requester_id: input.requesterId,
      reason: input.reason,
      channel_id: input.channelId,
      message_ts: null,
      status: 'pending',
      decided_by: null,
      decided_at: null,
      used_at: null,
      expires_at: input.expiresAt,
      created_at: this.clock.now(),
    };
    await this.db.insertInto('freeze_exceptions').values(row).execute();
    return toException(row);
  }

  async getException(workspaceId: string, id: string): Promise<FreezeException | undefined> {
    const row = await this.db
      .selectFrom('freeze_exceptions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toException(row);
  }

  async setExceptionMessage(id: string, ts: string): Promise<void> {
    await this.db
      .updateTable('freeze_exceptions')
      .set({ message_ts: ts })
      .where('id', '=', id)
      .execute();
  }

  /** Moves a pending exception to `status` for the one caller that wins; undefined otherwise. */
  async decideException(
    id: string,
    status: 'approved' | 'denied',
    by: string,
  ): Promise<FreezeException | undefined> {
    const now = this.clock.now();
    const result = await this.db
      .updateTable('freeze_exceptions')
      .set({ status, decided_by: by, decided_at: now })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if ((result.numUpdatedRows ?? 0n) === 0n) return undefined;
    const row = await this.db
      .selectFrom('freeze_exceptions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return toException(row);
  }

  /**
   * Exceptions still open (pending, or approved and unused) that can no longer be used: their
   * window ended, or their freeze was removed (only `freezeId`'s, when given). A page at a time.
   */
  async toClose(limit: number, freezeId?: string): Promise<FreezeException[]> {
    let query = this.db
      .selectFrom('freeze_exceptions as e')
      .innerJoin('freezes as f', 'f.id', 'e.freeze_id')
      .selectAll('e')
      .where('e.status', 'in', ['pending', 'approved'])
      .where((w) =>
        w.or([w('e.expires_at', '<=', this.clock.now()), w('f.removed_at', 'is not', null)]),
      );
    if (freezeId !== undefined) query = query.where('e.freeze_id', '=', freezeId);
    return (await query.orderBy('e.id').limit(limit).execute()).map(toException);
  }

  /** Closes an open exception as `status` for the one caller that wins; undefined otherwise. */
  async closeException(
    id: string,
    status: 'expired' | 'cancelled',
  ): Promise<FreezeException | undefined> {
    const result = await this.db
      .updateTable('freeze_exceptions')
      .set({ status })
      .where('id', '=', id)
      .where('status', 'in', ['pending', 'approved'])
      .executeTakeFirst();
    if ((result.numUpdatedRows ?? 0n) === 0n) return undefined;
    const row = await this.db
      .selectFrom('freeze_exceptions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return toException(row);
  }

  /** Whether the requester holds an approved, unexpired exception for the action there (unused). */
  async holdsException(input: ExceptionHolder): Promise<boolean> {
    return (await this.#approved(input).limit(1).execute()).length > 0;
  }

  /**
   * Uses one approved, unexpired exception of the requester for the action on the zone (or, with
   * no zone, on the account): true for the one caller that wins it.
   */
  async useException(input: ExceptionHolder): Promise<FreezeException | undefined> {
    const now = this.clock.now();
    for (const row of await this.#approved(input).orderBy('created_at').limit(5).execute()) {
      const used = await this.db
        .updateTable('freeze_exceptions')
        .set({ status: 'used', used_at: now })
        .where('id', '=', row.id)
        .where('status', '=', 'approved')
        .executeTakeFirst();
      if ((used.numUpdatedRows ?? 0n) > 0n)
        return toException({ ...row, status: 'used', used_at: now });
    }
    return undefined;
  }

  #approved(input: ExceptionHolder) {
    const query = this.db
      .selectFrom('freeze_exceptions')
      .selectAll()
      .where('workspace_id', '=', input.workspaceId)
      .where('requester_id', '=', input.requesterId)
      .where('status', '=', 'approved')
      .where('action', '=', input.action)
      .where('expires_at', '>', this.clock.now());
    return input.zoneId === null
      ? query.where('zone_id', 'is', null).where('account_id', 'is', input.accountId)
      : query.where('zone_id', '=', input.zoneId);
  }
}

/** Whose exception, for which action, on a zone (or, with no zone, an account). */
export interface ExceptionHolder {
  workspaceId: string;
  requesterId: string;
  action: FreezeAction;
  zoneId: string | null;
  accountId: string | null;
}

function toFreeze(row: Selectable<FreezesTable>): Freeze {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    scope: row.scope,
    accountId: row.account_id,
    zoneId: row.zone_id,
    targetName: row.target_name,
    rule: JSON.parse(row.rule) as FreezeRule,
    timeZone: row.time_zone,
    reason: row.reason,
    channelId: row.channel_id,
    purges: Number(row.purges) === 1,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    announcedStart: Number(row.announced_start),
    announcedEnd: Number(row.announced_end),
  };
}

function toException(row: Selectable<FreezeExceptionsTable>): FreezeException {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    freezeId: row.freeze_id,
    action: row.action as FreezeAction,
    zoneId: row.zone_id,
    accountId: row.account_id,
    targetName: row.target_name,
    requesterId: row.requester_id,
    reason: row.reason,
    channelId: row.channel_id,
    messageTs: row.message_ts,
    status: row.status,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at === null ? null : Number(row.decided_at),
    usedAt: row.used_at === null ? null : Number(row.used_at),
    expiresAt: Number(row.expires_at),
    createdAt: Number(row.created_at),
  };
}
