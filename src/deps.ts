// What the listeners share, built once at start-up and passed in: no globals.
import type { EgressPolicy } from './cdn/egress.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { AnalyticsService } from './services/analytics.js';
import type { ApprovalService } from './services/approvals.js';
import type { CdnAccess } from './services/cdn-access.js';
import type { CredentialService } from './services/credentials.js';
import type { DailyReportService } from './services/daily-report.js';
import type { FloodControl } from './services/flood.js';
import type { PurgeService } from './services/purge.js';
import type { RateLimitService } from './services/ratelimit.js';
import type { UninstallService } from './services/uninstall.js';
import type { ZoneService } from './services/zones.js';
import type { GroupMembersCache } from './slack/directory.js';
import type { WorkspaceClients } from './slack/workspace-clients.js';
import type { Store } from './store/index.js';

export interface AppDeps {
  store: Store;
  cdn: CdnAccess;
  /** Which CDN base URLs a workspace may set (SSRF checks). */
  egress: EgressPolicy;
  zones: ZoneService;
  ratelimit: RateLimitService;
  credentials: CredentialService;
  purges: PurgeService;
  approvals: ApprovalService;
  analytics: AnalyticsService;
  reports: DailyReportService;
  /** Per-user limit on changes (purge, create, ratelimit), shared by every replica. */
  flood: FloodControl;
  /** Tears a workspace down when Slack revokes the app's access. */
  uninstall: UninstallService;
  /** Bot tokens for work outside a request (approval expiry, reports). */
  clients: WorkspaceClients;
  groups: GroupMembersCache;
  clock: Clock;
  logger: Logger;
  /** CDN_API_BASE_URL, shown where a workspace has no override. */
  defaultBaseUrl: string;
  /** CDN_EDGE_CNAME_TARGET: what onboarded domains must CNAME to. */
  edgeCnameTarget: string;
}
