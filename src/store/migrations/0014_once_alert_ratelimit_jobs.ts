// Migration 0014_once_alert_ratelimit_jobs. An alert's "Turn rate limiting on" is claimed as every
// other piece of work is: a job under a key (`alert-ratelimit:<alert>`), held with a lease. The
// claims stored on alerts (0007, 0009) become such jobs (a change made: succeeded; one under way:
// running, its lease ending when the old claim would have gone stale), then their columns go.
// Shipped: never changed; a change to the schema is a new migration.
import { type Kysely, sql } from 'kysely';

/** How long an old claim not done stayed taken (WatchService before this migration). */
const OLD_CLAIM_STALE_MS = 120_000;

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // Alert ids (`alert_<hex>`) and Slack user ids need no JSON escaping. A claim from before 0009
  // has no times: it was made.
  await sql`
    insert into jobs (id, workspace_id, kind, key, state, payload, checkpoint, attempts, run_at,
      lease_owner, lease_until, error, created_at, updated_at, finished_at)
    select 'alert-ratelimit-' || id, workspace_id, 'alert_ratelimit', 'alert-ratelimit:' || id,
      case when ratelimit_done_at is null and ratelimit_claimed_at is not null
        then 'running' else 'succeeded' end,
      '{"alertId":"' || id || '"}', '{"by":"' || ratelimit_by || '"}', 1,
      coalesce(ratelimit_claimed_at, created_at),
      case when ratelimit_done_at is null and ratelimit_claimed_at is not null
        then 'before-0014' end,
      case when ratelimit_done_at is null and ratelimit_claimed_at is not null
        then ratelimit_claimed_at + ${OLD_CLAIM_STALE_MS} end,
      null, coalesce(ratelimit_claimed_at, created_at),
      coalesce(ratelimit_done_at, ratelimit_claimed_at, created_at),
      case when ratelimit_done_at is null and ratelimit_claimed_at is not null
        then null else coalesce(ratelimit_done_at, created_at) end
    from watch_alerts
    where ratelimit_by is not null
    on conflict (key) do nothing
  `.execute(db);
  for (const column of ['ratelimit_by', 'ratelimit_claimed_at', 'ratelimit_done_at'])
    await db.schema.alterTable('watch_alerts').dropColumn(column).execute();
}
