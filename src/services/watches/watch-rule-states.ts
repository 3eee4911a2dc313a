// The per-rule state machine of a watch: each rule takes one hold/clear step per interval, written
// conditionally on the state it was computed from; an alert it fires (or resolves) is then stored
// and its post queued, both keyed, so a resumed evaluation repeats them harmlessly.
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { WatchSettings } from '../../config.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { Store } from '../../store/index.js';
import type { RuleState } from '../../store/watch-rule-states.js';
import type { Watch, WatchedZone } from '../../store/watches.js';
import { type PostPayload, WATCH_POST_JOB } from './watch-posting.js';
import {
  type Baseline,
  evaluate,
  parseThreshold,
  type Sample,
  step,
  type ThresholdRule,
  type Verdict,
} from './watch-rules.js';

export interface WatchRuleStatesOptions {
  store: Store;
  runner: JobRunner;
  clock: Clock;
  settings: WatchSettings;
}

const MINUTE = 60_000;

/** An alert's id: the same for a resumed evaluation of the same interval. */
export function alertId(watchId: string, rule: string, dueAt: number): string {
  return `alert_${createHash('sha256').update(`${watchId}\n${rule}\n${dueAt}`).digest('hex').slice(0, 24)}`;
}

/** The thresholds of a watch that parse (a stored rule always did). */
export function thresholdsOf(watch: Watch): ThresholdRule[] {
  return watch.rules
    .map((text) => parseThreshold(text))
    .filter((rule): rule is ThresholdRule => !('error' in rule));
}

export class WatchRuleStates {
  readonly #o: WatchRuleStatesOptions;

  constructor(options: WatchRuleStatesOptions) {
    this.#o = options;
  }

  /**
   * Each watch's rules take this interval's step once. The step is written first, conditional on
   * the state it was computed from (another replica evaluating the zone's next interval at the
   * same time makes it read again); an alert it fires is then stored and its post queued, both
   * keyed, which a resumed job (finding its own interval applied) does again harmlessly.
   */
  async apply(
    zone: WatchedZone,
    watches: Watch[],
    sample: Sample,
    baseline: Baseline | undefined,
    dueAt: number,
  ): Promise<void> {
    const { store, settings } = this.#o;
    const states = new Map(
      (await store.watchRules.ruleStates(watches.map((w) => w.id))).map((s) => [
        `${s.watchId}\n${s.rule}`,
        s,
      ]),
    );
    for (const watch of watches) {
      for (const verdict of evaluate(sample, thresholdsOf(watch), baseline, settings)) {
        let state = states.get(`${watch.id}\n${verdict.rule}`);
        for (let attempt = 0; attempt < 5; attempt++) {
          if (await this.#stepRule(zone, watch, verdict, state, sample, dueAt)) break;
          [state] = await store.watchRules.ruleStates([watch.id], verdict.rule);
        }
      }
    }
  }

  /** One rule's step for one interval; false when its state moved meanwhile (read it again). */
  async #stepRule(
    zone: WatchedZone,
    watch: Watch,
    verdict: Verdict,
    state: RuleState | undefined,
    sample: Sample,
    dueAt: number,
  ): Promise<boolean> {
    const { store, settings, clock } = this.#o;
    const fired = alertId(watch.id, verdict.rule, dueAt);
    if (state && state.lastInterval >= dueAt) {
      // Applied already: by this job before a crash when it fired or resolved here (its alert and
      // post are made sure of; both are keyed, so a second time changes nothing).
      if (state.lastInterval === dueAt && state.alertId === fired)
        await this.#fire(zone, watch, verdict, sample, fired);
      else if (state.lastInterval === dueAt && !state.firing && state.alertId)
        await this.#resolve(zone, verdict, sample, state.alertId);
      return true;
    }
    // A rule that never breached and is not tracked yet needs no row.
    if (!state && !verdict.breached) return true;
    const next = step(state ?? { firing: false, streak: 0 }, verdict.breached, settings);
    const quiet = state?.muted || (state?.snoozedUntil ?? 0) > clock.now();
    const current =
      next.transition === 'fired'
        ? quiet
          ? null
          : fired
        : // Resolved: the id is kept (not firing), so a resume can finish resolving it.
          (state?.alertId ?? null);
    const applied = await store.watchRules.applyRuleState(
      watch.id,
      verdict.rule,
      { from: state?.lastInterval ?? 0, to: dueAt },
      { firing: next.firing, streak: next.streak, alertId: current },
      state?.muted ?? false,
    );
    if (!applied) return false;
    if (next.transition === 'fired' && current)
      await this.#fire(zone, watch, verdict, sample, current);
    if (next.transition === 'resolved' && state?.alertId)
      await this.#resolve(zone, verdict, sample, state.alertId);
    return true;
  }

  /** Marks a firing alert resolved and queues its post (once, by its id). */
  async #resolve(zone: WatchedZone, verdict: Verdict, sample: Sample, id: string): Promise<void> {
    const { store } = this.#o;
    const alert = await store.watchAlerts.alert(id);
    // Resolved by an earlier interval (a resume of a later, quiet one): nothing to do.
    if (!alert || (alert.status !== 'firing' && alert.resolvedAt !== sample.until)) return;
    if (alert.status === 'firing')
      await store.watchAlerts.resolveAlert(id, sample.until, {
        ...alert.detail,
        last: detailOf(verdict),
      });
    await this.#enqueuePost(zone.workspaceId, { kind: 'resolved', alertId: id });
  }

  /** Stores the alert and queues its post (both once, by its id). */
  async #fire(
    zone: WatchedZone,
    watch: Watch,
    verdict: Verdict,
    sample: Sample,
    id: string,
  ): Promise<void> {
    const { store, settings } = this.#o;
    const span = Math.max(MINUTE, settings.intervalMs);
    await store.watchAlerts.createAlert({
      id,
      workspaceId: zone.workspaceId,
      watchId: watch.id,
      zoneId: zone.zoneId,
      zoneName: zone.zoneName,
      accountId: zone.accountId,
      channelId: watch.channelId,
      rule: verdict.rule,
      status: 'firing',
      startedAt: sample.until - settings.holdIntervals * span,
      resolvedAt: null,
      detail: detailOf(verdict),
    });
    await this.#enqueuePost(zone.workspaceId, { kind: 'fired', alertId: id });
  }

  async #enqueuePost(workspaceId: string, payload: PostPayload): Promise<void> {
    const key =
      payload.kind === 'notice'
        ? `watch-notice:${payload.watchId}:${payload.status}`
        : `watch-${payload.kind}:${payload.alertId}`;
    await this.#o.runner.enqueue({ workspaceId, kind: WATCH_POST_JOB, key, payload });
  }
}

function detailOf(verdict: Verdict): Record<string, unknown> {
  return {
    value: verdict.value,
    bound: verdict.bound,
    ...(verdict.band ? { median: verdict.band.median } : {}),
  };
}
