// The verify job's kind, payload and how it is enqueued: shared by the purge job (a purge asked
// with --verify checks itself) and the verify service, which runs it.
import type { JobRunner } from '../../jobs/runner.js';
import type { ReplyTo } from '../reply.js';

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
  /**
   * Warming (--warm), not checking: each URL is asked for in full once, then asked again to see
   * whether the edge now serves it from its cache.
   */
  warm?: boolean;
}

/** The key of a purge's warming, one per zone record. */
export const WARM_JOB_KEY = (purgeRecordId: string) => `warm:auto:${purgeRecordId}`;

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

/**
 * After a purge asked with --verify: each zone's URLs that went through, checked at the edge
 * `delayMs` from now, once per zone record (keyed, so a resumed purge job enqueues nothing new).
 * With `warm` (--warm): the same URLs warmed at once instead.
 */
export async function verifyAfterPurge(
  runner: JobRunner,
  job: { workspaceId: string; payload: { actorId: string; replyTo: ReplyTo } },
  steps: ReadonlyArray<{
    input: { group: number; kind: string; items: string[] };
    result: { ok: boolean } | undefined;
  }>,
  runs: ReadonlyArray<{ job: { id: string; zoneId: string; zoneName: string } }>,
  { now, delayMs, warm }: { now: number; delayMs: number; warm?: boolean },
): Promise<void> {
  for (const [index, run] of runs.entries()) {
    const urls = steps.flatMap(({ input, result }) =>
      input.group === index && input.kind === 'files' && result?.ok ? input.items : [],
    );
    if (urls.length === 0) continue;
    await enqueueVerify(
      runner,
      job.workspaceId,
      {
        actorId: job.payload.actorId,
        replyTo: job.payload.replyTo,
        zone: { id: run.job.zoneId, name: run.job.zoneName },
        purgeRecordId: run.job.id,
        purgedAt: now,
        auto: true,
        ...(warm ? { warm: true } : {}),
      },
      urls,
      warm
        ? { key: WARM_JOB_KEY(run.job.id) }
        : { key: `verify:auto:${run.job.id}`, runAt: now + delayMs },
    );
  }
}
