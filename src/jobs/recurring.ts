// The app's recurring work, declared once: what runs and how often. Each service exposes one round
// of its work; BackgroundWork runs the rounds (background.ts): one replica a period, under the job
// runner's lease, unless the work is each process's own. docs/durable-work.md lists them.
import type { Recurring } from './background.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/** One round of each piece of recurring work, as the services expose it. */
export interface RecurringParts {
  approvals: {
    /** Expires purge-everything requests nobody approved in time. */
    expireDue(): Promise<unknown>;
    /** Stores the job of an approved purge a crash left without one. */
    recover(): Promise<unknown>;
  };
  /** Turns due daily reports into jobs. */
  reports: { tick(): Promise<unknown> };
  /** Turns each watched zone's due interval into an evaluation job; `intervalMs`: WATCH_INTERVAL_MS. */
  watches: { tick(): Promise<unknown>; intervalMs: number };
  /** Refreshes the zone indexes that are due (never built, or older than `refreshMs`). */
  zoneIndex: { refreshDue(signal: AbortSignal): Promise<unknown>; refreshMs: number };
  /** Says in their channels the freeze windows that started or ended since the last round. */
  freezes: { announceDue(): Promise<unknown> };
  /** Fails API purges a crash left unstarted. */
  apiPurges: { recover(): Promise<unknown> };
  /** Removes audit export folders a crash left in this host's temporary folder. */
  auditExports: { removeLeftovers(): Promise<unknown> };
  /** Deletes old rows in small batches. */
  retention: { sweep(signal: AbortSignal): Promise<unknown> };
}

/** The list, in the order the entries start. */
export function recurringWork(parts: RecurringParts): Recurring[] {
  return [
    { name: 'approval expiry', every: 30 * SECOND, run: () => parts.approvals.expireDue() },
    { name: 'approved purge recovery', every: 30 * SECOND, run: () => parts.approvals.recover() },
    { name: 'reports due', every: 30 * SECOND, run: () => parts.reports.tick() },
    {
      // Several times a watch interval, so that an evaluation starts soon after its time.
      name: 'watch evaluation',
      every: Math.min(5 * SECOND, Math.max(SECOND, parts.watches.intervalMs / 6)),
      run: () => parts.watches.tick(),
    },
    {
      name: 'zone index refresh',
      every: Math.min(parts.zoneIndex.refreshMs, MINUTE),
      run: (signal) => parts.zoneIndex.refreshDue(signal),
    },
    { name: 'api purge recovery', every: MINUTE, run: () => parts.apiPurges.recover() },
    { name: 'freeze announcements', every: 30 * SECOND, run: () => parts.freezes.announceDue() },
    {
      name: 'audit export leftovers',
      every: 60 * MINUTE,
      each: 'process',
      run: () => parts.auditExports.removeLeftovers(),
    },
    { name: 'retention', every: 10 * MINUTE, run: (signal) => parts.retention.sweep(signal) },
  ];
}

/** /livez's event-loop windows close on the clock, never because someone read them. */
export function livenessWindows(windowMs: number, closeWindow: () => void): Recurring {
  return {
    name: 'liveness window',
    every: windowMs,
    each: 'process',
    firstAfter: true,
    run: async () => closeWindow(),
  };
}
