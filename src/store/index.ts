// The store: one database, migrated at open, with a repository per table.
import type { Kysely } from 'kysely';
import { type Clock, systemClock } from '../clock.js';
import type { DatabaseConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { ApprovalRepository } from './approvals.js';
import { AuditLogRepository } from './audit-log.js';
import { ChangeCounterRepository } from './change-counters.js';
import { CredentialRepository } from './credentials.js';
import type { Keyring } from './crypto.js';
import { openDatabase, type SqlDialect } from './db.js';
import { InstallationRepository } from './installations.js';
import { JobRepository } from './jobs.js';
import { migrate } from './migrations.js';
import { PurgeRepository } from './purges.js';
import { ScheduleRepository } from './schedules.js';
import type { Database } from './schema.js';
import { SeenRequestRepository } from './seen-requests.js';
import { WorkspaceRepository } from './workspaces.js';

export interface Store {
  dialect: SqlDialect;
  db: Kysely<Database>;
  keyring: Keyring;
  workspaces: WorkspaceRepository;
  credentials: CredentialRepository;
  installations: InstallationRepository;
  approvals: ApprovalRepository;
  schedules: ScheduleRepository;
  audit: AuditLogRepository;
  purges: PurgeRepository;
  changeCounters: ChangeCounterRepository;
  jobs: JobRepository;
  seenRequests: SeenRequestRepository;
  close(): Promise<void>;
}

export interface StoreOptions {
  database: DatabaseConfig;
  keyring: Keyring;
  clock?: Clock;
  logger?: Logger;
  /** Id generator for approvals and schedules (tests make them predictable). */
  newId?: () => string;
  poolSize?: number;
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const clock = options.clock ?? systemClock;
  const { db, dialect } = openDatabase(
    options.database,
    options.poolSize === undefined ? {} : { poolSize: options.poolSize },
  );
  try {
    const applied = await migrate(db, dialect);
    if (applied.length > 0) options.logger?.info({ applied, dialect }, 'database migrated');
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const workspaces = new WorkspaceRepository(db, clock);
  return {
    dialect,
    db,
    keyring: options.keyring,
    workspaces,
    credentials: new CredentialRepository(db, options.keyring, clock, workspaces),
    installations: new InstallationRepository(db, options.keyring, clock),
    approvals: new ApprovalRepository(db, clock, options.newId),
    schedules: new ScheduleRepository(db, clock, options.newId),
    audit: new AuditLogRepository(db, clock),
    purges: new PurgeRepository(db, clock),
    changeCounters: new ChangeCounterRepository(db),
    jobs: new JobRepository(db, dialect, clock, options.newId),
    seenRequests: new SeenRequestRepository(db, clock),
    close: () => db.destroy(),
  };
}
