// Repository: purge-everything approval requests. Every state change is one conditional UPDATE,
// so a request leaves `pending` exactly once however many replicas or clicks race for it.
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import type { ApprovalStatus, ApprovalsTable, Database } from './schema.js';

/** Who asked over the HTTP API: the token, and the person the CI says started the run. */
export interface ApiRequester {
  tokenId: string;
  tokenName: string;
  /** The zone's CDN account, by name when asked; absent in requests made before. */
  account?: string;
  /** The CI's `context.actor`, as sent (a free string). */
  actor?: string;
  /** The Slack user the actor is, found by e-mail when it was one; they may not approve. */
  actorUserId?: string;
  /** Why the actor maps to nobody: not an e-mail, no such user, or Slack could not be asked. */
  unmapped?: 'not_email' | 'not_found' | 'unchecked';
}

export interface Approval {
  id: string;
  workspaceId: string;
  zoneId: string;
  zoneName: string;
  requesterId: string;
  reason: string;
  channelId: string;
  messageTs: string | null;
  status: ApprovalStatus;
  decidedBy: string | null;
  decidedAt: number | null;
  decisionNote: string | null;
  /** `unknown`: the CDN did not confirm (a timeout, a crash mid-call); it may have purged. */
  outcome: 'succeeded' | 'failed' | 'unknown' | null;
  purgeId: string | null;
  outcomeDetail: string | null;
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
  /** The zone's CDN account. */
  accountId: string;
  /**
   * That account's name when asked, for its messages (0028); absent: one account in play, or a
   * request made before.
   */
  accountName?: string;
  /** Set when it was asked for over the HTTP API: then `requesterId` is `token:<name>`. */
  api?: ApiRequester;
  /** For a later time: once approved it waits till then, run by its scheduled purge's job. */
  notBefore?: number;
  /** Cancelled because an admin (`decidedBy`) removed its CDN account, not by its requester. */
  accountRemoved?: true;
}

/** The decision note of a request cancelled because its CDN account was removed. */
export const ACCOUNT_REMOVED_NOTE = 'account removed';

export type NewApproval = Pick<
  Approval,
  | 'workspaceId'
  | 'zoneId'
  | 'zoneName'
  | 'requesterId'
  | 'reason'
  | 'channelId'
  | 'api'
  | 'accountId'
  | 'accountName'
  | 'notBefore'
> & { ttlMs: number };

/** The ways out of `pending` a person can take; `expired` is the clock's. */
export type Decision = 'approved' | 'denied' | 'cancelled';

