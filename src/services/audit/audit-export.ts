// `/cdn audit export`: the filtered audit as a CSV file, made by a durable job. The job streams the
// entries from the store in keyset batches into a temporary file (constant memory, however many),
// uploads it (nobody sees it yet), records the file, then shares it in the requester's DM and
// records that. A job resumed after a crash makes the file again unless it was uploaded, and asks
// Slack whether a share already happened before sharing. One export at a time per person, within
// a bound per person and per workspace an hour; the person must still be a full member when each
// attempt runs.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { JobContext, JobKind, JobOutcome, JobRunner } from '../../jobs/runner.js';
import { retryDelay } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { AuditCursor, AuditFilter, AuditLogRepository } from '../../store/audit-log.js';
import type { JobRepository } from '../../store/jobs.js';
import type { RateSlotRepository } from '../../store/rate-slots.js';
import { PerPersonRateLimit, type PersonLimits } from '../../throttles/per-person-rate-limit.js';
import type { AccessService, Caller, SlackDirectory } from '../access/access.js';
import { type ActivityService, type AuditQuery, knownZone } from './activity.js';
import { auditCsvHeader, auditCsvRow } from './audit-csv.js';

export const AUDIT_EXPORT_JOB = 'audit_export';

/** Entries read from the store at a time. */
export const EXPORT_BATCH = 1_000;

export interface AuditExportPayload {
  userId: string;
  /** As typed, for the file's comment. */
  query: AuditQuery;
  /** Read at the request, in the requester's time zone then. */
  filter: AuditFilter;
}

interface ExportCheckpoint {
  /** The uploaded file (not yet shared), its name and how many entries it holds. */
  fileId?: string;
  rows?: number;
  /** Set before the share is asked for: a resumed job asks Slack whether it happened. */
  sharing?: boolean;
}

/** A file on disk to upload. */
export interface ExportFile {
  path: string;
  size: number;
  filename: string;
}

/** Where exports go; src/slack implements it over the Web API. */
export interface AuditExportSink {
  /** Looks people and conversations up for `workspaceId` (who may see which entry's details). */
  directory(workspaceId: string): Promise<SlackDirectory>;
  /** Uploads the file where nobody sees it yet; its id. */
  upload(workspaceId: string, file: ExportFile, signal?: AbortSignal): Promise<string>;
  /** Shares the uploaded file in the user's DM with the bot, with a comment saying what it holds. */
  share(
    workspaceId: string,
    userId: string,
    file: { fileId: string; rows: number; query: AuditQuery },
  ): Promise<void>;
  /** Whether the file is already shared (a crash after sharing it): 'unknown' when Slack can't say. */
  shared(workspaceId: string, fileId: string): Promise<boolean | 'unknown'>;
  /** Tells the user the export failed for good. */
  failed(workspaceId: string, userId: string, error: unknown): Promise<void>;
  /** Tells the user the export was not made: they may no longer read the audit log (`error`). */
  refused(workspaceId: string, userId: string, error: AppError): Promise<void>;
  /** Whether a failure may pass by itself (a timeout, a 5xx, a rate limit). */
  transient(error: unknown): boolean;
}

/** The temporary folder of one export: its CSV, removed once uploaded. */
const TEMP_PREFIX = 'audit-export-';
/** A folder this old is a crash's leftover: an export is bounded far below a day. */
const LEFTOVER_AGE_MS = 24 * 60 * 60_000;

export class AuditExportService {
  readonly job: JobKind<AuditExportPayload, ExportCheckpoint>;
  readonly #bounds: PerPersonRateLimit | undefined;

  constructor(
    private readonly deps: {
      audit: AuditLogRepository;
      jobs: JobRepository;
      runner: JobRunner;
      access: AccessService;
      activity: ActivityService;
      sink: AuditExportSink;
      clock: Clock;
      logger: Logger;
      /** Where temporary files go (the OS's temporary folder by default). */
      tmpDir?: string;
      /**
       * Exports a person, and a whole workspace, may ask for per hour (AUDIT_EXPORT_RATE_LIMIT,
       * AUDIT_EXPORT_RATE_LIMIT_WORKSPACE); absent or 0: no bound.
       */
      perHour?: PersonLimits;
      /** Where the bound's slots are kept (every replica shares them); needed with `perHour`. */
      slots?: RateSlotRepository;
    },
  ) {
    this.#bounds =
      deps.perHour && deps.slots
        ? new PerPersonRateLimit(
            deps.slots,
            'audit-export',
            deps.perHour,
            60 * 60_000,
            (scope, limit, retryInSeconds) =>
              new AppError({ code: 'too_many_exports', scope, limit, retryInSeconds }),
          )
        : undefined;
    this.job = {
      concurrency: 2,
      maxAttempts: 5,
      run: (context) => this.#run(context),
      giveUp: async ({ job }) => {
        await this.deps.sink
          .failed(job.workspaceId, job.payload.userId, new Error('too many attempts'))
          .catch(() => undefined);
      },
    };
  }

