// The database schema as Kysely types. Times are epoch milliseconds in bigint columns.
// (Over 400 lines: one interface per table and the one `Database` type naming them all; split by
// feature, every repository would import several files for one row type.)
import type { Generated } from 'kysely';

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'cancelled' | 'expired';
export type ScheduleStatus = 'active' | 'paused' | 'stopped';
export type GuestAccess = 'read' | 'operate';

export interface WorkspacesTable {
  /** Slack team id. */
  id: string;
  enterprise_id: string | null;
  /** Slack user group whose members may change things; null means everyone. */
  operator_group_id: string | null;
  /** Slack user group whose members may approve purge-everything; null means anyone else. */
  approver_group_id: string | null;
  approval_ttl_minutes: number;
  /**
   * What the workspace's guests (multi- and single-channel) may do: `read` (the default), or
   * `operate` as members do (never approve). Added by 0010_workspace_guest_access.
   */
  guest_access: Generated<GuestAccess>;
  /** Default local time (HH:MM) of a new daily report. */
  report_time_of_day: string;
  created_at: number;
  updated_at: number;
  /**
   * How much may be stored, as an admin set it (`/cdn config limits`); null means the default
   * (DEFAULT_LIMITS in workspaces.ts). Added by 0015_workspace_limits.
   */
  limit_rules_per_watch: Generated<number | null>;
  limit_watches: Generated<number | null>;
  limit_watches_per_person: Generated<number | null>;
  limit_reports: Generated<number | null>;
  limit_reports_per_person: Generated<number | null>;
  /**
   * When the app was uninstalled or its bot token revoked; null while installed. The workspace's
   * data is deleted by the retention sweep once UNINSTALLED_DATA_RETENTION_DAYS have passed since;
   * a reinstall before then clears it. Added by 0021_workspace_uninstalled.
   */
  uninstalled_at: Generated<number | null>;
}

/** A named CDN account of a workspace. Added by 0016_cdn_accounts. */
export interface CdnAccountsTable {
  /** Random; what every zone-holding row refers to (`account_id`). */
  id: string;
  workspace_id: string;
  /** A slug as an admin typed it (`prod`); unique per workspace through `name_key`. */
  name: string;
  /** The name lowercased. */
  name_key: string;
  /** The account's API base URL; null means CDN_API_BASE_URL. */
  base_url: string | null;
  /** Sealed by the keyring (see accounts.ts); null while the account has no key. */
  api_key: string | null;
  key_id: string | null;
  /**
   * The context the key is sealed in: `account`, or `credentials` (a key set before accounts,
   * moved here as it was sealed, until a key rotation re-seals it: storedKeyContext).
   */
  sealed_as: Generated<'account' | 'credentials'>;
  set_by: string | null;
  set_at: number | null;
  last_validated_at: number | null;
  /**
   * A new random id each time a key is set: what a zone index is built for. An index of another
   * generation belongs to another key and is never read.
   */
  generation: string | null;
  created_at: number;
  updated_at: number;
}

/** An account's own operators or approvers group. Added by 0023_account_roles. */
export interface AccountRolesTable {
  workspace_id: string;
  account_id: string;
  role: 'operators' | 'approvers';
  /** Null: everyone may (as the workspace's null group). */
  group_id: string | null;
  set_by: string;
  set_at: number;
}

export interface SlackInstallationsTable {
  /** `T:<team id>`, or `E:<enterprise id>` for an org-wide install. */
  id: string;
  team_id: string | null;
  enterprise_id: string | null;
  is_enterprise_install: number;
  bot_user_id: string | null;
  /** The whole Bolt Installation as JSON, sealed: it holds the bot and user tokens. */
  installation: string;
  key_id: string;
  installed_at: number;
  updated_at: number;
}

