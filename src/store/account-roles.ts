// Repository: roles given per CDN account: an account's own operators or approvers group.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { AccountRolesTable, Database } from './schema.js';

export type AccountRole = AccountRolesTable['role'];

/** An account's own holder of a role: a user group, or (null) everyone. */
export interface AccountRoleGrant {
  accountId: string;
  role: AccountRole;
  groupId: string | null;
  setBy: string;
  setAt: number;
}

export class AccountRoleRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** The account's own grant of the role; undefined: the workspace's role applies. */
  async get(
    workspaceId: string,
    accountId: string,
    role: AccountRole,
  ): Promise<AccountRoleGrant | undefined> {
    const row = await this.db
      .selectFrom('account_roles')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('account_id', '=', accountId)
      .where('role', '=', role)
      .executeTakeFirst();
    return row && toGrant(row);
  }

  /** Every account's own grants in the workspace. */
  async list(workspaceId: string): Promise<AccountRoleGrant[]> {
    const rows = await this.db
      .selectFrom('account_roles')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('account_id')
      .orderBy('role')
      .execute();
    return rows.map(toGrant);
  }

  /** Gives the account its own holder of the role (a group, or null: everyone). */
  async set(
    workspaceId: string,
    accountId: string,
    role: AccountRole,
    groupId: string | null,
    by: string,
  ): Promise<void> {
    const values = { group_id: groupId, set_by: by, set_at: this.clock.now() };
    await this.db
      .insertInto('account_roles')
      .values({ workspace_id: workspaceId, account_id: accountId, role, ...values })
      .onConflict((c) => c.columns(['account_id', 'role']).doUpdateSet(values))
      .execute();
  }

  /** The account follows the workspace's role again; true when it had its own. */
  async clear(workspaceId: string, accountId: string, role: AccountRole): Promise<boolean> {
    const result = await this.db
      .deleteFrom('account_roles')
      .where('workspace_id', '=', workspaceId)
      .where('account_id', '=', accountId)
      .where('role', '=', role)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

function toGrant(row: AccountRolesTable): AccountRoleGrant {
  return {
    accountId: row.account_id,
    role: row.role,
    groupId: row.group_id,
    setBy: row.set_by,
    setAt: Number(row.set_at),
  };
}
