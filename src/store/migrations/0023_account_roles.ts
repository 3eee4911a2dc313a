// Migration 0023_account_roles. Roles per CDN account: an account may name its own
// operators or approvers group; an account without a row follows the workspace's roles.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_roles')
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    // As every account_id, no foreign key: removing an account deletes its grants itself
    // (AccountUsageRepository.stop), in the transaction that stops what refers to it.
    .addColumn('account_id', 'text', (c) => c.notNull())
    // `operators` or `approvers`.
    .addColumn('role', 'text', (c) => c.notNull())
    // The user group holding the role on this account; null: everyone (as the workspace's null).
    .addColumn('group_id', 'text')
    .addColumn('set_by', 'text', (c) => c.notNull())
    .addColumn('set_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_roles_pk', ['account_id', 'role'])
    .execute();
  await db.schema
    .createIndex('account_roles_workspace')
    .on('account_roles')
    .column('workspace_id')
    .execute();
}