export interface ApprovalsTable {
  id: string;
  workspace_id: string;
  zone_id: string;
  zone_name: string;
  requester_id: string;
  reason: string;
  channel_id: string;
  message_ts: string | null;
  status: ApprovalStatus;
  decided_by: string | null;
  decided_at: number | null;
  decision_note: string | null;
  /** `unknown`: the CDN did not confirm (a timeout, a crash mid-call); it may have purged. */
  outcome: 'succeeded' | 'failed' | 'unknown' | null;
  purge_id: string | null;
  outcome_detail: string | null;
  expires_at: number;
  created_at: number;
  updated_at: number;
  /** The CDN account (cdn_accounts.id) the zone belongs to. */
  account_id: string;
  /** JSON ApiRequester: asked for over the HTTP API (0024); null: asked in Slack. */
  api_requester: string | null;
  /** The name of the account of account_id when asked (0028), for its messages; null: not said. */
  account_name: string | null;
  /** A request for a later time (0033): approved, it runs then, by its scheduled purge's job; null: at once. */
  not_before: number | null;
}

/** The columns a channel's standing work on a zone (a daily report, a watch) begins with. */
export interface ZoneWorkColumns {
  id: string;
  workspace_id: string;
  zone_id: string;
  zone_name: string;
  channel_id: string;
  created_by: string;
  /** The CDN account (cdn_accounts.id) the zone belongs to. */
  account_id: string;
}

export interface SchedulesTable extends ZoneWorkColumns {
  /** Local wall-clock time, HH:MM. */
  time_of_day: string;
  /** IANA time zone, e.g. Europe/Paris. */
  time_zone: string;
  status: ScheduleStatus;
  next_run_at: number;
  last_run_at: number | null;
  paused_reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  workspace_id: string;
  actor_id: string;
  action: string;
  zone_id: string | null;
  zone_name: string | null;
  outcome: string;
  /** JSON, never holding a secret. */
  detail: string | null;
  at: number;
  /** Set by resumable work, so its entry is written once however often it resumes. */
  event_key: string | null;
  /** The CDN account (cdn_accounts.id) of the zone named; null when the entry names no zone. */
  account_id: string | null;
}

/**
 * `unknown`: nothing was confirmed purged, and some of it may have been all the same (the CDN did
 * not answer: src/cdn/outcome.ts). A text column with no check: no migration; an older replica
 * that reads it only passes it on to the audit entry's outcome.
 */
export type PurgeStatus = 'running' | 'succeeded' | 'partial' | 'failed' | 'unknown';

export interface PurgesTable {
  id: string;
  workspace_id: string;
  zone_id: string;
  zone_name: string;
  actor_id: string;
  /** How much was asked; only what failed is kept item by item. */
  file_count: number;
  tag_count: number;
  status: PurgeStatus;
  /** JSON arrays of what was not confirmed purged (failed, or unknown), for the retry button. */
  failed_files: string | null;
  failed_tags: string | null;
  /** JSON array of the CDN's purge ids, when it gave any. */
  purge_ids: string | null;
  /** The purge this one retries. */
  retry_of: string | null;
  created_at: number;
  finished_at: number | null;
  /** The CDN account (cdn_accounts.id) the zone belongs to. */
  account_id: string;
}

export interface RateSlotsTable {
  key: string;
  /** When the next call under this key may go, as epoch milliseconds. */
  next_at: number;
}

export interface ChangeCountersTable {
  workspace_id: string;
  user_id: string;
  /** The minute counted, as epoch milliseconds. */
  window_start: number;
  count: number;
}

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed';

