// What the listeners receive, built once at start-up and passed in: services, never the store.

import type { Clock } from './clock.js';
import type { BackgroundWork } from './jobs/background.js';
import type { RetentionSweep } from './jobs/retention.js';
import type { JobRunner } from './jobs/runner.js';
import type { Logger } from './logger.js';
import type { AccessService } from './services/access/access.js';
import type { ChangeRateLimit } from './services/access/change-rate-limit.js';
import type { ChannelService } from './services/access/channels.js';
import type { AccountPickService } from './services/accounts/account-picks.js';
import type { AccountScopes } from './services/accounts/account-scope.js';
import type { AccountService } from './services/accounts/accounts.js';
import type { CredentialService } from './services/accounts/credentials.js';
import type { AnalyticsService } from './services/analytics/analytics.js';
import type { ApiPurgeService } from './services/api/api-purges.js';
import type { ApiTokenService } from './services/api/api-tokens.js';
import type { ApprovalService } from './services/approvals/approvals.js';
import type { ActivityService } from './services/audit/activity.js';
import type { AuditExportService } from './services/audit/audit-export.js';
import type { FreezeService } from './services/freezes/freezes.js';
import type { PurgeFormService } from './services/purge/purge-form.js';
import type { PurgeHoldService } from './services/purge/purge-holds.js';
import type { PurgeService } from './services/purge/purge-plan.js';
import type { ScheduledPurgeService } from './services/purge/scheduled-purges.js';
import type { ReplayGuard } from './services/replays.js';
import type { ReportDelivery } from './services/reports/report-delivery.js';
import type { ReportScheduleService } from './services/reports/report-schedules.js';
import type { VerifyService } from './services/verify/verify.js';
import type { WatchEvaluation } from './services/watches/watch-evaluation.js';
import type { WatchService } from './services/watches/watches.js';
import type { WorkflowStepService } from './services/workflows/workflow-steps.js';
import type { UninstallService } from './services/workspace/uninstall.js';
import type { WorkspaceConfigService } from './services/workspace/workspace-config.js';
import type { RateLimitService } from './services/zones/ratelimit.js';
import type { ZoneChoices } from './services/zones/zone-choices.js';
import type { ZoneIndex } from './services/zones/zone-index.js';
import type { ZoneService } from './services/zones/zones.js';
import type { WorkspaceClients } from './slack/workspace-clients.js';

export interface AppDeps {
  access: AccessService;
  /** The workspace's CDN accounts: adding, renaming, re-keying, removing, roles, key health. */
  accounts: AccountService;
  activity: ActivityService;
  /** `/cdn audit export`: the CSV job (one at a time per person). */
  auditExport: AuditExportService;
  analytics: AnalyticsService;
  /** Tokens of the HTTP API: made, listed and revoked by admins (create returns the secret once). */
  apiTokens: ApiTokenService;
  /** Purges asked for over the HTTP API. */
  apiPurges: ApiPurgeService;
  approvals: ApprovalService;
  config: WorkspaceConfigService;
  credentials: CredentialService;
  /** Change freezes: declared by admins, enforced on changes, their exceptions and announcements. */
  freezes: FreezeService;
  /** Per-user limit on changes (purge, create, ratelimit), shared by every replica. */
  flood: ChangeRateLimit;
  purges: PurgeService;
  /** Purges for a later time (`at 02:00`, `in 30m`): listed, cancelled, checked again when due. */
  scheduledPurges: ScheduledPurgeService;
  /** Purges held for their requester's word (some URLs not served by the zone named). */
  purgeHolds: PurgeHoldService;
  /** Purges waiting for their requester to pick the CDN account. */
  accountPicks: AccountPickService;
  /** The purge form's zones across CDN accounts, and what the message shortcut opens. */
  purgeForm: PurgeFormService;
  /** Purged URLs checked at the edge: the Verify button, --verify, "Purge again". */
  verify: VerifyService;
  ratelimit: RateLimitService;
  /** Each Slack delivery runs once, however often it arrives. */
  replays: ReplayGuard;
  /** Daily reports: the tick that turns due occurrences into jobs, and the job that posts one. */
  reports: ReportDelivery;
  schedules: ReportScheduleService;
  /** Tears a workspace down when Slack revokes the app's access. */
  uninstall: UninstallService;
  zones: ZoneService;
  /** Which CDN account a command acts on. */
  accountScopes: AccountScopes;
  /** What the zone pickers offer, across CDN accounts. */
  zoneChoices: ZoneChoices;
  /** Each workspace's zone index (its maintenance is a tick of `background`). */
  zoneIndex: ZoneIndex;
  /** Enqueues durable work (purges, approved purge-everything, reports, follow-ups). */
  runner: JobRunner;
  /** Every job kind and periodic tick: started once by the composition root, stopped before the store closes. */
  background: BackgroundWork;
  /** Deletes old rows and uninstalled workspaces' data (a tick of `background`). */
  retention: RetentionSweep;
  /** Bot tokens for work outside a request (approval expiry, reports). */
  clients: WorkspaceClients;
  clock: Clock;
  logger: Logger;
  /** Whether a URL is one of Slack's own response URLs: the only ones an answer is posted to. */
  isSlackResponseUrl: (url: string) => boolean;
  /** CDN_EDGE_CNAME_TARGET: what onboarded domains must CNAME to. */
  edgeCnameTarget: string;
  /** Channels' default zones (`/cdn use`) and the channels purges may be run from. */
  channels: ChannelService;
  /** Channels watching zones: the commands, the App Home's list, an alert's buttons. */
  watches: WatchService;
  /** Watched zones evaluated once an interval (the tick and its jobs are in `background`). */
  watchEvaluation: WatchEvaluation;
  /** Workflow Builder steps: purges and requests started by a workflow, ended durably. */
  workflowSteps: WorkflowStepService;
}
