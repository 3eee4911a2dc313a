// The ways into a purge: the plan (the accounts a command may use, its caller checked once on
// them, its zones found, its URLs grouped), and a purge of a record's. Only a purge checked here
// is started (PurgeService.start takes nothing else); the HTTP API's and scheduled purges are
// checked by their own services as they come in.
import { AppError } from '../../errors.js';
import type { Store } from '../../store/index.js';
import type { PurgeJob } from '../../store/purges.js';
import type { AccessService, Caller } from '../access/access.js';
import type { ChangeRateLimit } from '../access/change-rate-limit.js';
import type { ChannelService } from '../access/channels.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { FreezeGate } from '../freezes/gate.js';
import type { ReplyTo } from '../reply.js';
import type { Zone, ZoneService } from '../zones/zones.js';
import { PurgeChecks } from './purge-checks.js';
import type { PurgeJobs } from './purge-job.js';
import type { ApiPurgeOrigin } from './purge-status.js';
import { type PurgeArgs, type PurgeGroup, type PurgePlan, planPurge } from './purge-targets.js';
import {
  type AmbiguousZone,
  ambiguousError,
  PurgeZones,
  type ZoneOrAmbiguous,
} from './purge-zones.js';

declare const CHECKED: unique symbol;

/** Checked here for `caller` in `channelId`: a value no other file can make. */
export interface Checked {
  readonly checkedFor: { readonly caller: Caller; readonly channelId: string | undefined };
  readonly [CHECKED]: true;
}

/** A purge its caller may start from its channel, every zone's account checked. */
export type CheckedPurge = Checked & { groups: PurgeGroup[]; fromDefault?: true };

/** A plan whose groups its caller may purge (`plan`): start it, hold it, or schedule it. */
export type CheckedPlan = PurgePlan & CheckedPurge;

export type PlanOrAmbiguous = { kind: 'plan'; plan: CheckedPlan } | AmbiguousZone;

type Items = Extract<PurgeArgs, { kind: 'items' }>;
type Started = { jobId: string; created: boolean; kind: string };

export class PurgeService {
  constructor(
    private readonly deps: {
      zones: ZoneService;
      access: AccessService;
      channels: ChannelService;
      /** Which CDN accounts a purge may use. */
      accounts: AccountScopes;
      flood: ChangeRateLimit;
      store: Store;
      /** Change freezes: URL and tag purges are refused during one that says so. */
      freezes?: FreezeGate;
      /** Where a purge started is stored and run. */
      jobs: PurgeJobs;
    },
  ) {
    this.#zones = new PurgeZones(deps);
    this.checks = new PurgeChecks(deps);
  }

  readonly #zones: PurgeZones;

  /** Who may purge from where: the form and scheduled purges ask it too. */
  readonly checks: PurgeChecks;

  /** The purge job, for the runner. */
  get job(): PurgeJobs['job'] {
    return this.deps.jobs.job;
  }

  /**
   * Zones already found, in a later request (a held purge at its confirmation): checked as a
   * plan's are, for `caller` in `channelId` now (access or the purge channels may have changed).
   */
  async check(
    caller: Caller,
    channelId: string | undefined,
    groups: PurgeGroup[],
    options: { fromDefault?: boolean } = {},
  ): Promise<CheckedPurge> {
    await this.checks.mayPurgeZones(
      caller,
      channelId,
      groups.map((group) => group.zone),
    );
    return checked(
      { groups, ...(options.fromDefault ? { fromDefault: true } : {}) },
      caller,
      channelId,
    );
  }

  /**
   * A purge record of the caller's workspace (its Retry, Verify or Purge again button), for a
   * caller who may purge in the record's own account from `channelId`: a channel bound to another
   * account refuses it (AppError account_bound), as it refuses that account typed. A record not
   * found is AppError purge_unknown, said only to one who may purge at all (mayPurgeAny).
   */
  async recordFor(
    caller: Caller,
    channelId: string | undefined,
    recordId: string,
  ): Promise<PurgeJob & Checked> {
    const record = await this.deps.store.purges.get(recordId);
    if (!record || record.workspaceId !== caller.workspaceId) {
      await this.checks.mayPurgeAny(caller, channelId);
      throw new AppError({ code: 'purge_unknown' });
    }
    await this.deps.accounts?.requireInChannel(caller.workspaceId, channelId, record.accountId);
    await this.checks.mayPurge(caller, channelId, record.accountId);
    return checked(record, caller, channelId);
  }