export interface JobsTable {
  id: string;
  workspace_id: string;
  /** What runs it: a handler registered under this name. */
  kind: string;
  /** Unique when set: enqueuing the same work twice yields the first job. */
  key: string | null;
  state: JobState;
  /** JSON input, written once. */
  payload: string;
  /** JSON, small: where the work stands, written after each step that matters. */
  checkpoint: string | null;
  attempts: number;
  /** Not before this time. */
  run_at: number;
  /** The process holding the job, and until when (renewed by its heartbeat). */
  lease_owner: string | null;
  lease_until: number | null;
  /** Why the last attempt failed (a code or message, never a secret). */
  error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface JobStepsTable {
  job_id: string;
  idx: number;
  /** JSON, written when the job is planned. */
  input: string;
  /** JSON, written once when the step is done; null until then. */
  result: string | null;
}

export interface SeenRequestsTable {
  key: string;
  expires_at: number;
}

/** One zone of a workspace's index: what `GET /zones` said, as of the index's last refresh. */
export interface ZoneIndexTable {
  workspace_id: string;
  zone_id: string;
  /** As the CDN wrote it. */
  name: string;
  /** The name lowercased, without a trailing dot: what lookups and searches compare. */
  name_key: string;
  status: string;
  /** The CDN's `created_at`, as it wrote it (ISO 8601). */
  zone_created_at: string;
  /** The CDN account (cdn_accounts.id) the zone belongs to. */
  account_id: string;
}

/** Where a workspace's zone index stands: whose key it is for, when built, who refreshes it. */
export interface ZoneIndexStateTable {
  workspace_id: string;
  /** The key generation the index was built for (cdn_accounts.generation). */
  generation: string;
  /** When the rows were last replaced by a full listing; null: never built yet. */
  refreshed_at: number | null;
  /** `meta.total` of the CDN's zone list at the last refresh or probe. */
  cdn_total: number;
  zone_count: number;
  /** When a background refresh last failed (no other is tried for a while), and why. */
  failed_at: number | null;
  error: string | null;
  updated_at: number;
  /** The CDN account (cdn_accounts.id) the zone belongs to. */
  account_id: string;
}

export interface Database {
  workspaces: WorkspacesTable;
  cdn_accounts: CdnAccountsTable;
  account_roles: AccountRolesTable;
  slack_installations: SlackInstallationsTable;
  approvals: ApprovalsTable;
  schedules: SchedulesTable;
  audit_log: AuditLogTable;
  purges: PurgesTable;
  change_counters: ChangeCountersTable;
  rate_slots: RateSlotsTable;
  jobs: JobsTable;
  job_steps: JobStepsTable;
  seen_requests: SeenRequestsTable;
  zone_index: ZoneIndexTable;
  zone_index_state: ZoneIndexStateTable;
  channel_bindings: ChannelBindingsTable;
  purge_channels: PurgeChannelsTable;
  watches: WatchesTable;
  watch_zones: WatchZonesTable;
  watch_rule_states: WatchRuleStatesTable;
  watch_alerts: WatchAlertsTable;
  api_tokens: ApiTokensTable;
  api_purges: ApiPurgesTable;
  freezes: FreezesTable;
  freeze_exceptions: FreezeExceptionsTable;
}

/** A channel's default zone (`/cdn use`), chosen under one key generation. */
export interface ChannelBindingsTable {
  workspace_id: string;
  channel_id: string;
  zone_id: string;
  /** The zone's name when it was chosen, to name it even once it is gone. */
  zone_name: string;
  /** The account's key generation when it was chosen: another generation's binding is stale. */
  generation: string;
  set_by: string;
  set_at: number;
  /** The CDN account (cdn_accounts.id) the zone belongs to. */
  account_id: string;
  /**
   * The name of that account when an admin removed it (0030): the channel's zone commands are
   * refused until it is bound again or unbound. Null: its account, if it names one, exists.
   */
  removed_account: Generated<string | null>;
}

/** A channel purges may be run from; a workspace with none listed allows every channel. */
export interface PurgeChannelsTable {
  workspace_id: string;
  channel_id: string;
  set_by: string;
  set_at: number;
}

/** A channel watching a zone. */
export interface WatchesTable extends ZoneWorkColumns {
  /** JSON array of explicit threshold rules as typed (`requests>50k/5m`, `hitrate<80%`). */
  rules: string;
  created_at: number;
  updated_at: number;
  /** Why it stopped posting (its channel refused the bot); null while it posts. */
  paused_reason: string | null;
}

/** A watched zone: evaluated once per interval, whatever the number of channels watching it. */

export interface WatchZonesTable {
  workspace_id: string;
  zone_id: string;
  zone_name: string;
  /** The zone's status when last seen: pending, active or deleted. */
  status: string;
  next_run_at: number;
  /** JSON: the zone's hourly requests over the past days and their cache hit rate. */
  baseline: string | null;
  baseline_at: number | null;
  updated_at: number;
  /** The CDN account (cdn_accounts.id) the zone belongs to. */
  account_id: string;
}

/** Where one rule of one watch stands. */
export interface WatchRuleStatesTable {
  watch_id: string;
  rule: string;
  firing: number;
  /** Consecutive intervals the condition held (while not firing) or cleared (while firing). */
  streak: number;
  /** The interval last applied (its due time): an interval is applied once. */
  last_interval: number;
  alert_id: string | null;
  snoozed_until: number | null;
  muted: number;
  updated_at: number;
}

export type WatchAlertStatus = 'firing' | 'resolved';

export interface WatchAlertsTable {
  id: string;
  workspace_id: string;
  watch_id: string;
  zone_id: string;
  zone_name: string;
  channel_id: string;
  rule: string;
  status: WatchAlertStatus;
  started_at: number;
  resolved_at: number | null;
  /** JSON: what was seen and against what (value, bound, band, window). */
  detail: string;
  message_ts: string | null;
  created_at: number;
  /** The CDN account (cdn_accounts.id) the zone belongs to. */
  account_id: string;
}

/** A token of the HTTP API (0017_api_tokens): stored as a hash only. */
export type ApiTokenAccountScope = 'account' | 'all';

export interface ApiTokensTable {
  id: string;
  workspace_id: string;
  name: string;
  /** SHA-256 of the token's text, hex. */
  token_hash: string;
  /** The token's first characters (`cdnb_AbCd`), to tell tokens apart; never enough to use. */
  token_hint: string;
  /** The CDN account it reaches (cdn_accounts.id) when account_scope is `account`; null for `all`. */
  account_id: string | null;
  /** `account`: account_id only; `all`: every account, as an admin chose (0029). */
  account_scope: Generated<ApiTokenAccountScope>;
  /** JSON array of zone names; null: every zone of the accounts it reaches. */
  zones: string | null;
  /** JSON array of `urls_tags` and `everything`. */
  kinds: string;
  channel_id: string | null;
  created_by: string;
  created_at: number;
  revoked_at: number | null;
  revoked_by: string | null;
  last_used_at: number | null;
}

export type ApiPurgeKind = 'urls' | 'tags' | 'everything';
/** What the API says of a purge (the contract in docs/api.md). */
export type ApiPurgeStatus =
  | 'queued'
  | 'waiting_for_approval'
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'rejected'
  | 'expired'
  | 'unknown';

/** A purge asked for over the HTTP API (0017_api_tokens). */
export interface ApiPurgesTable {
  id: string;
  workspace_id: string;
  token_id: string;
  token_name: string;
  idempotency_key: string | null;
  /** SHA-256 of the request body as understood (canonical JSON): a key reused with another body is refused. */
  body_hash: string;
  zone_id: string;
  zone_name: string;
  kind: ApiPurgeKind;
  /** For `everything`, read from its approval instead (see ApiPurgeService). */
  status: ApiPurgeStatus;
  done: number;
  total: number;
  approval_id: string | null;
  error: string | null;
  reason: string | null;
  context: string | null;
  created_at: number;
  updated_at: number;
  /** The zone's CDN account (cdn_accounts.id). */
  account_id: string;
  /** That account's name when asked; null: not said. */
  account_name: string | null;
}

/** A change freeze (0032): what it covers, its window rule and time zone, and what was announced. */
export interface FreezesTable {
  id: string;
  workspace_id: string;
  scope: 'workspace' | 'account' | 'zone';
  account_id: string | null;
  zone_id: string | null;
  target_name: string;
  /** JSON FreezeRule (src/store/freezes.ts). */
  rule: string;
  time_zone: string;
  reason: string;
  channel_id: string;
  purges: number;
  created_by: string;
  created_at: number;
  removed_at: number | null;
  removed_by: string | null;
  announced_start: number;
  announced_end: number;
}

export type FreezeExceptionStatus =
  | 'pending'
  | 'approved'
  | 'denied'
  | 'expired'
  | 'used'
  | 'cancelled';

/** An exception asked for during a freeze (0032): approved by a second person, used once. */
export interface FreezeExceptionsTable {
  id: string;
  workspace_id: string;
  freeze_id: string;
  action: string;
  zone_id: string | null;
  account_id: string | null;
  target_name: string;
  requester_id: string;
  reason: string;
  channel_id: string;
  message_ts: string | null;
  status: FreezeExceptionStatus;
  decided_by: string | null;
  decided_at: number | null;
  used_at: number | null;
  expires_at: number;
  created_at: number;
}
