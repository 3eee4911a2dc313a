// Repository: finished URL and tag purges, so a partial failure can be retried from a button, even later.
// Only counts and the failed items are kept: a purge can name ten thousand URLs.
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database, PurgeStatus, PurgesTable } from './schema.js';

export interface PurgeJob {
  id: string;
  workspaceId: string;
  zoneId: string;
  zoneName: string;
  actorId: string;
  /** How many URLs and tags were asked. */
  fileCount: number;
  tagCount: number;
  status: PurgeStatus;
  /** What was not confirmed purged (failed, or of unknown outcome): what Retry sends again. */
  failed: { files: string[]; tags: string[] };
  purgeIds: string[];
  retryOf: string | null;
  createdAt: number;
  finishedAt: number | null;
  /** The CDN account of the zone. */
  accountId: string;
}

export type NewPurgeJob = Pick<
  PurgeJob,
  | 'id'
  | 'workspaceId'
  | 'zoneId'
  | 'zoneName'
  | 'actorId'
  | 'fileCount'
  | 'tagCount'
  | 'failed'
  | 'purgeIds'
> & {
  /** How many of `failed` may have been purged all the same (the CDN did not answer). */
  unconfirmed?: number;
  retryOf?: string;
  /** The zone's CDN account. */
  accountId: string;
};

export class PurgeRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /**
   * Records a finished purge under `id` (the job's, so a resumed job records the same one): the
   * first write stays, a second changes nothing. Returns the record as stored.
   */
  async record(input: NewPurgeJob): Promise<PurgeJob> {
    const failedCount = input.failed.files.length + input.failed.tags.length;
    const total = input.fileCount + input.tagCount;
    // None confirmed: `unknown` when some may have been purged all the same, never `failed`.
    const none = (input.unconfirmed ?? 0) > 0 ? 'unknown' : 'failed';
    const row: Selectable<PurgesTable> = {
      id: input.id,
      workspace_id: input.workspaceId,
      account_id: input.accountId,
      zone_id: input.zoneId,
      zone_name: input.zoneName,
      actor_id: input.actorId,
      file_count: input.fileCount,
      tag_count: input.tagCount,
      status: failedCount === 0 ? 'succeeded' : failedCount === total ? none : 'partial',
      failed_files: JSON.stringify(input.failed.files),
      failed_tags: JSON.stringify(input.failed.tags),
      purge_ids: JSON.stringify(input.purgeIds),
      retry_of: input.retryOf ?? null,
      created_at: this.clock.now(),
      finished_at: this.clock.now(),
    };
    const inserted = await this.db
      .insertInto('purges')
      .values(row)
      .onConflict((c) => c.column('id').doNothing())
      .executeTakeFirst();
    // Recorded before (a job run again): the first record stands.
    if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return toJob(row);
    return (await this.get(input.id)) ?? toJob(row);
  }

  async get(id: string): Promise<PurgeJob | undefined> {
    const row = await this.db
      .selectFrom('purges')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toJob(row);
  }
}

const list = (json: string | null): string[] => (json ? (JSON.parse(json) as string[]) : []);

function toJob(row: Selectable<PurgesTable>): PurgeJob {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    zoneId: row.zone_id,
    zoneName: row.zone_name,
    actorId: row.actor_id,
    fileCount: row.file_count,
    tagCount: row.tag_count,
    status: row.status,
    failed: { files: list(row.failed_files), tags: list(row.failed_tags) },
    purgeIds: list(row.purge_ids),
    retryOf: row.retry_of,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    accountId: row.account_id,
  };
}
