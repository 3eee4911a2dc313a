// The crash repair, one round: a URL or tag purge still queued with neither its job nor its
// scheduled purge, or a purge of everything whose approval was never posted, is failed (the client
// may ask again with a new key).
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/index.js';
import { scheduledApiKey } from '../purge/scheduled-purges.js';
import { apiPurgeJobKey } from './api-purge-job.js';

/** A purge not started this long after it was stored was stranded by a crash. */
const STRANDED_MS = 2 * 60_000;

/** Fails the stranded purges found; returns how many. */
export async function recoverApiPurges(deps: { store: Store; clock: Clock }): Promise<number> {
  const { store, clock } = deps;
  const stale = await store.apiPurges.notStartedBefore(clock.now() - STRANDED_MS);
  let repaired = 0;
  for (const purge of stale) {
    if (
      purge.kind === 'everything'
        ? purge.approvalId !== null
        : (await store.jobs.byKey(apiPurgeJobKey(purge.id))) ||
          (await store.jobs.byKey(scheduledApiKey(purge.id)))
    )
      continue;
    await store.apiPurges.update(purge.id, {
      status: 'failed',
      error: 'the purge was not started (the bot stopped); ask again',
    });
    repaired += 1;
  }
  return repaired;
}