export class ApprovalRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly newId: () => string = randomUUID,
  ) {}

  /**
   * A new pending request, unless the zone already has one: then that one (a database constraint
   * keeps it to one, however many replicas race). A request past its time no longer counts.
   */
  async create(input: NewApproval): Promise<{ created: Approval } | { pending: Approval }> {
    const now = this.clock.now();
    const row: Selectable<ApprovalsTable> = {
      id: this.newId(),
      workspace_id: input.workspaceId,
      account_id: input.accountId,
      zone_id: input.zoneId,
      zone_name: input.zoneName,
      requester_id: input.requesterId,
      reason: input.reason,
      channel_id: input.channelId,
      message_ts: null,
      status: 'pending',
      decided_by: null,
      decided_at: null,
      decision_note: null,
      outcome: null,
      purge_id: null,
      outcome_detail: null,
      expires_at: now + input.ttlMs,
      created_at: now,
      updated_at: now,
      api_requester: input.api ? JSON.stringify(input.api) : null,
      account_name: input.accountName ?? null,
      not_before: input.notBefore ?? null,
    };
    await this.#expireZone(input, now);
    const inserted = await this.db
      .insertInto('approvals')
      .values(row)
      // The only conflict a new id can meet: the zone's one open request (a partial unique index).
      .onConflict((c) => c.doNothing())
      .executeTakeFirst();
    if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return { created: toApproval(row) };
    const pending = await this.db
      .selectFrom('approvals')
      .selectAll()
      .where('workspace_id', '=', input.workspaceId)
      .where('account_id', '=', input.accountId)
      .where('zone_id', '=', input.zoneId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    // Decided between the insert and this read: the zone is free again, so try once more.
    return pending ? { pending: toApproval(pending) } : this.create(input);
  }

  /** Expires the zone's pending request if its time is up (the sweeper may not have run yet). */
  async #expireZone(
    input: Pick<NewApproval, 'workspaceId' | 'zoneId' | 'accountId'>,
    now: number,
  ): Promise<void> {
    await this.db
      .updateTable('approvals')
      .set({ status: 'expired', updated_at: now })
      .where('workspace_id', '=', input.workspaceId)
      .where('account_id', '=', input.accountId)
      .where('zone_id', '=', input.zoneId)
      .where('status', '=', 'pending')
      .where('expires_at', '<=', now)
      .execute();
  }

  async get(id: string): Promise<Approval | undefined> {
    const row = await this.db
      .selectFrom('approvals')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toApproval(row);
  }

  /** Where the request message was posted, so every later change can update it. */
  async setMessage(id: string, channelId: string, messageTs: string): Promise<void> {
    await this.db
      .updateTable('approvals')
      .set({ channel_id: channelId, message_ts: messageTs, updated_at: this.clock.now() })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Moves a pending, unexpired request to `decision`. Returns the updated request to the one
   * caller that won, and undefined to everyone else (already decided, expired, or unknown).
   */
  async decide(
    id: string,
    decision: Decision,
    by: { userId: string; note?: string },
  ): Promise<Approval | undefined> {
    const now = this.clock.now();
    const row = await this.db
      .updateTable('approvals')
      .set({
        status: decision,
        decided_by: by.userId,
        decided_at: now,
        decision_note: by.note ?? null,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('expires_at', '>', now)
      .returningAll()
      .executeTakeFirst();
    return row && toApproval(row);
  }

  /** Expires every pending request whose time is up; returns those this call expired. */
  async expireDue(): Promise<Approval[]> {
    const now = this.clock.now();
    const rows = await this.db
      .updateTable('approvals')
      .set({ status: 'expired', updated_at: now })
      .where('status', '=', 'pending')
      .where('expires_at', '<=', now)
      .returningAll()
      .execute();
    return rows.map(toApproval);
  }

  /** Expires a workspace's pending requests at once (uninstall, key removed). */
  async expireAllPending(workspaceId: string): Promise<Approval[]> {
    const now = this.clock.now();
    const rows = await this.db
      .updateTable('approvals')
      .set({ status: 'expired', updated_at: now })
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'pending')
      .returningAll()
      .execute();
    return rows.map(toApproval);
  }

  /** Records what the approved purge did, once: a second call changes nothing and returns false. */
  async recordOutcome(
    id: string,
    outcome: { result: 'succeeded' | 'failed' | 'unknown'; purgeId?: string; detail?: string },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('approvals')
      .set({
        outcome: outcome.result,
        purge_id: outcome.purgeId ?? null,
        outcome_detail: outcome.detail ?? null,
        updated_at: this.clock.now(),
      })
      .where('id', '=', id)
      .where('status', '=', 'approved')
      .where('outcome', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Approved before `before` with no outcome yet: purges whose job may never have been stored. */
  async approvedWithoutOutcome(before: number): Promise<Approval[]> {
    const rows = await this.db
      .selectFrom('approvals')
      .selectAll()
      .where('status', '=', 'approved')
      .where('outcome', 'is', null)
      .where('decided_at', '<', before)
      // A request for a later time is its scheduled purge's to run (or not), checked again then.
      .where('not_before', 'is', null)
      .limit(100)
      .execute();
    return rows.map(toApproval);
  }
}

function toApproval(row: Selectable<ApprovalsTable>): Approval {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    zoneId: row.zone_id,
    zoneName: row.zone_name,
    requesterId: row.requester_id,
    reason: row.reason,
    channelId: row.channel_id,
    messageTs: row.message_ts,
    status: row.status,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    decisionNote: row.decision_note,
    outcome: row.outcome,
    purgeId: row.purge_id,
    outcomeDetail: row.outcome_detail,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    accountId: row.account_id,
    ...(row.account_name === null ? {} : { accountName: row.account_name }),
    ...(row.not_before === null ? {} : { notBefore: Number(row.not_before) }),
    ...(row.api_requester ? { api: apiRequesterOf(row.api_requester) } : {}),
    ...(row.status === 'cancelled' && row.decision_note === ACCOUNT_REMOVED_NOTE
      ? { accountRemoved: true as const }
      : {}),
  };
}

/** The stored requester, with only the fields it should have (a row is not trusted blindly). */
function apiRequesterOf(json: string): ApiRequester {
  const raw = JSON.parse(json) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const actor = text(raw.actor);
  const actorUserId = text(raw.actorUserId);
  const unmapped = text(raw.unmapped);
  const account = text(raw.account);
  return {
    tokenId: text(raw.tokenId) ?? '',
    tokenName: text(raw.tokenName) ?? '',
    ...(account !== undefined ? { account } : {}),
    ...(actor !== undefined ? { actor } : {}),
    ...(actorUserId !== undefined ? { actorUserId } : {}),
    ...(unmapped === 'not_email' || unmapped === 'not_found' || unmapped === 'unchecked'
      ? { unmapped }
      : {}),
  };
}
