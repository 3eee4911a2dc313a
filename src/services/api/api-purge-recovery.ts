// The crash repair: a URL or tag purge still queued with neither its job nor its scheduled purge,
// or a purge of everything whose approval was never posted, is failed (the client may ask again).
// Each round reads a page of stale purges, oldest first, after the last page: every one is reached.
import type { Clock } from '../../clock.js';
import type { ApiPurge } from '../../store/api-purges.js';
import type { Store } from '../../store/index.js';
import { scheduledApiKey } from '../purge/scheduled-purges.js';
import { apiPurgeJobKey } from './api-purge-job.js';

/** A purge not started this long after it was stored was stranded by a crash. */
const STRANDED_MS = 2 * 60_000;
/** Stale purges one round reads (most wait for their time: their scheduled purge runs them). */
const PAGE = 100;

export class ApiPurgeRecovery {
  /** The last purge the previous round read; none: the next round starts from the oldest. */
  #after: Pick<ApiPurge, 'updatedAt' | 'id'> | undefined;

  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  /** Fails the stranded purges of the next page; returns how many. */
  async round(): Promise<number> {
    const { store, clock } = this.deps;
    const stale = await store.apiPurges.notStartedBefore(
      clock.now() - STRANDED_MS,
      this.#after,
      PAGE,
    );
    // A page not full was the last: the next round starts again from the oldest.
    const last = stale.at(-1);
    this.#after =
      stale.length < PAGE || !last ? undefined : { updatedAt: last.updatedAt, id: last.id };
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
}
