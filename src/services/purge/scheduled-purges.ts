// Purges for a later time, the one entry the app, its listeners and the HTTP API's service use:
// asked (scheduled-purge-ask), run when due by a job that checks again (scheduled-purge-job),
// listed and cancelled (scheduled-purge-list), stored and shown as in scheduled-purge-record.
import type { Clock } from '../../clock.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/index.js';
import type { AccessService, Caller } from '../access/access.js';
import type { ChangeRateLimit } from '../access/change-rate-limit.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { ApprovalService } from '../approvals/approvals.js';
import type { FreezeGate } from '../freezes/gate.js';
import type { Zone } from '../zones/zones.js';
import type { CheckedPurge, PurgeService } from './purge-plan.js';
import type { ScheduleSpec } from './schedule-time.js';
import { ScheduledPurgeAsk } from './scheduled-purge-ask.js';
import {
  type ScheduledApiPurges,
  ScheduledPurgeJob,
  type ScheduledPurgeSlack,
} from './scheduled-purge-job.js';
import { ScheduledPurgeList } from './scheduled-purge-list.js';
import type { ScheduledApiRef, ScheduledPurge, ScheduledWhat } from './scheduled-purge-record.js';

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

export class ScheduledPurgeService {
  readonly #ask: ScheduledPurgeAsk;
  readonly #list: ScheduledPurgeList;

  /** The job due at the purge's time: checks again, then runs the purge or tells why not. */
  readonly job: ScheduledPurgeJob['job'];

  constructor(options: ScheduledPurgeOptions) {
    this.#ask = new ScheduledPurgeAsk(options);
    this.#list = new ScheduledPurgeList(options);
    this.job = new ScheduledPurgeJob(options).job;
  }

  /** The instant `spec` names for the caller (their Slack time zone, else UTC), and that zone. */
  when(caller: Caller, spec: ScheduleSpec): Promise<{ at: number; timeZone: string }> {
    return this.#ask.when(caller, spec);
  }

  /** URL and tag purges of a checked plan, to run at `spec`'s time (ScheduledPurgeAsk.schedule). */
  schedule(
    caller: Caller,
    channelId: string | undefined,
    plan: CheckedPurge,
    spec: ScheduleSpec,
    options: { verify?: boolean } = {},
  ): Promise<ScheduledPurge> {
    return this.#ask.schedule(caller, channelId, plan, spec, options);
  }

  /** A purge of everything for later, its approval requested now (ScheduledPurgeAsk). */
  requestEverything(
    caller: Caller,
    input: { zone: Zone; reason: string; channelId: string; notBefore: number; timeZone?: string },
  ): Promise<ScheduledPurge> {
    return this.#ask.requestEverything(caller, input);
  }

  /** A purge asked over the HTTP API for later, stored once per record (ScheduledPurgeAsk). */
  scheduleForApi(
    workspaceId: string,
    input: {
      api: ScheduledApiRef;
      actorId: string;
      channelId?: string | undefined;
      dueAt: number;
      what: ScheduledWhat;
    },
  ): Promise<ScheduledPurge> {
    return this.#ask.scheduleForApi(workspaceId, input);
  }

  /** The workspace's purges waiting for their time, soonest first, that the caller may read. */
  list(caller: Caller): Promise<{ shown: ScheduledPurge[]; hidden: number }> {
    return this.#list.list(caller);
  }

  /** For the App Home: the caller's own purges waiting (an admin: every one), soonest first. */
  forHome(
    caller: Caller,
    limit?: number,
  ): Promise<{ shown: ScheduledPurge[]; hidden: number; everyone: boolean }> {
    return this.#list.forHome(caller, limit);
  }

  /** Cancels a purge still waiting, for its requester or an admin; `id` may be its short id. */
  cancel(caller: Caller, id: string): Promise<ScheduledPurge> {
    return this.#list.cancel(caller, id);
  }
}
