// Purging URLs and tags: plan, run in batches with progress, record, audit, and retry what failed.
import type { PurgeProgress, PurgeReport } from '../cdn/purge.js';
import { AppError } from '../errors.js';
import type { Store } from '../store/index.js';
import type { PurgeJob } from '../store/purges.js';
import type { CdnAccess } from './cdn-access.js';
import { type PurgeArgs, type PurgeGroup, type PurgePlan, planPurge } from './purge-targets.js';
import type { ZoneService } from './zones.js';

export interface PurgeRun {
  job: PurgeJob;
  report: PurgeReport;
}

export class PurgeService {
  constructor(
    private readonly cdn: CdnAccess,
    private readonly zones: ZoneService,
    private readonly store: Store,
  ) {}

  /** Checks and groups what the user gave; nothing is sent. */
  async plan(workspaceId: string, args: Extract<PurgeArgs, { kind: 'items' }>): Promise<PurgePlan> {
    const zone =
      args.zone === undefined ? undefined : await this.zones.resolve(workspaceId, args.zone);
    const zones = await this.zones.all(workspaceId);
    return planPurge(
      { ...(zone ? { zone } : {}), urls: args.urls, tags: args.tags, unknown: args.unknown },
      zones,
    );
  }

  async run(
    workspaceId: string,
    group: PurgeGroup,
    actorId: string,
    options: { onProgress?: (progress: PurgeProgress) => void; retryOf?: string } = {},
  ): Promise<PurgeRun> {
    const client = await this.cdn.clientFor(workspaceId);
    const job = await this.store.purges.create({
      workspaceId,
      zoneId: group.zone.id,
      zoneName: group.zone.name,
      actorId,
      fileCount: group.files.length,
      tagCount: group.tags.length,
      ...(options.retryOf ? { retryOf: options.retryOf } : {}),
    });
    const report = await client.purge(
      group.zone.id,
      { files: group.files, tags: group.tags },
      options.onProgress ? { onProgress: options.onProgress } : {},
    );
    const finished =
      (await this.store.purges.finish(job, {
        failed: report.failed,
        purgeIds: report.purgeIds,
      })) ?? job;
    const failedCount = report.failed.files.length + report.failed.tags.length;
    const errors = [...new Set(report.results.flatMap((r) => (r.ok ? [] : [r.error.code])))];
    await this.store.audit.record({
      workspaceId,
      actorId,
      action:
        group.tags.length === 0
          ? 'purge.urls'
          : group.files.length === 0
            ? 'purge.tags'
            : 'purge.urls_tags',
      zoneId: group.zone.id,
      zoneName: group.zone.name,
      outcome: finished.status === 'succeeded' ? 'ok' : finished.status,
      detail: {
        files: group.files.length,
        tags: group.tags.length,
        failed: failedCount,
        requests: report.results.length,
        purgeIds: report.purgeIds.slice(0, 20),
        job: job.id,
        ...(errors.length > 0 ? { errors } : {}),
        ...(options.retryOf ? { retryOf: options.retryOf } : {}),
      },
    });
    return { job: finished, report };
  }

  /** What failed in an earlier purge of this workspace, as a group to send again. */
  async retryGroup(workspaceId: string, jobId: string): Promise<PurgeGroup> {
    const job = await this.store.purges.get(jobId);
    if (!job || job.workspaceId !== workspaceId)
      throw new AppError('invalid_input', 'That purge is not known here.');
    if (job.failed.files.length + job.failed.tags.length === 0) {
      throw new AppError(
        'invalid_input',
        'Nothing failed in that purge: there is nothing to retry.',
      );
    }
    const zone = await this.zones.resolve(workspaceId, job.zoneId);
    return { zone, files: job.failed.files, tags: job.failed.tags };
  }
}
