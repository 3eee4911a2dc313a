// The retention sweep: deletes finished jobs, expired seen-request keys, alerts that are over, old
// audit rows, rate-limit rows long past, and all the data of workspaces the app was uninstalled from once their grace period
// is over, in batches, so no table grows forever and no statement holds a long lock.
// Deletes by age are idempotent: replicas sweeping at once only share the work.
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import { WORKSPACE_TABLES } from '../store/uninstalled-workspaces.js';

const DAY = 86_400_000;
/** Alerts that are over are kept this long (a month of history in the App Home). */
const KEEP_ALERTS_MS = 30 * DAY;
/** Uninstalled workspaces one sweep deletes at most (the next sweep takes the others). */
const WORKSPACES_PER_SWEEP = 100;
/** Change counts' windows (a minute, two read) are deleted this long after they began. */
const KEEP_COUNTS_MS = 3_600_000;

export interface RetentionOptions {
  store: Pick<
    Store,
    | 'jobs'
    | 'seenRequests'
    | 'audit'
    | 'watchAlerts'
    | 'uninstalled'
    | 'apiPurges'
    | 'rateSlots'
    | 'changeCounters'
  >;
  clock: Clock;
  logger: Logger;
  /** Finished jobs of every kind are deleted this long after they finished (JOBS_RETENTION_DAYS). */
  jobsMs: number;
  /** Kinds whose finished jobs go sooner than `jobsMs` (a watch evaluation a zone a minute). */
  jobsSoonerMs?: Readonly<Record<string, number>>;
  /** Audit rows are deleted at this age; 0 keeps them forever (AUDIT_RETENTION_DAYS). */
  auditMs: number;
  /**
   * A workspace the app was uninstalled from keeps its data this long after the uninstall (a
   * reinstall before then keeps it all), then every row of it is deleted
   * (UNINSTALLED_DATA_RETENTION_DAYS).
   */
  uninstalledMs: number;
  /** Rows one statement deletes at most. Default 1,000. */
  batch?: number;
}

/** Rows deleted by one sweep, by what they were. */
export interface Swept {
  jobs: number;
  seenRequests: number;
  alerts: number;
  audit: number;
  /** Rows of workspaces uninstalled longer ago than their grace period, of every table. */
  uninstalled: number;
  /** Purges asked for over the HTTP API (kept as long as finished jobs), their keys with them. */
  apiPurges: number;
  /** Rate limits' and paces' slots long past, and change counts' old windows. */
  rateLimits: number;
}

export class RetentionSweep {
  readonly #o: RetentionOptions;

  constructor(options: RetentionOptions) {
    this.#o = options;
  }

  /** One sweep: each table in batches until nothing old is left (or the signal aborts). */
  async sweep(signal?: AbortSignal): Promise<Swept> {
    const { store, clock, logger } = this.#o;
    const now = clock.now();
    const batches = (deleteBatch: (limit: number) => Promise<number>) =>
      this.#batches(deleteBatch, signal);
    let jobs = 0;
    for (const [kind, ms] of Object.entries(this.#o.jobsSoonerMs ?? {}))
      jobs += await batches((limit) => store.jobs.pruneFinished(now - ms, limit, kind));
    jobs += await batches((limit) => store.jobs.pruneFinished(now - this.#o.jobsMs, limit));
    const swept: Swept = {
      jobs,
      seenRequests: await batches((limit) => store.seenRequests.prune(limit)),
      alerts: await batches((limit) => store.watchAlerts.pruneAlerts(now - KEEP_ALERTS_MS, limit)),
      audit:
        this.#o.auditMs > 0
          ? await batches((limit) => store.audit.prune(now - this.#o.auditMs, limit))
          : 0,
      uninstalled: await this.#uninstalled(now - this.#o.uninstalledMs, signal),
      apiPurges: await batches((limit) => store.apiPurges.prune(now - this.#o.jobsMs, limit)),
      rateLimits:
        (await batches((limit) => store.rateSlots.prune(limit))) +
        (await batches((limit) => store.changeCounters.pruneAll(now - KEEP_COUNTS_MS, limit))),
    };
    if (Object.values(swept).some((count) => count > 0)) logger.info(swept, 'old rows deleted');
    return swept;
  }

  /**
   * Deletes every row of each workspace uninstalled before `before`, table by table, its
   * `workspaces` row last; a reinstall meanwhile stops it (each statement checks the mark).
   */
  async #uninstalled(before: number, signal: AbortSignal | undefined): Promise<number> {
    const { store, logger } = this.#o;
    let total = 0;
    for (const workspaceId of await store.uninstalled.due(before, WORKSPACES_PER_SWEEP)) {
      let rows = 0;
      for (const { table } of WORKSPACE_TABLES)
        rows += await this.#batches(
          (limit) => store.uninstalled.deleteBatch(table, workspaceId, before, limit),
          signal,
        );
      if (signal?.aborted) return total + rows;
      rows += await store.uninstalled.deleteBatch('workspaces', workspaceId, before, 1);
      logger.info({ workspaceId, rows }, "uninstalled workspace's data deleted");
      total += rows;
    }
    return total;
  }

  /** Deletes batch after batch until one comes back short; returns the rows deleted. */
  async #batches(
    deleteBatch: (limit: number) => Promise<number>,
    signal: AbortSignal | undefined,
  ): Promise<number> {
    const limit = this.#o.batch ?? 1_000;
    let total = 0;
    for (;;) {
      if (signal?.aborted) return total;
      const deleted = await deleteBatch(limit);
      total += deleted;
      if (deleted < limit) return total;
    }
  }
}
