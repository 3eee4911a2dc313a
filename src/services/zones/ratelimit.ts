// Turning a zone's rate limit on or off, audited. Propagation to every edge takes up to 30 s.

import type { Zone } from '../../cdn/schemas.js';
import type { Clock } from '../../clock.js';
import type { JobKind, JobRunner } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { AuditLogRepository } from '../../store/audit-log.js';
import type { AccessService, Caller } from '../access/access.js';
import type { ChangeRateLimit } from '../access/change-rate-limit.js';
import { requireOperatorWhere } from '../access/operators.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { CdnAccess } from '../accounts/cdn-access.js';
import type { CdnReadRateLimit } from '../analytics/cdn-read-rate-limit.js';
import type { FreezeGate } from '../freezes/gate.js';
import type { ReplyTo } from '../reply.js';
import { zoneForChannel } from './zone-work.js';
import type { ZoneService } from './zones.js';

export const RATELIMIT_FOLLOW_UP_JOB = 'ratelimit_follow_up';

export interface RateLimitChange {
  zone: Zone;
  enabled: boolean;
  actorId: string;
  /** The zone was the channel's default, not named. */
  fromDefault?: boolean;
}

/** What the bot last set a zone's rate limit to, and who; none when it never changed it. */
export interface RateLimitState {
  zone: Zone;
  last?: { enabled: boolean; actorId: string; at: number };
}

/**
 * The words after `/cdn ratelimit`: `<zone> on|off`, `on|off` alone for the channel's default
 * (a lone `on` or `off` is the state, never a zone), or `<zone>` alone to see its state (no
 * `enabled`). Undefined when they are none of these.
 */
export function parseRateLimitArgs(
  args: string[],
): { zone: string; enabled?: undefined } | { zone?: string; enabled: boolean } | undefined {
  const state = (word: string | undefined) => {
    const lower = word?.toLowerCase();
    return lower === 'on' ? true : lower === 'off' ? false : undefined;
  };
  if (args.length === 1) {
    const [word = ''] = args;
    const enabled = state(word);
    return enabled === undefined ? { zone: word } : { enabled };
  }
  const [zone, word] = args;
  const enabled = state(word);
  // `on off` is a slip, not a zone named "on".
  if (args.length !== 2 || zone === undefined || enabled === undefined || state(zone) !== undefined)
    return undefined;
  return { zone, enabled };
}

/**
 * The change's message: said when it is made, then corrected once it reached every edge (one
 * message, edited); implemented over Slack in src/slack.
 */
export type RateLimitNotices = (
  workspaceId: string,
  replyTo: ReplyTo,
  state: Record<string, unknown>,
  save: (state: Record<string, unknown>) => Promise<void>,
) => {
  changed(change: RateLimitChange): Promise<void>;
  propagated(change: RateLimitChange & { propagatedAt: number }): Promise<void>;
};

interface FollowUp extends RateLimitChange {
  replyTo: ReplyTo;
}

/** The spec: "A setting change can take up to 30 seconds to propagate to all edge locations." */
export const PROPAGATION_MS = 30_000;

