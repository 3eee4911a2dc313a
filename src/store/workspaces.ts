// Repository: workspaces and their settings.
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Clock } from '../clock.js';
import type { LimitName } from '../errors.js';
import type { Database, GuestAccess, WorkspacesTable } from './schema.js';

export type { GuestAccess };

/** How much a workspace, and each person in it, may store (`/cdn config limits`). */
export interface WorkspaceLimits extends Record<LimitName, number> {
  /** Thresholds on one watch. */
  rulesPerWatch: number;
  /** Watches in the workspace, and made by one person. */
  watches: number;
  watchesPerPerson: number;
  /** Live (not stopped) daily reports in the workspace, and made by one person. */
  reports: number;
  reportsPerPerson: number;
}

export type { LimitName };

/** The limits of a workspace whose admin set none (documented in docs/commands.md and docs/security.md). */
export const DEFAULT_LIMITS: Readonly<WorkspaceLimits> = {
  rulesPerWatch: 10,
  watches: 200,
  watchesPerPerson: 50,
  reports: 100,
  reportsPerPerson: 20,
};

/** The most an admin may raise each to: every limit stays a bound. */
export const LIMIT_CEILINGS: Readonly<WorkspaceLimits> = {
  rulesPerWatch: 100,
  watches: 10_000,
  watchesPerPerson: 10_000,
  reports: 10_000,
  reportsPerPerson: 10_000,
};

const LIMIT_COLUMNS = {
  rulesPerWatch: 'limit_rules_per_watch',
  watches: 'limit_watches',
  watchesPerPerson: 'limit_watches_per_person',
  reports: 'limit_reports',
  reportsPerPerson: 'limit_reports_per_person',
} as const satisfies Record<LimitName, keyof WorkspacesTable>;

export interface Workspace {
  id: string;
  enterpriseId: string | null;
  operatorGroupId: string | null;
  approverGroupId: string | null;
  approvalTtlMinutes: number;
  /** What guests may do here: `read` (default) or `operate` (never approve). */
  guestAccess: GuestAccess;
  reportTimeOfDay: string;
  /** What it may store: the admin's values, the defaults elsewhere. */
  limits: WorkspaceLimits;
  createdAt: number;
  updatedAt: number;
}

export type WorkspaceSettings = Partial<
  Pick<
    Workspace,
    'operatorGroupId' | 'approverGroupId' | 'approvalTtlMinutes' | 'guestAccess' | 'reportTimeOfDay'
  >
> & { limits?: Partial<WorkspaceLimits> };

export class WorkspaceRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** The workspace, created with defaults on first sight. */
  async ensure(id: string, enterpriseId: string | null = null): Promise<Workspace> {
    await this.db
      .insertInto('workspaces')
      .values(newWorkspaceRow(id, enterpriseId, this.clock.now()))
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
    return (await this.get(id)) as Workspace;
  }

  async get(id: string): Promise<Workspace | undefined> {
    const row = await this.db
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toWorkspace(row);
  }

  async update(id: string, settings: WorkspaceSettings): Promise<Workspace> {
    await this.ensure(id);
    const patch: Updateable<WorkspacesTable> = { updated_at: this.clock.now() };
    if (settings.operatorGroupId !== undefined) patch.operator_group_id = settings.operatorGroupId;
    if (settings.approverGroupId !== undefined) patch.approver_group_id = settings.approverGroupId;
    if (settings.approvalTtlMinutes !== undefined) {
      patch.approval_ttl_minutes = settings.approvalTtlMinutes;
    }
    if (settings.guestAccess !== undefined) patch.guest_access = settings.guestAccess;
    if (settings.reportTimeOfDay !== undefined) patch.report_time_of_day = settings.reportTimeOfDay;
    for (const [name, value] of Object.entries(settings.limits ?? {}) as [LimitName, number][])
      patch[LIMIT_COLUMNS[name]] = value;
    await this.db.updateTable('workspaces').set(patch).where('id', '=', id).execute();
    return (await this.get(id)) as Workspace;
  }
}

/** A workspace's row with the defaults it starts with. */
export function newWorkspaceRow(id: string, enterpriseId: string | null, now: number) {
  return {
    id,
    enterprise_id: enterpriseId,
    operator_group_id: null,
    approver_group_id: null,
    approval_ttl_minutes: 30,
    report_time_of_day: '09:00',
    created_at: now,
    updated_at: now,
  };
}

function toWorkspace(row: Selectable<WorkspacesTable>): Workspace {
  return {
    id: row.id,
    enterpriseId: row.enterprise_id,
    operatorGroupId: row.operator_group_id,
    approverGroupId: row.approver_group_id,
    approvalTtlMinutes: row.approval_ttl_minutes,
    // A value this version does not know (written by a newer one) grants nothing.
    guestAccess: row.guest_access === 'operate' ? 'operate' : 'read',
    reportTimeOfDay: row.report_time_of_day,
    limits: limitsOf(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function limitsOf(row: Selectable<WorkspacesTable>): WorkspaceLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const name of Object.keys(LIMIT_COLUMNS) as LimitName[]) {
    const value = row[LIMIT_COLUMNS[name]];
    if (value !== null) limits[name] = Number(value);
  }
  return limits;
}
