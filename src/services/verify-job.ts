// The verify job's kind, payload and how it is enqueued: shared by the purge job (a purge asked
// with --verify checks itself) and the verify service, which runs it.
import type { JobRunner } from '../jobs/runner.js';
import type { ReplyTo } from './reply.js';

export const VERIFY_JOB = 'verify';

/** The most URLs one verification checks; a larger purge is checked on its first ones. */
export const MAX_VERIFIED_URLS = 200;

/** After a purge asked with --verify, how long the edge is given before it is asked. */
export const DEFAULT_VERIFY_DELAY_MS = 5_000;

export interface VerifyJobPayload {
  actorId: string;
  replyTo: ReplyTo;
  zone: { id: string; name: string };
  /** The purge record (one zone of a purge) checked. */
  purgeRecordId: string;
  /** When that purge ended: a cached copy younger than this was refilled since. */
  purgedAt: number;
  /** URLs purged, more than were checked. */
  skipped: number;
  /** Started by the purge itself (--verify), not by a click. */
  auto?: boolean;
}

/** Stores a verification of `urls` (one step each), to run at `runAt`; once per `key`. */
export async function enqueueVerify(
  runner: JobRunner,
  workspaceId: string,
  payload: Omit<VerifyJobPayload, 'skipped'>,
  urls: string[],
  options: { key: string; runAt?: number },
): Promise<{ jobId: string; created: boolean }> {
  const checked = urls.slice(0, MAX_VERIFIED_URLS);
  const { job, created } = await runner.enqueue({
    workspaceId,
    kind: VERIFY_JOB,
    key: options.key,
    payload: { ...payload, skipped: urls.length - checked.length } satisfies VerifyJobPayload,
    steps: checked.map((url) => ({ url })),
    ...(options.runAt === undefined ? {} : { runAt: options.runAt }),
  });
  return { jobId: job.id, created };
}