  /**
   * Deletes this process's export folders left by a crash (a process killed between writing the
   * CSV and removing it): any older than `olderThanMs`, which no export still running can be.
   * Returns how many it removed.
   */
  async removeLeftovers(olderThanMs: number = LEFTOVER_AGE_MS): Promise<number> {
    const dir = this.deps.tmpDir ?? tmpdir();
    const before = this.deps.clock.now() - olderThanMs;
    let removed = 0;
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isDirectory() || info.mtimeMs >= before) continue;
      await rm(path, { recursive: true, force: true });
      removed += 1;
    }
    return removed;
  }

  /**
   * Full members only: starts an export of `query`'s entries, read in the caller's time zone.
   * Refused while the caller has one under way, and (`too_many_exports`) past the person's or the
   * workspace's bound: nothing is stored then.
   */
  async start(caller: Caller, query: AuditQuery): Promise<void> {
    await this.deps.access.requireFullMember(caller, 'read_audit');
    const timeZone = knownZone((await caller.directory.user(caller.userId)).timeZone);
    const filter = await this.deps.activity.filterFor(caller.workspaceId, query, timeZone);
    // One key a person and export: a second request while one runs finds it; the next export
    // after it takes the next number, and two at once race for the same key (one wins).
    const prefix = `audit-export:${caller.workspaceId}:${caller.userId}:`;
    const earlier = await this.deps.jobs.keyedLike(prefix);
    if (earlier.some((job) => job.state === 'queued' || job.state === 'running'))
      throw new AppError({ code: 'export_running' });
    await this.#bounds?.take(caller.workspaceId, caller.userId);
    const next =
      Math.max(0, ...earlier.map((job) => Number(job.key.slice(prefix.length)) || 0)) + 1;
    const payload: AuditExportPayload = { userId: caller.userId, query, filter };
    const { created } = await this.deps.runner.enqueue({
      workspaceId: caller.workspaceId,
      kind: AUDIT_EXPORT_JOB,
      key: `${prefix}${next}`,
      payload,
    });
    if (!created) throw new AppError({ code: 'export_running' });
  }

  /**
   * Writes the CSV of `filter`'s entries, as `caller` may see them, to `path`, reading the store
   * `batch` entries at a time; how many rows it wrote.
   */
  async writeCsv(
    caller: Caller,
    filter: AuditFilter,
    path: string,
    batch = EXPORT_BATCH,
    signal?: AbortSignal,
  ): Promise<number> {
    const out = createWriteStream(path);
    const closed = once(out, 'close');
    let rows = 0;
    // Read once: each row names its CDN account.
    const accounts = await this.deps.activity.accountNames(caller.workspaceId);
    try {
      const write = async (chunk: string) => {
        if (!out.write(chunk)) await once(out, 'drain');
      };
      await write(auditCsvHeader());
      let after: AuditCursor | undefined;
      for (;;) {
        signal?.throwIfAborted();
        const entries = await this.deps.audit.search(caller.workspaceId, filter, {
          ...(after ? { after } : {}),
          limit: batch,
        });
        if (entries.length === 0) break;
        const visible = await this.deps.activity.visibleTo(caller, entries);
        await write(
          visible
            .map((entry) => {
              const accountName = entry.accountId ? accounts.get(entry.accountId) : undefined;
              return auditCsvRow(accountName ? { ...entry, accountName } : entry);
            })
            .join(''),
        );
        rows += entries.length;
        const last = entries[entries.length - 1] as AuditCursor;
        after = { at: last.at, id: last.id };
        if (entries.length < batch) break;
      }
    } finally {
      out.end();
      await closed;
    }
    return rows;
  }

  async #run(context: JobContext<AuditExportPayload, ExportCheckpoint>): Promise<JobOutcome> {
    const { job } = context;
    const { sink } = this.deps;
    const signal = AbortSignal.any([context.lost, context.stopping]);
    try {
      const caller: Caller = {
        workspaceId: job.workspaceId,
        userId: job.payload.userId,
        directory: await sink.directory(job.workspaceId),
      };
      // Asked again at every attempt: someone who became a guest, left or was deactivated since the
      // request (or since the file was made) gets no file, only a word (which Slack may refuse to
      // deliver to a deactivated account: conversations.open's `user_disabled`).
      const refusal = await this.deps.access.requireFullMember(caller, 'read_audit').then(
        () => undefined,
        (error: unknown) => {
          if (
            error instanceof AppError &&
            (error.code === 'guest' || error.code === 'stranger' || error.code === 'deactivated')
          )
            return error;
          throw error;
        },
      );
      if (refusal) {
        this.deps.logger.info({ job: job.id, code: refusal.code }, 'audit export refused at run');
        await sink.refused(job.workspaceId, job.payload.userId, refusal).catch(() => undefined);
        return 'done';
      }
      let { fileId, rows } = job.checkpoint;
      if (!fileId || rows === undefined) {
        const dir = await mkdtemp(join(this.deps.tmpDir ?? tmpdir(), TEMP_PREFIX));
        try {
          const stamp = new Date(this.deps.clock.now())
            .toISOString()
            .slice(0, 16)
            .replace(/[-:]/g, '');
          const filename = `audit-${stamp}.csv`;
          const path = join(dir, filename);
          rows = await this.writeCsv(caller, job.payload.filter, path, EXPORT_BATCH, signal);
          const { size } = await stat(path);
          fileId = await sink.upload(job.workspaceId, { path, size, filename }, signal);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
        await context.checkpoint({ fileId, rows });
      }
      if (job.checkpoint.sharing) {
        // Shared before a crash? Then only the job is finished; in doubt, shared again.
        if ((await sink.shared(job.workspaceId, fileId)) === true) return 'done';
      }
      await context.checkpoint({ fileId, rows, sharing: true });
      await sink.share(job.workspaceId, job.payload.userId, {
        fileId,
        rows,
        query: job.payload.query,
      });
      return 'done';
    } catch (error) {
      if (context.lost.aborted || context.stopping.aborted) return 'paused';
      if (
        sink.transient(error) ||
        (error instanceof AppError && error.code === 'storage_unavailable')
      )
        return {
          retryInMs: retryDelay(job.attempts, { baseMs: 2_000, maxMs: 60_000 }),
          error: String(error),
        };
      this.deps.logger.warn({ err: error, job: job.id }, 'audit export failed');
      await sink.failed(job.workspaceId, job.payload.userId, error).catch(() => undefined);
      return 'done';
    }
  }
}
