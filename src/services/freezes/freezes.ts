// Change freezes: admins declare them; settings changes and purge-everything (URL and tag purges
// too, when a freeze says so) are refused during one unless a second person approved an exception,
// used once. Announcements of each window's start and end are keyed jobs, posted once.
// (Over 600 lines: declaring, the gate, exceptions and announcements share the freeze rows and the
// window math; the exception flow is the part to move out next, beside gate.ts.)
import type { Clock } from '../../clock.js';
import { type Action, AppError } from '../../errors.js';
import type { JobKind, JobRunner } from '../../jobs/runner.js';
import { retryDelay } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type {
  ExceptionHolder,
  Freeze,
  FreezeAction,
  FreezeException,
  FreezeRule,
} from '../../store/freezes.js';
import { MAX_FREEZES } from '../../store/freezes.js';
import type { Store } from '../../store/index.js';
import type { AccessService, Caller } from '../access/access.js';
import type { AccountScopes } from '../accounts/account-scope.js';
import type { FreezeCheck, FreezeGate } from './gate.js';
import {
  activeWindow,
  currentOrNext,
  type FreezeWindow,
  isTimeZone,
  lastEnded,
  localInstant,
} from './windows.js';

export type { Freeze, FreezeAction, FreezeCheck, FreezeException };

/** What is frozen, as the admin names it. */
export type FreezeTarget =
  | { kind: 'workspace' }
  | { kind: 'account'; name: string }
  | { kind: 'zone'; name: string; account?: string };

/** A freeze as lists show it: its current or next window, if it has one. */
export interface ListedFreeze {
  freeze: Freeze;
  window?: FreezeWindow;
  active: boolean;
}

export type FreezeEvent = 'declared' | 'started' | 'ended' | 'removed';

/** How freezes and exceptions are said in Slack; implemented over the Web API. */
export interface FreezeNotifier {
  /** Says the event in the freeze's channel. */
  announce(freeze: Freeze, event: FreezeEvent, window?: FreezeWindow): Promise<void>;
  /** Posts an exception request (with its buttons) in the freeze's channel; returns its ts. */
  exceptionPosted(exception: FreezeException, freeze: Freeze | undefined): Promise<string>;
  /** Shows the exception as it now is on its message. */
  exceptionChanged(exception: FreezeException): Promise<void>;
  /** Whether a failure may pass by itself (Slack slow, down or rate limiting). */
  transient(error: unknown): boolean;
}

export const FREEZE_ANNOUNCE_JOB = 'freeze_announce';
export const FREEZE_EXCEPTION_CLOSE_JOB = 'freeze_exception_close';

export interface FreezeExceptionClosePayload {
  exceptionId: string;
  workspaceId: string;
}

export interface FreezeAnnouncePayload {
  freezeId: string;
  workspaceId: string;
  event: 'started' | 'ended';
  window: FreezeWindow;
}

export interface FreezeServiceOptions {
  store: Store;
  access: AccessService;
  scopes: AccountScopes;
  runner: JobRunner;
  notifier: FreezeNotifier;
  clock: Clock;
  logger: Logger;
}

/** The permission each frozen action is refused as (exceptions are asked by those who may act). */
const ACTION_PERMISSION: Record<FreezeAction, Action> = {
  everything: 'purge',
  purge: 'purge',
  ratelimit: 'ratelimit',
  create: 'create_zone',
};

const ROUND_PAGE = 200;

export class FreezeService implements FreezeGate {
  constructor(private readonly options: FreezeServiceOptions) {}