export class RateLimitService {
  constructor(
    private readonly deps: {
      cdn: CdnAccess;
      audit: AuditLogRepository;
      access: AccessService;
      zones: ZoneService;
      /** Which CDN account a zone named is in. */
      accountScopes: AccountScopes;
      flood: ChangeRateLimit;
      /** Change freezes: rate-limit changes are refused during one (absent: none). */
      freezes?: FreezeGate;
      reads: CdnReadRateLimit;
      runner: JobRunner;
      notices: RateLimitNotices;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /**
   * After PROPAGATION_MS, the change's message says it is in effect everywhere: a job, so a
   * restart in those 30 s does not leave it saying "propagating" for ever.
   */
  readonly followUp: JobKind<FollowUp, { message?: Record<string, unknown> }> = {
    run: async (context) => {
      const { job } = context;
      const { replyTo, ...change } = job.payload;
      const notices = this.deps.notices(
        job.workspaceId,
        replyTo,
        job.checkpoint.message ?? {},
        (message) => context.checkpoint({ message }),
      );
      await notices.propagated({ ...change, propagatedAt: this.deps.clock.now() });
      return 'done';
    },
  };

  /**
   * The zone's rate limit as the bot last set it (the CDN's API has no way to read a setting).
   * Anyone of the workspace may look (a read: finding a zone the index lacks asks the CDN);
   * changing it is `set`'s, operators only.
   */
  async state(caller: Caller, zoneNameOrId: string, where?: Where): Promise<RateLimitState> {
    await this.deps.reads.take(caller);
    const { workspaceId } = caller;
    const zone = await this.#zone(workspaceId, zoneNameOrId, where);
    const entry = await this.deps.audit.latest(
      workspaceId,
      zone.id,
      ['ratelimit.on', 'ratelimit.off'],
      'ok',
    );
    return entry
      ? {
          zone,
          last: { enabled: entry.action === 'ratelimit.on', actorId: entry.actorId, at: entry.at },
        }
      : { zone };
  }

  /**
   * Operators of the zone's CDN account only, counted against the flood limit; returns the zone it
   * changed. With `replyTo`, the change is said there, and that message is updated once the change
   * has reached every edge.
   */
  async set(
    caller: Caller,
    zoneNameOrId: string | (() => Promise<Zone>),
    enabled: boolean,
    replyTo?: ReplyTo,
    where?: Where,
  ): Promise<Zone> {
    // A zone of a known account (an alert's) is looked up there alone; any other, by one who
    // operates some account it may be in.
    if (where?.accountId === undefined)
      await requireOperatorWhere(this.deps, caller, 'ratelimit', where);
    // A zone named, or a way to find it (the channel's default) once the caller may change it.
    const fromDefault = typeof zoneNameOrId === 'function';
    const zone = fromDefault
      ? await zoneNameOrId()
      : await this.#zone(caller.workspaceId, zoneNameOrId, where);
    await this.deps.access.requireOperator(caller, 'ratelimit', zone.accountId);
    await this.deps.freezes?.require({
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: 'ratelimit',
      zone,
    });
    await this.deps.flood.take(caller.workspaceId, caller.userId);
    // The zone's own account.
    const client = await this.deps.cdn.clientFor(caller.workspaceId, zone.accountId, 'ratelimit');
    const audit = (outcome: 'ok' | 'failed', detail?: Record<string, unknown>) =>
      this.deps.audit.record({
        workspaceId: caller.workspaceId,
        actorId: caller.userId,
        action: enabled ? 'ratelimit.on' : 'ratelimit.off',
        zoneId: zone.id,
        zoneName: zone.name,
        accountId: zone.accountId,
        outcome,
        ...(detail ? { detail } : {}),
      });
    try {
      // `mode` has no documented default, so it is always sent.
      await client.updateSettings(zone, { limits: { enabled, mode: 'automatic' } });
    } catch (error) {
      await audit('failed', { error: (error as { code?: string }).code ?? 'unknown' });
      throw error;
    }
    await audit('ok');
    if (replyTo) {
      const change: RateLimitChange = {
        zone,
        enabled,
        actorId: caller.userId,
        ...(fromDefault ? { fromDefault } : {}),
      };
      // The message's state (where it was posted) goes into the follow-up's checkpoint, so the
      // follow-up edits that message; said or not, the follow-up is due 30 s after the change.
      const runAt = this.deps.clock.now() + PROPAGATION_MS;
      const said: { message?: Record<string, unknown> } = {};
      const notice = this.deps.notices(caller.workspaceId, replyTo, {}, async (message) => {
        said.message = message;
      });
      // Made and audited: Slack not taking the notice (a 429, a 5xx, a refusal) does not undo the
      // change, so the person is not told it failed; the follow-up says the final state anyway.
      await notice.changed(change).catch((error: unknown) => {
        this.deps.logger.warn(
          { err: error, zone: zone.id },
          'rate limit notice not said; its follow-up will say the outcome',
        );
      });
      const payload: FollowUp = { ...change, replyTo };
      await this.deps.runner.enqueue({
        workspaceId: caller.workspaceId,
        kind: RATELIMIT_FOLLOW_UP_JOB,
        payload,
        runAt,
        checkpoint: said,
      });
    }
    return zone;
  }

  /** The zone named, in the account the channel or the words give. */
  async #zone(workspaceId: string, nameOrId: string, where?: Where): Promise<Zone> {
    const { zones } = this.deps;
    // A zone of a known account (an alert's): looked up there alone.
    if (where?.accountId !== undefined)
      return {
        ...(await zones.resolve(workspaceId, nameOrId, where.accountId)),
        accountId: where.accountId,
      };
    return zoneForChannel(this.deps, workspaceId, { ...where, zone: nameOrId });
  }
}

/** Where a command came from and the CDN account it typed, to find its zone's account. */
export interface Where {
  channelId?: string;
  account?: string;
  /** The account's id, when the zone's account is known already (an alert's). */
  accountId?: string;
}
