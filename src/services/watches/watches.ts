// Watching zones from a channel: /cdn watch, /cdn watch list (and its Unmute buttons),
// /cdn unwatch, the App Home's list, 'Tell this channel when it goes live', and an alert's buttons
// (snooze, mute, rate limiting on) and its muted notice's Unmute.
import type { Zone } from '../../cdn/schemas.js';
import type { Clock } from '../../clock.js';
import type { WatchSettings } from '../../config.js';
import { type Action, AppError } from '../../errors.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { WatchAlert, WatchAlertRepository } from '../../store/watch-alerts.js';
import type { WatchRuleRepository } from '../../store/watch-rule-states.js';
import type { Watch, WatchRepository } from '../../store/watches.js';
import type { WorkspaceRepository } from '../../store/workspaces.js';
import type { Caller } from '../access/access.js';
import { requireOperatorWhere } from '../access/operators.js';
import type { RateLimitService } from '../zones/ratelimit.js';
import {
  auditZoneChange,
  newZoneWork,
  visibleZoneWork,
  type ZoneWorkDeps,
  zoneForChannel,
} from '../zones/zone-work.js';
import { firstRunAt } from './watch-evaluation.js';
import { parseThreshold } from './watch-rules.js';

export const SNOOZE_MS = 3_600_000;
/** Turning rate limiting on from an alert: a job keyed by the alert, run by the click. */
export const ALERT_RATELIMIT_JOB = 'alert_ratelimit';

export const alertRateLimitKey = (alertId: string) => `alert-ratelimit:${alertId}`;

/** Says what was done to an alert, in its thread; implemented over Slack in src/slack. */
export interface AlertFollowUps {
  snoozed(alert: WatchAlert, userId: string, until: number): Promise<void>;
  muted(alert: WatchAlert, userId: string): Promise<void>;
  rateLimited(alert: WatchAlert, userId: string): Promise<void>;
}

/** A watch as lists show it: with the rules muted in its channel. */
export interface ListedWatch extends Watch {
  muted: string[];
  /** Whether its CDN account holds a key (without one, it waits for one). */
  keyed?: boolean;
}

export interface WatchListing {
  watches: ListedWatch[];
  /** Watches in conversations the caller is not in, left out. */
  hidden: number;
  /** Whether the account `/cdn login` sets has a key. */
  keySet: boolean;
}

export class WatchService {
  constructor(
    private readonly deps: ZoneWorkDeps & {
      watches: WatchRepository;
      watchRules: WatchRuleRepository;
      watchAlerts: WatchAlertRepository;
      workspaces: WorkspaceRepository;
      ratelimit: RateLimitService;
      runner: JobRunner;
      followUps: AlertFollowUps;
      clock: Clock;
      settings: WatchSettings;
    },
  ) {}

  /**
   * Operators of the zone's account only: the channel watches the zone (which must exist), with
   * any thresholds given added to those it had: within the workspace's limits (rules per watch,
   * watches in the workspace and per person), or nothing changes (limit_reached).
   */
  async watch(
    caller: Caller,
    input: { zone: string; channelId: string; thresholds?: string[]; account?: string },
  ): Promise<{ watch: Watch; created: boolean; zoneStatus: string }> {
    await requireOperatorWhere(this.deps, caller, 'manage_watches', input);
    const rules: string[] = [];
    for (const text of input.thresholds ?? []) {
      const rule = parseThreshold(text);
      if ('error' in rule)
        throw new AppError({ code: 'invalid_threshold', text, reason: rule.error });
      rules.push(rule.text);
    }
    const { zone, watch: existing } = await this.#channelWatch(caller, input);
    const merged = [...new Set([...(existing?.rules ?? []), ...rules])];
    const { limits } = await this.deps.workspaces.ensure(caller.workspaceId);
    // Only a watch given more rules is held to it: one stored before the limit was lowered can
    // still be watched again as it is.
    if (merged.length > limits.rulesPerWatch && merged.length > (existing?.rules.length ?? 0))
      throw new AppError({
        code: 'limit_reached',
        limit: 'rulesPerWatch',
        max: limits.rulesPerWatch,
        count: merged.length,
      });
    const { watch, created } = await this.deps.watches.upsert(
      { ...newZoneWork(caller, zone, input.channelId), rules: merged },
      {
        status: zone.status,
        firstRunAt: firstRunAt(
          caller.workspaceId,
          zone.id,
          this.deps.settings.intervalMs,
          this.deps.clock.now(),
        ),
      },
      limits,
    );
    await this.#audit(caller, watch, created ? 'watch.added' : 'watch.changed', { rules: merged });
    return { watch, created, zoneStatus: zone.status };
  }

