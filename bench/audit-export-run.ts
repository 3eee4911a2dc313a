// One measured CSV export of the audit log, in a process of its own (so that its peak RSS is its
// own, not left over from another run): `node --expose-gc --import tsx bench/audit-export-run.ts
// <export|baseline> <sqlite file> <csv file>`. Prints one JSON line: rows, ms, the RSS and heap
// before it, and their peaks, sampled every 5 ms and before every batch read from the database.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { createLogger } from '../src/logger.js';
import { AccessService, type Caller, type SlackDirectory } from '../src/services/access/access.js';
import { ActivityService } from '../src/services/audit/activity.js';
import { auditCsvHeader, auditCsvRow } from '../src/services/audit/audit-csv.js';
import { AuditExportService } from '../src/services/audit/audit-export.js';
import type { AuditEntry } from '../src/store/audit-log.js';
import { Keyring } from '../src/store/crypto.js';
import { openStore } from '../src/store/index.js';
import { VIEWER, VIEWER_CHANNEL, WORKSPACE } from './audit-export-ids.js';

const [mode, dbPath, csvPath] = process.argv.slice(2);
if ((mode !== 'export' && mode !== 'baseline') || !dbPath || !csvPath) {
  console.error('usage: audit-export-run.ts <export|baseline> <sqlite file> <csv file>');
  process.exit(2);
}

const gc = (globalThis as { gc?: () => void }).gc;
const memory = () => process.memoryUsage();
let peakRss = 0;
let peakHeap = 0;
const sample = () => {
  const { rss, heapUsed } = memory();
  peakRss = Math.max(peakRss, rss);
  peakHeap = Math.max(peakHeap, heapUsed);
};

/** A full member who is in one conversation: the directory the export asks, without Slack. */
const directory: SlackDirectory = {
  user: async () => ({ isAdmin: false, timeZone: 'UTC' }),
  groupMembers: async () => [],
  inConversation: async (channelId) => channelId === VIEWER_CHANNEL,
};

async function measure(run: () => Promise<number>) {
  gc?.();
  const before = memory();
  peakRss = before.rss;
  peakHeap = before.heapUsed;
  const timer = setInterval(sample, 5);
  const started = performance.now();
  const rows = await run();
  const ms = performance.now() - started;
  clearInterval(timer);
  sample();
  return {
    rows,
    ms,
    rssBefore: before.rss,
    heapBefore: before.heapUsed,
    peakRss,
    peakHeap,
  };
}

/** The export as the job runs it: keyset batches through Kysely, each checked for visibility. */
async function exportRun() {
  const clock = { now: () => Date.now(), sleep: async () => undefined };
  const store = await openStore({
    database: { kind: 'sqlite', path: dbPath as string },
    keyring: new Keyring([{ id: 'k1', key: Buffer.alloc(32, 7) }]),
    clock,
  });
  const access = new AccessService(store.workspaces);
  const activity = new ActivityService({ ...store, access, defaultBaseUrl: '' });
  // Sampled before every batch, as well as by the timer.
  const audit = new Proxy(store.audit, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== 'search' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        sample();
        return value.apply(target, args);
      };
    },
  });
  const service = new AuditExportService({
    audit,
    jobs: store.jobs,
    // Never reached: writeCsv neither enqueues nor runs jobs.
    runner: undefined as never,
    access,
    activity,
    sink: undefined as never,
    clock,
    logger: createLogger({ level: 'silent' }),
  });
  const caller: Caller = { workspaceId: WORKSPACE, userId: VIEWER, directory };
  try {
    return await measure(() => service.writeCsv(caller, {}, csvPath as string));
  } finally {
    await store.close();
  }
}

/**
 * The least work that writes the same file from the same database: one SELECT in the export's
 * order, its rows iterated one at a time by better-sqlite3 (a streaming cursor), each made the same
 * CSV row (details withheld the same way), written with the same backpressure. No batches, no
 * Kysely, no access checks.
 */
async function baselineRun() {
  const db = new Database(dbPath as string, { readonly: true });
  try {
    return await measure(async () => {
      const out = createWriteStream(csvPath as string);
      const closed = once(out, 'close');
      const write = async (chunk: string) => {
        if (!out.write(chunk)) await once(out, 'drain');
      };
      let rows = 0;
      await write(auditCsvHeader());
      const statement = db.prepare(
        'SELECT * FROM audit_log WHERE workspace_id = ? ORDER BY at DESC, id DESC',
      );
      let chunk = '';
      for (const row of statement.iterate(WORKSPACE) as Iterable<Record<string, unknown>>) {
        const detail =
          row.detail === null ? null : (JSON.parse(String(row.detail)) as Record<string, unknown>);
        const entry: AuditEntry = {
          id: Number(row.id),
          workspaceId: String(row.workspace_id),
          actorId: String(row.actor_id),
          action: String(row.action),
          zoneId: row.zone_id === null ? null : String(row.zone_id),
          zoneName: row.zone_name === null ? null : String(row.zone_name),
          outcome: String(row.outcome),
          detail,
          at: Number(row.at),
        };
        const hidden =
          typeof detail?.channel === 'string' && detail.channel !== VIEWER_CHANNEL
            ? { detail: 'files' in detail ? { files: detail.files } : {}, withheld: true }
            : {};
        chunk += auditCsvRow({ ...entry, ...hidden });
        rows++;
        // The same writes as the export's: one a thousand rows (the iterator is synchronous, so
        // a write per row would only add awaits).
        if (rows % 1_000 === 0) {
          await write(chunk);
          chunk = '';
        }
      }
      await write(chunk);
      out.end();
      await closed;
      return rows;
    });
  } finally {
    db.close();
  }
}

const result = mode === 'export' ? await exportRun() : await baselineRun();
process.stdout.write(`${JSON.stringify(result)}\n`);
