// Migration 0029_api_token_account_scope. A token of the HTTP API reaches one CDN account, or every
// account only when an admin chose so. Tokens stored without an account
// were made for the workspace's single key, now its account `default`: they are bound to it, so an
// account added later (`prod` beside `default`) is never within their reach.
// Shipped: never changed; a change to the schema is a new migration.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // `account`: the token reaches its account_id only (null: the account `default`); `all`: every
  // account of the workspace, including those added later, as chosen by an admin in the token
  // form. Every existing row is `account`: no token is widened. An older replica during the
  // rollout does not write the column: its tokens take the default, the narrow one.
  await db.schema
    .alterTable('api_tokens')
    .addColumn('account_scope', 'text', (c) => c.notNull().defaultTo('account'))
    .execute();
  // Null meant the workspace's one key, which is `default`: name it by its id, as 0026 did for
  // watches and reports. A workspace with no `default` keeps null, which still means `default`
  // (such a token reaches nothing until the workspace has one), never "every account".
  await sql`
    update api_tokens set account_id = (
      select a.id from cdn_accounts a
      where a.workspace_id = api_tokens.workspace_id and a.name_key = 'default')
    where account_id is null
  `.execute(db);
}