  /** Admins only. `timeZone` absent: the admin's own Slack time zone (users.info `tz`, else UTC). */
  async add(
    caller: Caller,
    input: {
      target: FreezeTarget;
      rule: FreezeRule;
      timeZone?: string;
      reason: string;
      channelId: string;
      purges: boolean;
    },
  ): Promise<{ freeze: Freeze; window?: FreezeWindow; timeZoneFrom: 'typed' | 'slack' }> {
    await this.options.access.requireAdmin(caller, 'manage_freezes');
    const timeZone = input.timeZone ?? (await caller.directory.user(caller.userId)).timeZone;
    if (!isTimeZone(timeZone))
      throw new AppError({ code: 'freeze_invalid', why: 'time_zone', word: timeZone });
    const now = this.options.clock.now();
    if (input.rule.kind === 'once') {
      const start = localInstant(input.rule.start, timeZone);
      const end = localInstant(input.rule.end, timeZone);
      if (end <= start) throw new AppError({ code: 'freeze_invalid', why: 'order' });
      if (end <= now) throw new AppError({ code: 'freeze_invalid', why: 'past' });
    }
    const { store } = this.options;
    if ((await store.freezes.list(caller.workspaceId)).length >= MAX_FREEZES)
      throw new AppError({ code: 'freeze_invalid', why: 'too_many' });
    const target = await this.#target(caller, input.target, input.channelId);
    const freeze = await store.freezes.create({
      workspaceId: caller.workspaceId,
      ...target,
      rule: input.rule,
      timeZone,
      reason: input.reason,
      channelId: input.channelId,
      purges: input.purges,
      createdBy: caller.userId,
    });
    await this.#audit(caller.workspaceId, caller.userId, 'freeze.declared', freeze, {
      reason: input.reason,
      rule: input.rule,
      timeZone,
      purges: input.purges,
    });
    const window = currentOrNext(freeze.rule, freeze.timeZone, now);
    // Declared in force: the declaration says so, and the round does not say it started again.
    if (window && window.start <= now)
      await store.freezes.markAnnounced(freeze.id, 'start', 0, window.start);
    await this.#safely(() => this.options.notifier.announce(freeze, 'declared', window));
    return {
      freeze,
      ...(window ? { window } : {}),
      timeZoneFrom: input.timeZone === undefined ? 'slack' : 'typed',
    };
  }

  /** For the form: admins only; the time zone it is filled with (the admin's in Slack, else UTC). */
  async formDefaults(caller: Caller): Promise<{ timeZone: string }> {
    await this.options.access.requireAdmin(caller, 'manage_freezes');
    return { timeZone: (await caller.directory.user(caller.userId)).timeZone };
  }

  /** The workspace's freezes, for its full members (guests and outsiders are refused). */
  async list(caller: Caller): Promise<ListedFreeze[]> {
    await this.options.access.requireFullMember(caller, 'read_config');
    return this.listed(caller.workspaceId);
  }

  /** The freezes as the App Home and the list show them (no permission check: the caller's). */
  async listed(workspaceId: string): Promise<ListedFreeze[]> {
    const now = this.options.clock.now();
    return (await this.options.store.freezes.list(workspaceId)).map((freeze) => {
      const window = currentOrNext(freeze.rule, freeze.timeZone, now);
      return {
        freeze,
        ...(window ? { window } : {}),
        active: window !== undefined && window.start <= now,
      };
    });
  }

  /** Admins only; by id or the start of it (as lists show it). */
  async remove(caller: Caller, idOrPrefix: string): Promise<Freeze> {
    await this.options.access.requireAdmin(caller, 'manage_freezes');
    const word = idOrPrefix.trim().toLowerCase();
    const matches = (await this.options.store.freezes.list(caller.workspaceId)).filter(
      (f) => word.length >= 4 && f.id.toLowerCase().startsWith(word),
    );
    const [freeze, ...others] = matches;
    if (!freeze || others.length > 0)
      throw new AppError({ code: 'freeze_unknown', prefix: idOrPrefix });
    if (!(await this.options.store.freezes.remove(caller.workspaceId, freeze.id, caller.userId)))
      throw new AppError({ code: 'freeze_unknown', prefix: idOrPrefix });
    await this.#audit(caller.workspaceId, caller.userId, 'freeze.removed', freeze, {});
    await this.#safely(() => this.options.notifier.announce(freeze, 'removed'));
    // Its open exceptions are closed now; any left (more than a page) by the next round.
    for (const exception of await this.options.store.freezes.toClose(ROUND_PAGE, freeze.id))
      await this.#queueClose(exception);
    return freeze;
  }

  /**
   * The freezes in force now over the check's zone or account that refuse its action, the one that
   * ends last first: deny beats allow, so any one of them refuses.
   */
  async blocking(check: FreezeCheck): Promise<Array<{ freeze: Freeze; window: FreezeWindow }>> {
    const now = this.options.clock.now();
    const freezes = await this.options.store.freezes.list(check.workspaceId);
    if (freezes.length === 0) return [];
    const accountId = await this.#accountOf(check);
    const found: Array<{ freeze: Freeze; window: FreezeWindow }> = [];
    for (const freeze of freezes) {
      if (check.action === 'purge' && !freeze.purges) continue;
      const covers =
        freeze.scope === 'workspace' ||
        (freeze.scope === 'account' && freeze.accountId === accountId) ||
        (freeze.scope === 'zone' &&
          check.zone !== undefined &&
          freeze.zoneId === check.zone.id &&
          freeze.accountId === accountId);
      if (!covers) continue;
      const window = activeWindow(freeze.rule, freeze.timeZone, now);
      if (window) found.push({ freeze, window });
    }
    return found.sort((a, b) => b.window.end - a.window.end);
  }

  /**
   * Refuses the action during a freeze (AppError frozen, naming the freeze and when it ends),
   * unless the actor holds an approved exception for it: then that exception is used up.
   */
  async require(check: FreezeCheck): Promise<void> {
    const [first] = await this.blocking(check);
    if (!first) return;
    const used = await this.options.store.freezes.useException(await this.#holder(check));
    if (used) {
      await this.#auditException(used, check.actorId, 'freeze.exception.used');
      await this.#safely(() => this.options.notifier.exceptionChanged(used));
      return;
    }
    throw new AppError(await this.#frozen(first, check));
  }

  /** As `require`, but an approved exception is only looked at: it stays for the action itself. */
  async precheck(check: FreezeCheck): Promise<void> {
    const [first] = await this.blocking(check);
    if (!first) return;
    if (await this.options.store.freezes.holdsException(await this.#holder(check))) return;
    throw new AppError(await this.#frozen(first, check));
  }

  /**
   * The refusal, naming what an exception is asked on as `/cdn freeze except` reads it: the zone
   * changed, or (a zone creation) `account:<name>`, whatever the freeze covers (a workspace too).
   */
  async #frozen(blocking: { freeze: Freeze; window: FreezeWindow }, check: FreezeCheck) {
    const problem = frozenProblem(blocking.freeze, blocking.window, check.action);
    if (check.zone) return { ...problem, exceptTarget: check.zone.name };
    const accountId = await this.#accountOf(check);
    const accounts = await this.options.store.accounts.list(check.workspaceId);
    const name = accounts.find((account) => account.id === accountId)?.name;
    return name ? { ...problem, exceptTarget: `account:${name}` } : problem;
  }

  async #holder(check: FreezeCheck): Promise<ExceptionHolder> {
    return {
      workspaceId: check.workspaceId,
      requesterId: check.actorId,
      action: check.action,
      zoneId: check.zone?.id ?? null,
      accountId: await this.#accountOf(check),
    };
  }

  /**
   * Asks for an exception to the freeze in force over the zone (or, for `create`, the account):
   * posted with its reason in the freeze's channel for a second person. Asked by one who may do
   * the action.
   */
  async requestException(
    caller: Caller,
    input: { target: FreezeTarget; action: FreezeAction; reason: string; channelId: string },
  ): Promise<FreezeException> {
    const resolved = await this.#target(caller, input.target, input.channelId);
    if (
      resolved.scope === 'workspace' ||
      (resolved.scope === 'account') !== (input.action === 'create')
    )
      throw new AppError({ code: 'freeze_invalid', why: 'exception_target' });
    await this.options.access.requireOperator(
      caller,
      ACTION_PERMISSION[input.action],
      resolved.accountId ?? undefined,
    );
    const check: FreezeCheck = {
      workspaceId: caller.workspaceId,
      actorId: caller.userId,
      action: input.action,
      ...(resolved.zoneId && resolved.accountId
        ? {
            zone: {
              id: resolved.zoneId,
              name: resolved.targetName,
              accountId: resolved.accountId,
            },
          }
        : { accountId: resolved.accountId ?? undefined }),
    };
    const [first] = await this.blocking(check);
    if (!first) throw new AppError({ code: 'freeze_none', target: resolved.targetName });
    const exception = await this.options.store.freezes.createException({
      workspaceId: caller.workspaceId,
      freezeId: first.freeze.id,
      action: input.action,
      zoneId: resolved.zoneId,
      accountId: resolved.accountId,
      targetName: resolved.targetName,
      requesterId: caller.userId,
      reason: input.reason,
      channelId: first.freeze.channelId,
      expiresAt: first.window.end,
    });
    const ts = await this.options.notifier.exceptionPosted(exception, first.freeze);
    await this.options.store.freezes.setExceptionMessage(exception.id, ts);
    await this.#auditException(exception, caller.userId, 'freeze.exception.requested', {
      reason: input.reason,
    });
    return { ...exception, messageTs: ts };
  }

  /**
   * Approves or denies an exception: a second person (never its requester, never a guest or an
   * outsider; the approvers group when one is set), as for a purge of everything. One decision wins.
   */
  async decideException(
    caller: Caller,
    id: string,
    decision: 'approved' | 'denied',
  ): Promise<FreezeException> {
    const current = await this.options.store.freezes.getException(caller.workspaceId, id);
    if (!current) throw new AppError({ code: 'approval_unknown' });
    await this.options.access.requireApprover(
      caller,
      current.requesterId,
      current.accountId ?? undefined,
    );
    if (current.status !== 'pending')
      throw new AppError({ code: 'freeze_exception_closed', status: current.status });
    // Clicked after its window ended or its freeze was removed: said, and its message closed.
    const ended = current.expiresAt <= this.options.clock.now();
    if (ended || !(await this.options.store.freezes.get(caller.workspaceId, current.freezeId))) {
      await this.#queueClose(current);
      throw new AppError({
        code: 'freeze_exception_closed',
        status: ended ? 'expired' : 'cancelled',
      });
    }
    const decided = await this.options.store.freezes.decideException(id, decision, caller.userId);
    if (!decided) throw new AppError({ code: 'approval_decided_meanwhile' });
    await this.#auditException(decided, caller.userId, `freeze.exception.${decision}`);
    await this.#safely(() => this.options.notifier.exceptionChanged(decided));
    return decided;
  }

  /**
   * One round of announcements: for each freeze whose window started (or ended) since it was last
   * said, a keyed job says it once in the freeze's channel; the mark moves with a compare-and-set.
   */
  async announceDue(): Promise<number> {
    const now = this.options.clock.now();
    let after = '';
    let queued = 0;
    for (;;) {
      const page = await this.options.store.freezes.page(after, ROUND_PAGE);
      for (const freeze of page) {
        const active = activeWindow(freeze.rule, freeze.timeZone, now);
        if (active && active.start > freeze.announcedStart) {
          await this.#announce(freeze, 'started', active);
          if (
            await this.options.store.freezes.markAnnounced(
              freeze.id,
              'start',
              freeze.announcedStart,
              active.start,
            )
          )
            queued += 1;
        }
        const ended = lastEnded(freeze.rule, freeze.timeZone, now);
        if (ended && ended.end > freeze.announcedEnd && ended.end > freeze.createdAt) {
          await this.#announce(freeze, 'ended', ended);
          if (
            await this.options.store.freezes.markAnnounced(
              freeze.id,
              'end',
              freeze.announcedEnd,
              ended.end,
            )
          )
            queued += 1;
        }
      }
      const last = page.at(-1);
      if (!last || page.length < ROUND_PAGE) break;
      after = last.id;
    }
    // Exceptions that can no longer be used (window ended, freeze removed) are closed.
    for (const exception of await this.options.store.freezes.toClose(ROUND_PAGE))
      await this.#queueClose(exception);
    return queued;
  }

  /** Stored before the exception is closed: the job closes it, so a crash in between loses none. */
  async #queueClose(exception: FreezeException): Promise<void> {
    await this.options.runner.enqueue({
      workspaceId: exception.workspaceId,
      kind: FREEZE_EXCEPTION_CLOSE_JOB,
      key: `freeze-exception-close:${exception.id}`,
      payload: {
        exceptionId: exception.id,
        workspaceId: exception.workspaceId,
      } satisfies FreezeExceptionClosePayload,
    });
  }

  /**
   * Closes an exception that can no longer be used (`expired` when its window ended, `cancelled`
   * when its freeze was removed; a use or decision that won the race stays), audits it once and
   * shows it on its message without buttons; Slack failing for now only delays the message.
   */
  readonly closeJob: JobKind<FreezeExceptionClosePayload> = {
    concurrency: 2,
    run: async (context) => {
      const { store, notifier, logger, clock } = this.options;
      const { exceptionId, workspaceId } = context.job.payload;
      let exception = await store.freezes.getException(workspaceId, exceptionId);
      if (exception && (exception.status === 'pending' || exception.status === 'approved')) {
        const ended = exception.expiresAt <= clock.now();
        const removed = !(await store.freezes.get(workspaceId, exception.freezeId));
        if (!ended && !removed) return 'done';
        exception =
          (await store.freezes.closeException(exceptionId, ended ? 'expired' : 'cancelled')) ??
          (await store.freezes.getException(workspaceId, exceptionId));
      }
      if (!exception || (exception.status !== 'expired' && exception.status !== 'cancelled'))
        return 'done';
      await this.#auditException(
        exception,
        'system',
        `freeze.exception.${exception.status}`,
        {},
        `freeze.exception.${exception.status}:${exception.id}`,
      );
      try {
        await notifier.exceptionChanged(exception);
        return 'done';
      } catch (error) {
        logger.warn({ err: error, exception: exceptionId }, 'freeze exception message not updated');
        if (!notifier.transient(error)) return 'done';
        return {
          retryInMs: retryDelay(context.job.attempts, { baseMs: 2_000, maxMs: 60_000 }),
          error: 'freeze exception message not updated',
        };
      }
    },
  };

  #announce(freeze: Freeze, event: 'started' | 'ended', window: FreezeWindow) {
    return this.options.runner.enqueue({
      workspaceId: freeze.workspaceId,
      kind: FREEZE_ANNOUNCE_JOB,
      key: `freeze-${event}:${freeze.id}:${event === 'started' ? window.start : window.end}`,
      payload: {
        freezeId: freeze.id,
        workspaceId: freeze.workspaceId,
        event,
        window,
      } satisfies FreezeAnnouncePayload,
    });
  }

  /** Posts one announcement; Slack failing for now only delays it. A removed freeze says nothing. */
  readonly announceJob: JobKind<FreezeAnnouncePayload> = {
    concurrency: 2,
    run: async (context) => {
      const { freezeId, workspaceId, event, window } = context.job.payload;
      const freeze = await this.options.store.freezes.get(workspaceId, freezeId);
      if (!freeze) return 'done';
      try {
        await this.options.notifier.announce(freeze, event, window);
        await this.#audit(
          workspaceId,
          'system',
          `freeze.${event}`,
          freeze,
          { window },
          `freeze.${event}:${freeze.id}:${window.start}`,
        );
        return 'done';
      } catch (error) {
        this.options.logger.warn(
          { err: error, freeze: freezeId },
          'freeze announcement not posted',
        );
        if (!this.options.notifier.transient(error)) return 'done';
        return {
          retryInMs: retryDelay(context.job.attempts, { baseMs: 2_000, maxMs: 60_000 }),
          error: 'freeze announcement not posted',
        };
      }
    },
  };

  /** The account a check is about: its zone's, or a creation's. */
  async #accountOf(check: FreezeCheck): Promise<string | null> {
    return check.zone?.accountId ?? check.accountId ?? null;
  }

  async #target(
    caller: Caller,
    target: FreezeTarget,
    channelId: string,
  ): Promise<Pick<Freeze, 'scope' | 'accountId' | 'zoneId' | 'targetName'>> {
    const { workspaceId } = caller;
    if (target.kind === 'workspace')
      return { scope: 'workspace', accountId: null, zoneId: null, targetName: 'workspace' };
    if (target.kind === 'account') {
      const accounts = await this.options.store.accounts.list(workspaceId);
      const account = accounts.find((a) => a.name.toLowerCase() === target.name.toLowerCase());
      if (!account)
        throw new AppError({
          code: 'account_unknown',
          name: target.name,
          accounts: accounts.map((a) => a.name),
        });
      return { scope: 'account', accountId: account.id, zoneId: null, targetName: account.name };
    }
    const zone = await this.options.scopes.zone(
      workspaceId,
      channelId,
      target.account,
      target.name,
    );
    return {
      scope: 'zone',
      accountId: zone.accountId,
      zoneId: zone.id,
      targetName: zone.name,
    };
  }

  async #audit(
    workspaceId: string,
    actorId: string,
    action: string,
    freeze: Freeze,
    detail: Record<string, unknown>,
    key?: string,
  ) {
    await this.options.store.audit.record({
      ...(key ? { key } : {}),
      workspaceId,
      actorId,
      action,
      ...(freeze.zoneId && freeze.accountId
        ? { zoneId: freeze.zoneId, zoneName: freeze.targetName, accountId: freeze.accountId }
        : freeze.accountId
          ? { accountId: freeze.accountId }
          : {}),
      outcome: 'ok',
      detail: { freeze: freeze.id, scope: freeze.scope, target: freeze.targetName, ...detail },
    });
  }

  async #auditException(
    exception: FreezeException,
    actorId: string,
    action: string,
    detail: Record<string, unknown> = {},
    key?: string,
  ) {
    await this.options.store.audit.record({
      ...(key ? { key } : {}),
      workspaceId: exception.workspaceId,
      actorId,
      action,
      ...(exception.zoneId && exception.accountId
        ? {
            zoneId: exception.zoneId,
            zoneName: exception.targetName,
            accountId: exception.accountId,
          }
        : exception.accountId
          ? { accountId: exception.accountId }
          : {}),
      outcome: 'ok',
      detail: {
        exception: exception.id,
        freeze: exception.freezeId,
        for: exception.action,
        requestedBy: exception.requesterId,
        ...detail,
      },
    });
  }

  /** A message that cannot be posted must not undo a change that already happened. */
  async #safely(post: () => Promise<void>): Promise<void> {
    await post().catch((error: unknown) =>
      this.options.logger.warn({ err: error }, 'freeze message not posted'),
    );
  }
}

/** The refusal of `action` during `freeze`'s window. */
export function frozenProblem(freeze: Freeze, window: FreezeWindow, action: FreezeAction) {
  return {
    code: 'frozen' as const,
    action,
    freezeId: freeze.id,
    target: freeze.targetName,
    reason: freeze.reason,
    endsAt: window.end,
    timeZone: freeze.timeZone,
  };
}
