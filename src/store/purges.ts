// Repository: URL and tag purges, so a partial failure can be retried from a button, even later.
// Only counts and the failed items are kept: a purge can name ten thousand URLs.
import { randomUUID } from 'node:crypto';
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
  failed: { files: string[]; tags: string[] };
  purgeIds: string[];
  retryOf: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export type NewPurgeJob = Pick<
  PurgeJob,
  'workspaceId' | 'zoneId' | 'zoneName' | 'actorId' | 'fileCount' | 'tagCount'
> & {
  retryOf?: string;
};

export class PurgeRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly newId: () => string = randomUUID,
  ) {}

  async create(input: NewPurgeJob): Promise<PurgeJob> {
    const row: Selectable<PurgesTable> = {
      id: this.newId(),
      workspace_id: input.workspaceId,
      zone_id: input.zoneId,
      zone_name: input.zoneName,
      actor_id: input.actorId,
      file_count: input.fileCount,
      tag_count: input.tagCount,
      status: 'running',
      failed_files: null,
      failed_tags: null,
      purge_ids: null,
      retry_of: input.retryOf ?? null,
      created_at: this.clock.now(),
      finished_at: null,
    };
    await this.db.insertInto('purges').values(row).execute();
    return toJob(row);
  }

  /** Closes a running job with its outcome; undefined if it was already closed. */
  async finish(
    job: PurgeJob,
    result: { failed: { files: string[]; tags: string[] }; purgeIds: string[] },
  ): Promise<PurgeJob | undefined> {
    const failedCount = result.failed.files.length + result.failed.tags.length;
    const total = job.fileCount + job.tagCount;
    const status: PurgeStatus =
      failedCount === 0 ? 'succeeded' : failedCount === total ? 'failed' : 'partial';
    const finishedAt = this.clock.now();
    const updated = await this.db
      .updateTable('purges')
      .set({
        status,
        failed_files: JSON.stringify(result.failed.files),
        failed_tags: JSON.stringify(result.failed.tags),
        purge_ids: JSON.stringify(result.purgeIds),
        finished_at: finishedAt,
      })
      .where('id', '=', job.id)
      .where('status', '=', 'running')
      .executeTakeFirst();
    // Built from what is known rather than read back: a job can hold ten thousand URLs.
    return updated.numUpdatedRows > 0n
      ? { ...job, status, failed: result.failed, purgeIds: result.purgeIds, finishedAt }
      : undefined;
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
  };
}