  /**
   * Operators among the workspace's full members (never a guest): what the conversations the
   * caller is in watch, each with its muted rules; how many other watches there are; and whether
   * the workspace has a CDN key (without one, no watch runs until one is set).
   */
  async list(caller: Caller): Promise<WatchListing> {
    const {
      shown: watches,
      hidden,
      keySet,
    } = await visibleZoneWork(this.deps, caller, 'manage_watches', () =>
      this.deps.watches.listForWorkspace(caller.workspaceId),
    );
    const muted = new Map<string, string[]>();
    for (const state of await this.deps.watchRules.ruleStates(watches.map((w) => w.id)))
      if (state.muted) muted.set(state.watchId, [...(muted.get(state.watchId) ?? []), state.rule]);
    return {
      watches: watches.map((watch) => ({ ...watch, muted: (muted.get(watch.id) ?? []).sort() })),
      hidden,
      keySet,
    };
  }

  /** Operators of the zone's account only: the channel stops watching the zone. */
  async unwatch(
    caller: Caller,
    input: { zone: string; channelId: string; account?: string },
  ): Promise<Watch> {
    await requireOperatorWhere(this.deps, caller, 'manage_watches', input);
    const { zone, watch } = await this.#channelWatch(caller, input);
    if (!watch || !(await this.deps.watches.remove(watch)))
      throw new AppError({ code: 'not_watching', zoneName: zone.name });
    await this.#audit(caller, watch, 'watch.removed', {});
    return watch;
  }

  /** 'Snooze 1 h': no new alert of this rule in this channel for an hour. */
  async snooze(caller: Caller, alertId: string): Promise<WatchAlert> {
    const alert = await this.#alert(caller, alertId);
    const until = this.deps.clock.now() + SNOOZE_MS;
    await this.deps.watchRules.snooze(alert.watchId, alert.rule, until);
    await this.#audit(caller, alert, 'watch.snoozed', { rule: alert.rule, until });
    await this.deps.followUps.snoozed(alert, caller.userId, until);
    return alert;
  }

  /** 'Mute this alert': no new alert of this rule in this channel until it is unmuted. */
  async mute(caller: Caller, alertId: string): Promise<WatchAlert> {
    const alert = await this.#alert(caller, alertId);
    await this.deps.watchRules.mute(alert.watchId, alert.rule);
    await this.#audit(caller, alert, 'watch.muted', { rule: alert.rule });
    await this.deps.followUps.muted(alert, caller.userId);
    return alert;
  }

  /**
   * 'Unmute' under a muted notice: the alert's rule alerts this channel again. `unmuted` false:
   * it was not muted (any more), and nothing changed.
   */
  async unmute(caller: Caller, alertId: string): Promise<{ alert: WatchAlert; unmuted: boolean }> {
    const alert = await this.#alert(caller, alertId);
    const unmuted = await this.deps.watchRules.unmute(alert.watchId, alert.rule);
    if (unmuted) await this.#audit(caller, alert, 'watch.unmuted', { rule: alert.rule });
    return { alert, unmuted };
  }

