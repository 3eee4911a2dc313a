// A purge job's batches as stored, and what it leaves once it ends: each zone's purge record and
// audit entry, written once however often the job runs.
import { restoredError, type StoredCdnError } from '../../cdn/outcome.js';
import { type PurgeBatch, type PurgeBatchResult, reportOf } from '../../cdn/purge.js';
import type { Store } from '../../store/index.js';
import type { Zone } from '../zones/zones.js';
import type { PurgeRun } from './purge-status.js';

/** One batch of a purge job, stored before anything is sent: the job's step. */
export interface PurgeStep extends PurgeBatch {
  /** Which group (zone) of the payload the batch belongs to. */
  group: number;
}

/** What came of a batch: the CDN took it, or its error as stored. */
export type StepResult = { ok: true; purgeId?: string } | { ok: false; error: StoredCdnError };

/** What a batch that was never sent counts as, when a purge job is given up: a failure. */
export const NOT_SENT: StepResult = {
  ok: false,
  error: {
    code: 'unavailable',
    message: 'not sent: the purge stopped after repeated failures',
    notSent: true,
  },
};

/** The purge job as recording reads it: who asked, each zone's group, where it came from. */
export interface RecordedPurge {
  id: string;
  workspaceId: string;
  payload: {
    actorId: string;
    retryOf?: string;
    groups: Array<{ zone: Zone; files: number; tags: number }>;
  };
}

/** Each zone's purge record and audit entry, written once however often this runs. */
export async function recordPurge(
  store: Store,
  job: RecordedPurge,
  steps: Array<{ input: PurgeStep; result: StepResult | undefined }>,
): Promise<PurgeRun[]> {
  const { payload } = job;
  const runs: PurgeRun[] = [];
  // Each zone's account, recorded on its purge and audit entry.
  for (const [index, group] of payload.groups.entries()) {
    const { accountId } = group.zone;
    const results: PurgeBatchResult[] = steps
      .filter((step) => step.input.group === index)
      .map(({ input, result }) => {
        const batch: PurgeBatch = { kind: input.kind, items: input.items };
        if (result?.ok)
          return { ...batch, ok: true, ...(result.purgeId ? { purgeId: result.purgeId } : {}) };
        const error = result?.error ?? { code: 'unexpected_response', message: 'no result' };
        return { ...batch, ok: false, error: restoredError(error) };
      });
    const report = reportOf(results);
    // Not purged: failed, or not confirmed (the CDN did not answer; they may have been).
    const unconfirmed = report.unknown.files.length + report.unknown.tags.length;
    const record = await store.purges.record({
      id: `${job.id}-${index}`,
      workspaceId: job.workspaceId,
      zoneId: group.zone.id,
      zoneName: group.zone.name,
      actorId: payload.actorId,
      fileCount: group.files,
      tagCount: group.tags,
      failed: report.failed,
      unconfirmed,
      purgeIds: report.purgeIds,
      ...(payload.retryOf ? { retryOf: payload.retryOf } : {}),
      accountId,
    });
    const failedCount = report.failed.files.length + report.failed.tags.length - unconfirmed;
    const errors = [...new Set(results.flatMap((r) => (r.ok ? [] : [r.error.code])))];
    await store.audit.record({
      key: `purge:${record.id}`,
      workspaceId: job.workspaceId,
      actorId: payload.actorId,
      action:
        group.tags === 0 ? 'purge.urls' : group.files === 0 ? 'purge.tags' : 'purge.urls_tags',
      zoneId: group.zone.id,
      zoneName: group.zone.name,
      accountId,
      outcome: record.status === 'succeeded' ? 'ok' : record.status,
      detail: {
        files: group.files,
        tags: group.tags,
        failed: failedCount,
        ...(unconfirmed > 0 ? { unconfirmed } : {}),
        requests: results.length,
        purgeIds: report.purgeIds.slice(0, 20),
        job: record.id,
        ...(errors.length > 0 ? { errors } : {}),
        ...(payload.retryOf ? { retryOf: payload.retryOf } : {}),
      },
    });
    runs.push({ job: record, report });
  }
  return runs;
}
