// Every migration, in the order they run, under the name each database records for it (a name
// never changes). A new migration is a new file, numbered next, and one line at the end of the list.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../db.js';
import * as m0001 from './0001_initial.js';
import * as m0002 from './0002_purges.js';
import * as m0003 from './0003_change_counters.js';
import * as m0004 from './0004_durable_work.js';
import * as m0005 from './0005_zone_index.js';
import * as m0006 from './0006_channel_bindings.js';
import * as m0007 from './0007_watches.js';
import * as m0008 from './0008_rate_slots.js';
import * as m0009 from './0009_alert_ratelimit_claims.js';
import * as m0010 from './0010_workspace_guest_access.js';
import * as m0011 from './0011_watch_paused.js';
import * as m0012 from './0012_retention_audit_by_time.js';
import * as m0013 from './0013_reports_unique.js';
import * as m0014 from './0014_once_alert_ratelimit_jobs.js';
import * as m0015 from './0015_workspace_limits.js';
import * as m0016 from './0016_cdn_accounts.js';
import * as m0017 from './0017_api_tokens.js';
import * as m0019 from './0019_audit_search.js';
import * as m0021 from './0021_workspace_uninstalled.js';
import * as m0022 from './0022_account_zone_index.js';
import * as m0023 from './0023_account_roles.js';
import * as m0024 from './0024_approval_api_requester.js';
import * as m0025 from './0025_approvals_per_account.js';
import * as m0026 from './0026_account_watches_reports.js';
import * as m0027 from './0027_api_purge_account.js';
import * as m0028 from './0028_approval_account_name.js';
import * as m0029 from './0029_api_token_account_scope.js';
import * as m0030 from './0030_channel_binding_removed_account.js';
import * as m0032 from './0032_freezes.js';
import * as m0033 from './0033_approval_not_before.js';
import * as m0034 from './0034_one_account_model.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types.
export type MigrationUp = (db: Kysely<any>, dialect: SqlDialect) => Promise<void>;

export const MIGRATIONS: ReadonlyArray<readonly [name: string, up: MigrationUp]> = [
  ['0001_initial', m0001.up],
  ['0002_purges', m0002.up],
  ['0003_change_counters', m0003.up],
  ['0004_durable_work', m0004.up],
  ['0005_zone_index', m0005.up],
  ['0006_channel_bindings', m0006.up],
  ['0007_watches', m0007.up],
  ['0008_rate_slots', m0008.up],
  ['0009_alert_ratelimit_claims', m0009.up],
  ['0010_workspace_guest_access', m0010.up],
  ['0011_watch_paused', m0011.up],
  ['0012_retention_audit_by_time', m0012.up],
  ['0013_reports_unique', m0013.up],
  ['0014_once_alert_ratelimit_jobs', m0014.up],
  ['0015_workspace_limits', m0015.up],
  ['0016_cdn_accounts', m0016.up],
  ['0017_api_tokens', m0017.up],
  ['0019_audit_search', m0019.up],
  ['0021_workspace_uninstalled', m0021.up],
  ['0022_account_zone_index', m0022.up],
  ['0023_account_roles', m0023.up],
  ['0024_approval_api_requester', m0024.up],
  ['0025_approvals_per_account', m0025.up],
  ['0026_account_watches_reports', m0026.up],
  ['0027_api_purge_account', m0027.up],
  ['0028_approval_account_name', m0028.up],
  ['0029_api_token_account_scope', m0029.up],
  ['0030_channel_binding_removed_account', m0030.up],
  ['0032_freezes', m0032.up],
  ['0033_approval_not_before', m0033.up],
  ['0034_one_account_model', m0034.up],
];