  /**
   * The zone a purge form or a purge-everything confirmation is about, for a caller who may
   * purge it from `channelId` (in its own account): the one named, else the channel's default.
   * AppError zone_ambiguous when several accounts hold the name (zoneOrAmbiguous asks instead).
   */
  async zoneFor(
    caller: Caller,
    channelId: string | undefined,
    zoneName?: string,
    account?: string,
  ): Promise<Zone> {
    const found = await this.zoneOrAmbiguous(caller, channelId, zoneName, account);
    if (found.kind === 'ambiguous') throw ambiguousError(found);
    return found.zone;
  }

  /**
   * zoneFor, or, when the name is in several accounts and none was typed, those accounts (the
   * person is asked which).
   */
  async zoneOrAmbiguous(
    caller: Caller,
    channelId: string | undefined,
    zoneName: string | undefined,
    account?: string,
  ): Promise<ZoneOrAmbiguous> {
    const { workspaceId } = caller;
    const scope = await this.#zones.scope(workspaceId, channelId, account);
    const proven = await this.checks.admit(caller, channelId, scope);
    const found: ZoneOrAmbiguous =
      zoneName !== undefined
        ? await this.#zones.lookup(workspaceId, scope).find(zoneName)
        : { kind: 'zone', zone: await this.#zones.channelDefault(workspaceId, channelId, account) };
    if (found.kind === 'ambiguous') return askOrRefuse(found, account);
    await this.checks.admitZones(caller, proven, [found.zone]);
    return found;
  }

  /**
   * Checks and groups what the caller gave; nothing is sent. Paths and tags name no host: with no
   * zone named, they are the channel's default zone's (`fromDefault`). AppError zone_ambiguous
   * when a zone's name is in several accounts (planOrAmbiguous asks instead).
   */
  async plan(
    caller: Caller,
    channelId: string | undefined,
    args: Items,
    account?: string,
  ): Promise<CheckedPlan> {
    const planned = await this.planOrAmbiguous(caller, channelId, args, account);
    if (planned.kind === 'ambiguous') throw ambiguousError(planned);
    return planned.plan;
  }

  /**
   * The one planning path: the accounts the command may use (the channel's, the one typed, else
   * each), the caller checked on them, the zone found in them (the one named, else the
   * channel's default, else each URL's), the plan, and the caller checked on each zone's account.
   * A zone's name in several accounts, none typed: those accounts (the person picks one).
   */
  async planOrAmbiguous(
    caller: Caller,
    channelId: string | undefined,
    args: Items,
    account?: string,
  ): Promise<PlanOrAmbiguous> {
    const { workspaceId } = caller;
    const scope = await this.#zones.scope(workspaceId, channelId, account);
    const proven = await this.checks.admit(caller, channelId, scope);
    const lookup = this.#zones.lookup(workspaceId, scope);
    const needsDefault =
      args.zone === undefined && ((args.paths?.length ?? 0) > 0 || args.tags.length > 0);
    let zone: Zone | undefined;
    if (args.zone !== undefined) {
      const found = await lookup.find(args.zone);
      if (found.kind === 'ambiguous') return askOrRefuse(found, account);
      zone = found.zone;
    } else if (needsDefault)
      zone = await this.#zones.channelDefault(workspaceId, channelId, account);
    const serving = await lookup.serving(zone);
    const plan = planPurge(itemsIn(zone, args), serving);
    const several = zone ? undefined : lookup.several(plan, serving);
    if (several) return askOrRefuse(several, account);
    // What would be purged, in each zone's own account (nothing: its refusal says why).
    await this.checks.admitZones(
      caller,
      proven,
      plan.groups.map((group) => group.zone),
    );
    const fromDefault = needsDefault ? { fromDefault: true as const } : {};
    return { kind: 'plan', plan: checked({ ...plan, ...fromDefault }, caller, channelId) };
  }

  /**
   * Starts a checked purge (only `plan`, `check` and the buttons of a record make one), counted
   * against its caller's flood limit and refused during a change freeze. See PurgeJobs.enqueue for
   * what happens next, and for `key`.
   */
  async start(
    purge: CheckedPurge,
    replyTo: ReplyTo,
    options: { key?: string; verify?: boolean; warm?: boolean } = {},
  ): Promise<Started> {
    const { caller } = purge.checkedFor;
    for (const group of purge.groups)
      await this.deps.freezes?.require({
        workspaceId: caller.workspaceId,
        actorId: caller.userId,
        action: 'purge',
        zone: group.zone,
      });
    await this.deps.flood.take(caller.workspaceId, caller.userId);
    return this.deps.jobs.enqueue(caller.workspaceId, purge.groups, caller.userId, replyTo, {
      ...options,
      ...(purge.fromDefault ? { fromDefault: true } : {}),
    });
  }

  /**
   * "Purge again": `files` of a record checked by recordFor, as a new purge of its zone `zoneId`
   * in the record's own account (started as `start` does).
   */
  async again(
    record: PurgeJob & Checked,
    zoneId: string,
    files: string[],
    replyTo: ReplyTo,
  ): Promise<Started> {
    const zone = await this.zoneById(record.workspaceId, zoneId, record.accountId);
    const { caller, channelId } = record.checkedFor;
    return this.start(checked({ groups: [{ zone, files, tags: [] }] }, caller, channelId), replyTo);
  }

  /**
   * A purge asked for over the HTTP API, stored once under `key`. No Slack person asks: the
   * token's scope was checked by ApiPurgeService, and the API has its own rate limit (no flood
   * limit, no operator or channel check).
   */
  async startForApi(
    workspaceId: string,
    group: PurgeGroup,
    input: {
      apiPurgeId: string;
      /** A few of its URLs (and `tag:` tags), for its message. */
      sample?: string[];
      actorId: string;
      replyTo: ReplyTo;
      key: string;
      warm?: boolean;
    },
  ): Promise<Started> {
    const api: ApiPurgeOrigin = {
      purgeId: input.apiPurgeId,
      ...(input.sample ? { sample: input.sample } : {}),
    };
    return this.deps.jobs.enqueue(workspaceId, [group], input.actorId, input.replyTo, {
      key: input.key,
      ...(input.warm ? { warm: true } : {}),
      api,
    });
  }

  /**
   * A scheduled purge come due, stored once under `key`: ScheduledPurgeService checked the
   * requester (operator, purge channel, binding) and the change window as it ran, and counted it
   * against their change limit when it was asked.
   */
  async startScheduled(
    workspaceId: string,
    groups: PurgeGroup[],
    actorId: string,
    replyTo: ReplyTo,
    options: { key: string; verify?: boolean; fromDefault?: boolean },
  ): Promise<Started> {
    return this.deps.jobs.enqueue(workspaceId, groups, actorId, replyTo, options);
  }

  /** Sends again what failed in an earlier purge of this workspace, as a new purge. */
  async retry(
    caller: Caller,
    channelId: string | undefined,
    jobId: string,
    replyTo: ReplyTo,
  ): Promise<Started> {
    const record = await this.recordFor(caller, channelId, jobId);
    if (record.failed.files.length + record.failed.tags.length === 0)
      throw new AppError({ code: 'nothing_to_retry' });
    // The zone in the purge's own account.
    const zone = await this.zoneById(caller.workspaceId, record.zoneId, record.accountId);
    const group = { zone, files: record.failed.files, tags: record.failed.tags };
    await this.deps.flood.take(caller.workspaceId, caller.userId);
    return this.deps.jobs.enqueue(caller.workspaceId, [group], caller.userId, replyTo, {
      retryOf: jobId,
    });
  }

  /**
   * The zone `zoneId` of the account `accountId`, carrying its account; AppError zone_not_found
   * when it has none of that id.
   */
  async zoneById(workspaceId: string, zoneId: string, accountId: string): Promise<Zone> {
    return this.#zones.byId(workspaceId, zoneId, accountId);
  }
}

function checked<T extends object>(
  value: T,
  caller: Caller,
  channelId: string | undefined,
): T & Checked {
  return { ...value, checkedFor: { caller, channelId } } as T & Checked;
}

/** A name in several accounts: asked of the person, unless they typed one (then refused). */
function askOrRefuse(found: AmbiguousZone, account: string | undefined): AmbiguousZone {
  if (account !== undefined) throw ambiguousError(found);
  return found;
}

/** What planPurge reads: the items asked for, in `zone` when one was named or is the channel's default. */
function itemsIn(
  zone: Parameters<typeof planPurge>[0]['zone'],
  args: Items,
): Parameters<typeof planPurge>[0] {
  return {
    ...(zone ? { zone } : {}),
    urls: args.urls,
    tags: args.tags,
    unknown: args.unknown,
    ...(args.paths ? { paths: args.paths } : {}),
  };
}
