// The store: one database, migrated at open, with a repository per table.
import type { Kysely } from 'kysely';
import { type Clock, systemClock } from '../clock.js';
import type { DatabaseConfig, DatabaseLimits } from '../config.js';
import type { Logger } from '../logger.js';
import { AccountRoleRepository } from './account-roles.js';
import { AccountUsageRepository } from './account-usage.js';
import { AccountRepository } from './accounts.js';
import { ApiPurgeRepository } from './api-purges.js';
import { ApiTokenRepository } from './api-tokens.js';
import { ApprovalRepository } from './approvals.js';
import { AuditLogRepository } from './audit-log.js';
import { ChangeCounterRepository } from './change-counters.js';
import { ChannelBindingRepository } from './channel-bindings.js';
import { CredentialRepository } from './credentials.js';
import type { Keyring } from './crypto.js';
import { type OpenDatabaseOptions, openDatabase, type PoolStats, type SqlDialect } from './db.js';
import { FreezeRepository } from './freezes.js';
import { InstallationRepository } from './installations.js';
import { JobRepository } from './jobs.js';
import { migrate } from './migrations.js';
import { holdSqliteFile } from './process-lock.js';
import { PurgeRepository } from './purges.js';
import { RateSlotRepository } from './rate-slots.js';
import { ScheduleRepository } from './schedules.js';
import type { Database } from './schema.js';
import { SeenRequestRepository } from './seen-requests.js';
import { UninstalledWorkspaceRepository } from './uninstalled-workspaces.js';
import { WatchAlertRepository } from './watch-alerts.js';
import { WatchRuleRepository } from './watch-rule-states.js';
import { WatchRepository } from './watches.js';
import { WorkspaceRepository } from './workspaces.js';
import { ZoneIndexRepository } from './zone-index.js';

export interface Store {
  dialect: SqlDialect;
  db: Kysely<Database>;
  keyring: Keyring;
  workspaces: WorkspaceRepository;
  credentials: CredentialRepository;
  /** The workspace's named CDN accounts; `credentials` is the one `/cdn login` manages. */
  accounts: AccountRepository;
  /** Roles given per account (an account's own operators or approvers group). */
  accountRoles: AccountRoleRepository;
  /** What refers to an account (watches, reports, channel defaults, pending approvals). */
  accountUsage: AccountUsageRepository;
  installations: InstallationRepository;
  /** Which workspaces the app was uninstalled from, and the deletion of their data after the grace. */
  uninstalled: UninstalledWorkspaceRepository;
  approvals: ApprovalRepository;
  schedules: ScheduleRepository;
  audit: AuditLogRepository;
  purges: PurgeRepository;
  changeCounters: ChangeCounterRepository;
  jobs: JobRepository;
  seenRequests: SeenRequestRepository;
  rateSlots: RateSlotRepository;
  zoneIndex: ZoneIndexRepository;
  watches: WatchRepository;
  watchRules: WatchRuleRepository;
  watchAlerts: WatchAlertRepository;
  /** PostgreSQL: the pool's connections and waiters now (metrics); SQLite has no pool. */
  poolStats?: () => PoolStats;
  close(): Promise<void>;
  channelBindings: ChannelBindingRepository;
  /** Tokens of the HTTP API, stored as hashes. */
  apiTokens: ApiTokenRepository;
  /** Purges asked for over the HTTP API. */
  apiPurges: ApiPurgeRepository;
  /** Change freezes and the exceptions asked during them. */
  freezes: FreezeRepository;
}

export interface StoreOptions {
  database: DatabaseConfig;
  keyring: Keyring;
  clock?: Clock;
  logger?: Logger;
  /** Id generator for approvals and schedules (tests make them predictable). */
  newId?: () => string;
  /** PostgreSQL's timeouts, keepalive and pool size (see DatabaseLimits). */
  limits?: Partial<DatabaseLimits>;
  /** Told of every statement the store runs (tests and benchmarks count them). */
  onQuery?: OpenDatabaseOptions['onQuery'];
  /**
   * A bot process: refuse to open a SQLite file another process holds (DatabaseInUseError).
   * Tools and tests that look at a live database leave it off.
   */
  singleProcess?: boolean;
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const clock = options.clock ?? systemClock;
  const { database, logger } = options;
  const lock =
    options.singleProcess && database.kind === 'sqlite' && database.path !== ':memory:'
      ? holdSqliteFile(database.path)
      : undefined;
  const limits: Partial<DatabaseLimits> = options.limits ?? {};
  let opened: ReturnType<typeof openDatabase>;
  try {
    opened = openDatabase(database, {
      limits,
      ...(logger ? { logger } : {}),
      ...(options.onQuery ? { onQuery: options.onQuery } : {}),
    });
  } catch (error) {
    lock?.release();
    throw error;
  }
  const { db, dialect } = opened;
  try {
    // SQLite migrates on its one connection; PostgreSQL on one of its own (see migrateOnce).
    const applied =
      database.kind === 'sqlite'
        ? await migrate(db, dialect, logger ? { logger } : {})
        : await migrateOnce(database, limits, logger);
    if (applied.length > 0) logger?.info({ applied, dialect }, 'database migrated');
  } catch (error) {
    await db.destroy();
    lock?.release();
    throw error;
  }
  const workspaces = new WorkspaceRepository(db, clock);
  const jobs = new JobRepository(db, dialect, clock, options.newId);
  const accounts = new AccountRepository(db, options.keyring, clock, workspaces);
  const uninstalled = new UninstalledWorkspaceRepository(db, clock);
  return {
    dialect,
    db,
    keyring: options.keyring,
    workspaces,
    credentials: new CredentialRepository(accounts),
    accounts,
    accountRoles: new AccountRoleRepository(db, clock),
    accountUsage: new AccountUsageRepository(db, clock, accounts, jobs),
    installations: new InstallationRepository(db, options.keyring, clock, uninstalled, dialect),
    uninstalled,
    approvals: new ApprovalRepository(db, clock, options.newId),
    schedules: new ScheduleRepository(db, clock, jobs, dialect, options.newId),
    audit: new AuditLogRepository(db, clock),
    purges: new PurgeRepository(db, clock),
    changeCounters: new ChangeCounterRepository(db),
    jobs,
    seenRequests: new SeenRequestRepository(db, clock),
    rateSlots: new RateSlotRepository(db, dialect, clock),
    zoneIndex: new ZoneIndexRepository(db, dialect, clock),
    watches: new WatchRepository(db, dialect, clock, jobs, options.newId),
    watchRules: new WatchRuleRepository(db, clock),
    watchAlerts: new WatchAlertRepository(db, clock),
    ...(opened.poolStats ? { poolStats: opened.poolStats } : {}),
    close: async () => {
      await db.destroy();
      lock?.release();
    },
    channelBindings: new ChannelBindingRepository(db, clock),
    apiTokens: new ApiTokenRepository(db, clock, options.newId),
    apiPurges: new ApiPurgeRepository(db, clock, options.newId),
    freezes: new FreezeRepository(db, clock, options.newId),
  };
}

/**
 * PostgreSQL migrations run on a connection of their own, with no statement timeout (building an
 * index on a large table may take longer than any query should), closed when they are done.
 */
async function migrateOnce(
  database: DatabaseConfig,
  limits: Partial<DatabaseLimits>,
  logger: Logger | undefined,
): Promise<string[]> {
  const { db, dialect } = openDatabase(database, {
    limits: { ...limits, queryTimeoutMs: 0, poolSize: 1 },
  });
  try {
    return await migrate(db, dialect, logger ? { logger } : {});
  } finally {
    await db.destroy();
  }
}
