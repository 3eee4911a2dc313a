// Purges for a later time, the one entry the app, its listeners and the HTTP API's service use:
// asked (scheduled-purge-ask), run when due by a job that checks again (scheduled-purge-job),
// listed and cancelled (scheduled-purge-list), stored and shown as in scheduled-purge-record.
import type { Clock } from '../../clock.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/index.js';
import type { AccessService } from '../access/access.js';
import type { ChangeRateLimit } from '../access/change-rate-limit.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { ApprovalService } from '../approvals/approvals.js';
import type { FreezeGate } from '../freezes/gate.js';
import type { PurgeService } from './purge-plan.js';
import { ScheduledPurgeAsk } from './scheduled-purge-ask.js';
import {
  type ScheduledApiPurges,
  ScheduledPurgeJob,
  type ScheduledPurgeSlack,
} from './scheduled-purge-job.js';
import { ScheduledPurgeList } from './scheduled-purge-list.js';

export type {
  ApiRefusalWords,
  ScheduledApiPurges,
  ScheduledPurgeSlack,
} from './scheduled-purge-job.js';
export {
  SCHEDULED_PURGE_JOB,
  type ScheduledApiRef,
  type ScheduledPurge,
  type ScheduledWhat,
  scheduledApiKey,
} from './scheduled-purge-record.js';

export interface ScheduledPurgeOptions {
  purges: PurgeService;
  approvals: ApprovalService;
  access: AccessService;
  accounts: AccountScopes;
  flood: ChangeRateLimit;
  store: Store;
  runner: JobRunner;
  slack: ScheduledPurgeSlack;
  /**
   * Change freezes, asked when the purge comes due (an exception its requester holds is used up
   * then); default: none.
   */
  freezes?: FreezeGate;
  /** The HTTP API's purges (made after this service, hence asked for when needed). */
  api?: () => ScheduledApiPurges | undefined;
  clock: Clock;
  logger: Logger;
}

/** Each way in, as its part defines it (ScheduledPurgeAsk, ScheduledPurgeList, ScheduledPurgeJob). */
export class ScheduledPurgeService {
  /** The instant a spec names for the caller (their Slack time zone, else UTC), and that zone. */
  readonly when: ScheduledPurgeAsk['when'];
  /** URL and tag purges of a checked plan, for later. */
  readonly schedule: ScheduledPurgeAsk['schedule'];
  /** A purge of everything for later, its approval requested now. */
  readonly requestEverything: ScheduledPurgeAsk['requestEverything'];
  /** A purge asked over the HTTP API for later, stored once per record. */
  readonly scheduleForApi: ScheduledPurgeAsk['scheduleForApi'];
  /** The workspace's purges waiting for their time, soonest first, that the caller may read. */
  readonly list: ScheduledPurgeList['list'];
  /** For the App Home: the caller's own purges waiting (an admin: every one), soonest first. */
  readonly forHome: ScheduledPurgeList['forHome'];
  /** Cancels a purge still waiting, for its requester or an admin; `id` may be its short id. */
  readonly cancel: ScheduledPurgeList['cancel'];
  /** The job due at the purge's time: checks again, then runs the purge or tells why not. */
  readonly job: ScheduledPurgeJob['job'];

  constructor(options: ScheduledPurgeOptions) {
    const ask = new ScheduledPurgeAsk(options);
    const listing = new ScheduledPurgeList(options);
    this.when = ask.when.bind(ask);
    this.schedule = ask.schedule.bind(ask);
    this.requestEverything = ask.requestEverything.bind(ask);
    this.scheduleForApi = ask.scheduleForApi.bind(ask);
    this.list = listing.list.bind(listing);
    this.forHome = listing.forHome.bind(listing);
    this.cancel = listing.cancel.bind(listing);
    this.job = new ScheduledPurgeJob(options).job;
  }
}
