// Purging URLs and tags: plan, run in batches with progress, record, audit, and retry what failed.
import type { PurgeProgress, PurgeReport } from '../cdn/purge.js';
import { AppError } from '../errors.js';
import type { Store } from '../store/index.js';
import type { PurgeJob } from '../store/purges.js';
import type { CdnAccess } from './cdn-access.js';
import { type PurgeArgs, type PurgeGroup, type PurgePlan, planPurge } from './purge-targets.js';
import type { Zone, ZoneService } from './zones.js';

export interface PurgeRun {
  job: PurgeJob;
  report: PurgeReport;
}

/** Where a purge stands, for its progress message. */
export interface PurgeStatus {
  zoneNames: string[];
  files: number;
  tags: number;
  actorId: string;
  done: number;
  total: number;
}

export interface PurgeOutcome {
  /** One per zone that was purged, in order. */
  runs: PurgeRun[];
  actorId: string;
  /** Why the zones after the last run were not purged, when one failed outright. */
  error?: unknown;
}

/** How a running purge is shown to people; implemented over Slack messages in src/slack. */
export interface PurgeProgressView {
  started(status: PurgeStatus): Promise<void>;
  progressed(status: PurgeStatus): Promise<void>;
  /** Called exactly once, whatever happened: a message that said "Purging…" must not stay so. */
  finished(outcome: PurgeOutcome): Promise<void>;
}

/** Progress is shown at a third and two thirds: with the first post and the result, within a response_url's 5 uses. */
const MILESTONES = 3;
/** Below this many CDN requests, progress would flash by: only the result is shown. */
const PROGRESS_MIN_REQUESTS = 4;

export class PurgeService {
  constructor(
    private readonly deps: {
      cdn: CdnAccess;
      zones: ZoneService;
      store: Store;
      /** Progress updates must never stop a purge; their failures are only logged. */
      onViewError: (error: unknown) => void;
    },
  ) {}

  /** Checks and groups what the user gave; nothing is sent. */
  async plan(workspaceId: string, args: Extract<PurgeArgs, { kind: 'items' }>): Promise<PurgePlan> {
    const { zones } = this.deps;
    const zone = args.zone === undefined ? undefined : await zones.resolve(workspaceId, args.zone);
    return planPurge(
      { ...(zone ? { zone } : {}), urls: args.urls, tags: args.tags, unknown: args.unknown },
      await zones.all(workspaceId),
    );
  }

  /** The one zone every URL falls in, if there is one (to preselect it in the purge form). */
  async commonZone(workspaceId: string, urls: string[]): Promise<Zone | undefined> {
    const { groups } = planPurge({ urls, tags: [] }, await this.deps.zones.all(workspaceId));
    return groups.length === 1 ? groups[0]?.zone : undefined;
  }

  /** Purges each group in turn, showing progress; the view always hears how it ended. */
  async execute(
    workspaceId: string,
    groups: PurgeGroup[],
    actorId: string,
    view: PurgeProgressView,
    options: { retryOf?: string } = {},
  ): Promise<PurgeRun[]> {
    const files = groups.reduce((sum, g) => sum + g.files.length, 0);
    const tags = groups.reduce((sum, g) => sum + g.tags.length, 0);
    const total = files + tags;
    const status = (done: number): PurgeStatus => ({
      zoneNames: groups.map((g) => g.zone.name),
      files,
      tags,
      actorId,
      done,
      total,
    });
    await view.started(status(0));

    const runs: PurgeRun[] = [];
    let updates: Promise<void> = Promise.resolve();
    try {
      const client = await this.deps.cdn.clientFor(workspaceId);
      const showProgress = total >= PROGRESS_MIN_REQUESTS * client.purgeBatchSize;
      let reached = 0;
      let finishedBefore = 0;
      for (const group of groups) {
        const run = await this.run(workspaceId, group, actorId, {
          ...options,
          onProgress: ({ done }) => {
            const overall = finishedBefore + done;
            const milestone = Math.floor((overall * MILESTONES) / total);
            if (!showProgress || milestone <= reached || milestone >= MILESTONES) return;
            reached = milestone;
            // Updates run one after another, and a failed update never stops the purge.
            updates = updates
              .then(() => view.progressed(status(overall)))
              .catch(this.deps.onViewError);
          },
        });
        finishedBefore += group.files.length + group.tags.length;
        runs.push(run);
      }
    } catch (error) {
      await updates;
      await view.finished({ runs, actorId, error });
      return runs;
    }
    await updates;
    await view.finished({ runs, actorId });
    return runs;
  }

  /** One zone's purge: recorded, sent in batches, recorded again, audited. */
  async run(
    workspaceId: string,
    group: PurgeGroup,
    actorId: string,
    options: { onProgress?: (progress: PurgeProgress) => void; retryOf?: string } = {},
  ): Promise<PurgeRun> {
    const { store } = this.deps;
    const client = await this.deps.cdn.clientFor(workspaceId);
    const job = await store.purges.create({
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
      (await store.purges.finish(job, { failed: report.failed, purgeIds: report.purgeIds })) ?? job;
    const failedCount = report.failed.files.length + report.failed.tags.length;
    const errors = [...new Set(report.results.flatMap((r) => (r.ok ? [] : [r.error.code])))];
    await store.audit.record({
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
    const job = await this.deps.store.purges.get(jobId);
    if (!job || job.workspaceId !== workspaceId) throw new AppError({ code: 'purge_unknown' });
    if (job.failed.files.length + job.failed.tags.length === 0)
      throw new AppError({ code: 'nothing_to_retry' });
    const zone = await this.deps.zones.resolve(workspaceId, job.zoneId);
    return { zone, files: job.failed.files, tags: job.failed.tags };
  }
}
