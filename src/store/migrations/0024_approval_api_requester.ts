// Migration 0024_approval_api_requester. A purge of everything asked for over the HTTP API names
// its requester as the token (and the CI's `context.actor`, and the Slack user that actor was
// found to be by e-mail), so the approval message shows who asked and that person cannot approve.
// Shipped: never changed; a change to the schema is a new migration.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // JSON { tokenId, tokenName, actor?, actorUserId? }; null for a request made in Slack (every
  // existing row) or by an older replica.
  await db.schema.alterTable('approvals').addColumn('api_requester', 'text').execute();
}
