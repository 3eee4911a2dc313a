// A SQLite store like openStore's (same pragmas, migrations and repositories) whose Kysely instance
// is built with Kysely's `log` option, so a benchmark sees every SQL statement the bot issues.
// The log sees transactions' BEGIN and COMMIT too.
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, type LogEvent, SqliteDialect } from 'kysely';
import { systemClock } from '../src/clock.js';
import { AccountRoleRepository } from '../src/store/account-roles.js';
import { AccountUsageRepository } from '../src/store/account-usage.js';
import { AccountRepository } from '../src/store/accounts.js';
import { ApiPurgeRepository } from '../src/store/api-purges.js';
import { ApiTokenRepository } from '../src/store/api-tokens.js';
import { ApprovalRepository } from '../src/store/approvals.js';
import { AuditLogRepository } from '../src/store/audit-log.js';
import { ChangeCounterRepository } from '../src/store/change-counters.js';
import { ChannelBindingRepository } from '../src/store/channel-bindings.js';
import { CredentialRepository } from '../src/store/credentials.js';
import type { Keyring } from '../src/store/crypto.js';
import { FreezeRepository } from '../src/store/freezes.js';
import type { Store } from '../src/store/index.js';
import { InstallationRepository } from '../src/store/installations.js';
import { JobRepository } from '../src/store/jobs.js';
import { migrate } from '../src/store/migrations.js';
import { PurgeRepository } from '../src/store/purges.js';
import { RateSlotRepository } from '../src/store/rate-slots.js';
import { ScheduleRepository } from '../src/store/schedules.js';
import type { Database } from '../src/store/schema.js';
import { SeenRequestRepository } from '../src/store/seen-requests.js';
import { UninstalledWorkspaceRepository } from '../src/store/uninstalled-workspaces.js';
import { WatchAlertRepository } from '../src/store/watch-alerts.js';
import { WatchRuleRepository } from '../src/store/watch-rule-states.js';
import { WatchRepository } from '../src/store/watches.js';
import { WorkspaceRepository } from '../src/store/workspaces.js';
import { ZoneIndexRepository } from '../src/store/zone-index.js';

/** One statement as the log saw it. */
export interface Statement {
  sql: string;
  parameters: readonly unknown[];
  ms: number;
}

export async function openCountedStore(
  path: string,
  keyring: Keyring,
  onStatement: (statement: Statement) => void,
): Promise<Store> {
  // As src/store/db.ts opens SQLite.
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: sqlite }),
    log: (event: LogEvent) =>
      onStatement({
        sql: event.query.sql,
        parameters: event.query.parameters,
        ms: event.queryDurationMillis,
      }),
  });
  await migrate(db, 'sqlite');
  const clock = systemClock;
  const workspaces = new WorkspaceRepository(db, clock);
  const jobs = new JobRepository(db, 'sqlite', clock);
  const accounts = new AccountRepository(db, keyring, clock, workspaces);
  const uninstalled = new UninstalledWorkspaceRepository(db, clock);
  return {
    dialect: 'sqlite',
    db,
    keyring,
    workspaces,
    credentials: new CredentialRepository(accounts),
    accounts,
    accountRoles: new AccountRoleRepository(db, clock),
    accountUsage: new AccountUsageRepository(db, clock, accounts, jobs),
    installations: new InstallationRepository(db, keyring, clock, uninstalled, 'sqlite'),
    uninstalled,
    approvals: new ApprovalRepository(db, clock),
    schedules: new ScheduleRepository(db, clock, jobs, 'sqlite'),
    audit: new AuditLogRepository(db, clock),
    purges: new PurgeRepository(db, clock),
    changeCounters: new ChangeCounterRepository(db),
    jobs,
    seenRequests: new SeenRequestRepository(db, clock),
    rateSlots: new RateSlotRepository(db, 'sqlite', clock),
    zoneIndex: new ZoneIndexRepository(db, 'sqlite', clock),
    watches: new WatchRepository(db, 'sqlite', clock, jobs),
    watchRules: new WatchRuleRepository(db, clock),
    watchAlerts: new WatchAlertRepository(db, clock),
    close: () => db.destroy(),
    channelBindings: new ChannelBindingRepository(db, clock),
    apiTokens: new ApiTokenRepository(db, clock),
    apiPurges: new ApiPurgeRepository(db, clock),
    freezes: new FreezeRepository(db, clock),
  };
}

/** What a statement of the purge path is, by its SQL (Kysely's SQLite dialect quotes names). */
export type WriteKind =
  | 'enqueue: job'
  | 'enqueue: steps'
  | 'claim'
  | 'step result'
  | 'checkpoint'
  | 'lease renewal'
  | 'finish'
  | 'release'
  | 'purge record'
  | 'audit entry'
  | 'other write'
  | 'transaction'
  | 'read';

export function kindOf(sql: string): WriteKind {
  const text = sql.trim().toLowerCase();
  if (text.startsWith('select')) return 'read';
  if (/^(begin|commit|rollback)\b/.test(text)) return 'transaction';
  if (text.startsWith('insert into "jobs"')) return 'enqueue: job';
  if (text.startsWith('insert into "job_steps"')) return 'enqueue: steps';
  if (text.startsWith('insert into "purges"')) return 'purge record';
  if (text.startsWith('insert into "audit_log"')) return 'audit entry';
  if (text.startsWith('update "job_steps" set "result"')) return 'step result';
  if (text.startsWith('update "jobs" set "checkpoint"')) return 'checkpoint';
  if (text.startsWith('update "jobs" set "lease_until"')) return 'lease renewal';
  if (text.startsWith('update "jobs" set "state" = ?, "lease_owner"')) return 'claim';
  if (text.startsWith('update "jobs" set "state" = ?, "error"')) return 'finish';
  if (text.startsWith('update "jobs" set "state" = ?, "run_at"')) return 'release';
  return 'other write';
}