  /**
   * Operators of the watch's account only: 'Unmute' in the watch list: every muted rule of the
   * watch alerts again.
   */
  async unmuteWatch(caller: Caller, watchId: string): Promise<{ watch: Watch; rules: string[] }> {
    const watch = await this.deps.watches.get(watchId);
    if (!watch || watch.workspaceId !== caller.workspaceId) {
      await requireOperatorWhere(this.deps, caller, 'manage_watches');
      throw new AppError({ code: 'watch_unknown' });
    }
    await this.deps.access.requireOperator(caller, 'manage_watches', watch.accountId);
    const rules: string[] = [];
    for (const state of await this.deps.watchRules.ruleStates([watch.id])) {
      if (!state.muted || !(await this.deps.watchRules.unmute(watch.id, state.rule))) continue;
      rules.push(state.rule);
      await this.#audit(caller, watch, 'watch.unmuted', { rule: state.rule });
    }
    return { watch, rules };
  }

  /**
   * 'Turn rate limiting on', through the rate-limit service (operators of the alert's account,
   * flood limit, audit). Once per alert: the change is a job keyed by the alert, run by the first
   * click (`runKeyed`); a second click (a double click, a colleague) changes nothing and says who
   * did it. A change that failed may be tried again at once; one whose process died, once its
   * lease has expired.
   */
  async rateLimit(
    caller: Caller,
    alertId: string,
  ): Promise<{ alert: WatchAlert; already?: { by: string; done: boolean } }> {
    const alert = await this.#alert(caller, alertId, 'ratelimit');
    const run = await this.deps.runner.runKeyed(
      {
        workspaceId: caller.workspaceId,
        kind: ALERT_RATELIMIT_JOB,
        key: alertRateLimitKey(alert.id),
        payload: { alertId: alert.id },
        // Who holds (or made) the change: what a later click is told.
        checkpoint: { by: caller.userId },
      },
      // The alert's zone in its own account (the id alone may be in several).
      () =>
        this.deps.ratelimit.set(caller, alert.zoneId, true, undefined, {
          accountId: alert.accountId,
        }),
    );
    if (!run.ran) {
      const by = String(run.job.checkpoint.by ?? caller.userId);
      return { alert, already: { by, done: run.job.state === 'succeeded' } };
    }
    await this.deps.followUps.rateLimited(alert, caller.userId);
    return { alert };
  }

  /**
   * The zone named (in the channel's account), for an operator of its account, and the channel's
   * watch of it, if any.
   */
  async #channelWatch(
    caller: Caller,
    input: { zone: string; channelId: string; account?: string },
  ): Promise<{ zone: Zone; watch: Watch | undefined }> {
    const zone = await zoneForChannel(this.deps, caller.workspaceId, input);
    await this.deps.access.requireOperator(caller, 'manage_watches', zone.accountId);
    const { workspaceId } = caller;
    const watch = await this.deps.watches.find(
      workspaceId,
      zone.id,
      input.channelId,
      zone.accountId,
    );
    return { zone, watch };
  }

  /** The alert, for an operator of its zone's account (`action`: what they do to it). */
  async #alert(
    caller: Caller,
    alertId: string,
    action: Action = 'manage_watches',
  ): Promise<WatchAlert> {
    const alert = await this.deps.watchAlerts.alert(alertId);
    if (!alert || alert.workspaceId !== caller.workspaceId) {
      // Said only to one who operates some account.
      await requireOperatorWhere(this.deps, caller, action);
      throw new AppError({ code: 'alert_unknown' });
    }
    await this.deps.access.requireOperator(caller, action, alert.accountId);
    return alert;
  }

  async #audit(
    caller: Caller,
    subject: { zoneId: string; zoneName: string; channelId: string; accountId: string },
    action: string,
    detail: Record<string, unknown>,
  ) {
    await auditZoneChange(this.deps.audit, caller, subject, action, {
      channel: subject.channelId,
      ...detail,
    });
  }
}
