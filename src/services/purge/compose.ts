// How the CDN and purge services are put together: one way, for the app (app.ts) and for the tests
// that run them against the sandbox, so that a test runs the services as the app builds them.

import type { Clock } from '../../clock.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/index.js';
import type { PersonLimits } from '../../throttles/per-person-rate-limit.js';
import { AccessService } from '../access/access.js';
import type { ChangeRateLimit } from '../access/change-rate-limit.js';
import { ChannelService } from '../access/channels.js';
import { AccountPickService } from '../accounts/account-picks.js';
import { AccountScopes } from '../accounts/account-scope.js';
import { CdnAccess, type CdnAccessOptions } from '../accounts/cdn-access.js';
import { type CdnReadLimits, CdnReadRateLimit } from '../analytics/cdn-read-rate-limit.js';
import { type ApprovalNotifier, ApprovalService } from '../approvals/approvals.js';
import type { FreezeGate } from '../freezes/gate.js';
import {
  type EdgeProbe,
  type VerifyLimits,
  VerifyService,
  type VerifyViews,
} from '../verify/verify.js';
import { ZoneIndex } from '../zones/zone-index.js';
import type { ZoneIndexOptions } from '../zones/zone-index-builder.js';
import { ZoneService } from '../zones/zones.js';
import { PurgeFormService } from './purge-form.js';
import { PurgeHoldService } from './purge-holds.js';
import { PurgeJobs } from './purge-job.js';
import { PurgeService } from './purge-plan.js';
import type { PurgeViews } from './purge-status.js';

export interface CdnServicesOptions extends CdnAccessOptions {
  /** The zone index's settings: the client's bounds, refresh age, concurrency, the runner it holds refreshes with. */
  zoneIndex: Omit<ZoneIndexOptions, 'store' | 'cdn' | 'clock' | 'logger'>;
  /** CDN reads for people per minute, per person and per workspace (0: unbounded). */
  readsPerMinute: CdnReadLimits;
  /** Change freezes, which zone creation and purges ask (absent: none). */
  freezes?: FreezeGate;
}

/** Each workspace's CDN client, who may do what, the zone index, bounded reads, zones, channels. */
export function cdnServices(options: CdnServicesOptions) {
  const { store, clock, logger } = options;
  const cdn = new CdnAccess({
    store,
    transport: options.transport,
    defaultBaseUrl: options.defaultBaseUrl,
    ...(options.egress ? { egress: options.egress } : {}),
    clock,
    logger,
  });
  const access = new AccessService(store.workspaces, {
    accounts: store.accounts,
    roles: store.accountRoles,
  });
  const zoneIndex = new ZoneIndex({ store, cdn, clock, logger, ...options.zoneIndex });
  const reads = new CdnReadRateLimit(store.rateSlots, access, options.readsPerMinute);
  const zones = new ZoneService({ cdn, audit: store.audit, index: zoneIndex, reads });
  // Which CDN account a zone is in: every feature that names a zone asks it.
  const scopes = new AccountScopes({
    store,
    zones,
    index: zoneIndex,
    access,
    ...(options.freezes ? { freezes: options.freezes } : {}),
  });
  const channels = new ChannelService({
    bindings: store.channelBindings,
    audit: store.audit,
    access,
    zones,
    scopes,
  });
  return { cdn, access, zoneIndex, reads, zones, channels, scopes, freezes: options.freezes };
}

export interface PurgeServicesOptions {
  cdn: ReturnType<typeof cdnServices>;
  store: Store;
  runner: JobRunner;
  flood: ChangeRateLimit;
  clock: Clock;
  logger: Logger;
  /** Where a purge's progress is shown. */
  views: PurgeViews;
  /** Progress updates must never stop a purge; their failures are only reported here. */
  onViewError: (error: unknown) => void;
  /** Where purge-everything requests are posted for approval. */
  notifier: ApprovalNotifier;
  /** Checking purged URLs at the edge: the prober, where results are shown, its bounds. */
  verify: {
    prober: EdgeProbe;
    views: VerifyViews;
    limits?: Partial<VerifyLimits>;
    /** Verifications asked per minute, per person and per workspace (absent: no bound). */
    perMinute?: PersonLimits;
    /** After a purge asked with --verify, how long the edge is given before it is asked. */
    delayMs?: number;
  };
}

/** Purges, held purges, account picks, the purge form, purge-everything approvals and verifications; their jobs are for the caller to register. */
export function purgeServices(options: PurgeServicesOptions) {
  const { store, runner, flood, clock, logger } = options;
  const { cdn, access, zones, channels, scopes, freezes } = options.cdn;
  const jobs = new PurgeJobs({
    cdn,
    store,
    runner,
    views: options.views,
    onViewError: options.onViewError,
    logger,
    clock,
    ...(options.verify.delayMs === undefined ? {} : { verifyDelayMs: options.verify.delayMs }),
  });
  const purges = new PurgeService({
    zones,
    access,
    channels,
    accounts: scopes,
    flood,
    store,
    ...(freezes ? { freezes } : {}),
    jobs,
  });
  const holds = new PurgeHoldService({ store, runner, purges, clock });
  const picks = new AccountPickService({ store, runner, purges, holds, clock });
  const forms = new PurgeFormService({ purges, picks, scopes, zones });
  const approvals = new ApprovalService({
    runner,
    store,
    cdn,
    access,
    channels,
    flood,
    notifier: options.notifier,
    ...(freezes ? { freezes } : {}),
    clock,
    logger,
  });
  const verify = new VerifyService({
    store,
    runner,
    purges,
    zones,
    prober: options.verify.prober,
    clock,
    views: options.verify.views,
    ...(options.verify.limits ? { limits: options.verify.limits } : {}),
    ...(options.verify.perMinute ? { perMinute: options.verify.perMinute } : {}),
  });
  return { purges, holds, picks, forms, approvals, verify };
}
