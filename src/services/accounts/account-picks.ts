// A command whose zone name is in several CDN accounts waits for its requester to pick the account,
// then continues as if typed with it, once. The waiting command is a job of the store
// (like a held purge, src/services/purge/purge-holds.ts), so any replica continues it after a restart;
// what the pick starts is stored under the pick's own key, so a double click or a Slack retry
// continues it once. Only the requester picks, and a pick lapses after PURGE_HOLD_MS. A purge of
// everything picked only goes on to its confirmation form (nothing is sent before a second
// person approves), so it may be picked again until it lapses: a form closed is asked again.
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { JobKind, JobRunner } from '../../jobs/runner.js';
import type { Store } from '../../store/index.js';
import type { Caller } from '../access/access.js';
import { type HeldPurge, PURGE_HOLD_MS, type PurgeHoldService } from '../purge/purge-holds.js';
import { PURGE_JOB } from '../purge/purge-job.js';
import type { CheckedPlan, PurgeService } from '../purge/purge-plan.js';
import type { PurgeArgs, PurgePlan } from '../purge/purge-targets.js';
import type { ReplyTo } from '../reply.js';
import type { Zone } from '../zones/zones.js';

export const ACCOUNT_PICK_JOB = 'account_pick';

/** A command waiting for its account: a purge of URLs, paths and tags, or of everything on a zone. */
export type PendingCommand =
  | { kind: 'purge'; args: Extract<PurgeArgs, { kind: 'items' }> }
  | { kind: 'everything'; zone: string };

interface PickPayload {
  actorId: string;
  command: PendingCommand;
  /** The zone name found in several accounts, and those accounts' names. */
  zoneName: string;
  accounts: string[];
}

/** A pick waiting for its requester, as the question shows it. */
export interface AccountPick {
  id: string;
  actorId: string;
  zoneName: string;
  accounts: string[];
  expiresAt: number;
}

/** What a purge asked becomes: its plan, or a question of which account. */
export type PurgePlanOrPick =
  | { kind: 'plan'; plan: CheckedPlan }
  | { kind: 'pick'; pick: AccountPick };

/** The zone a purge of everything is about, or a question of which account's. */
export type ZoneOrPick = { kind: 'zone'; zone: Zone } | { kind: 'pick'; pick: AccountPick };

/** What the pick continued into. */
export type PickOutcome = { pick: AccountPick; account: string } & (
  | { kind: 'started' }
  /** A purge of everything: its zone in that account, for the confirmation form (nothing sent). */
  | { kind: 'everything'; zone: Zone }
  /** The plan in that account refused something: nothing was sent (the person asks again). */
  | { kind: 'refused'; plan: PurgePlan }
  /** The zone named there does not serve some URLs: the rest waits as a held purge. */
  | { kind: 'held'; held: HeldPurge }
);

/** The key what a pick `id` continues into is stored under. */
const decisionKey = (id: string) => `account-pick-decision:${id}`;

export class AccountPickService {
  constructor(
    private readonly deps: {
      store: Store;
      runner: JobRunner;
      purges: PurgeService;
      holds: PurgeHoldService;
      clock: Clock;
    },
  ) {}

  /**
   * Plans a purge as PurgeService.plan does; when the zone is in several accounts and none was
   * named, the purge is stored to wait for the requester's pick.
   */
  async planPurge(
    caller: Caller,
    channelId: string | undefined,
    args: Extract<PurgeArgs, { kind: 'items' }>,
    account?: string,
  ): Promise<PurgePlanOrPick> {
    const planned = await this.deps.purges.planOrAmbiguous(caller, channelId, args, account);
    if (planned.kind === 'plan') return planned;
    return { kind: 'pick', pick: await this.#ask(caller, { kind: 'purge', args }, planned) };
  }

  /**
   * The zone a purge of everything is about, as PurgeService.zoneFor finds it; when the name is
   * in several accounts and none was named, the requester is asked which (then `choose`).
   */
  async everythingZone(
    caller: Caller,
    channelId: string | undefined,
    zoneName: string | undefined,
    account?: string,
  ): Promise<ZoneOrPick> {
    const found = await this.deps.purges.zoneOrAmbiguous(caller, channelId, zoneName, account);
    if (found.kind === 'zone') return found;
    // Only a zone named can be in several accounts (the channel's default is one zone).
    const command: PendingCommand = { kind: 'everything', zone: zoneName ?? found.zoneName };
    return { kind: 'pick', pick: await this.#ask(caller, command, found) };
  }

  /** Stores `command` to wait for its requester's pick among the accounts holding the zone. */
  async #ask(
    caller: Caller,
    command: PendingCommand,
    problem: { zoneName: string; accounts: string[] },
  ): Promise<AccountPick> {
    const payload: PickPayload = {
      actorId: caller.userId,
      command,
      zoneName: problem.zoneName,
      accounts: problem.accounts,
    };
    const { job } = await this.deps.runner.enqueue({
      workspaceId: caller.workspaceId,
      kind: ACCOUNT_PICK_JOB,
      payload,
      // It runs when it lapses, and then only ends.
      runAt: this.deps.clock.now() + PURGE_HOLD_MS,
    });
    return pickOf(job.id, payload, job.runAt);
  }

  /** The pick `id`, if this caller may still make it; otherwise AppError saying why. */
  async pending(caller: Caller, id: string): Promise<AccountPick & { command: PendingCommand }> {
    const { store, clock } = this.deps;
    const job = await store.jobs.get(id);
    const payload = job?.payload as PickPayload | undefined;
    if (!job || !payload || job.kind !== ACCOUNT_PICK_JOB || job.workspaceId !== caller.workspaceId)
      throw new AppError({ code: 'purge_hold_unknown' });
    if (caller.userId !== payload.actorId) throw new AppError({ code: 'not_purge_requester' });
    if (await store.jobs.byKey(decisionKey(id)))
      throw new AppError({ code: 'purge_hold_closed', status: 'confirmed' });
    if (job.state !== 'queued' || job.runAt <= clock.now())
      throw new AppError({ code: 'purge_hold_closed', status: 'expired' });
    return { ...pickOf(job.id, payload, job.runAt), command: payload.command };
  }

  /**
   * Continues the waiting command in `account` (one of those offered), once: planned again in
   * that account (access, the channel's account and purge channels checked again), then started
   * or held under the pick's key. `replyTo` is where its progress goes.
   */
  async choose(
    caller: Caller,
    channelId: string | undefined,
    id: string,
    account: string,
    replyTo: ReplyTo,
  ): Promise<PickOutcome> {
    const pending = await this.pending(caller, id);
    const chosen = pending.accounts.find((name) => name.toLowerCase() === account.toLowerCase());
    if (!chosen) throw new AppError({ code: 'purge_hold_unknown' });
    const pick = pickOf(pending.id, pending, pending.expiresAt);
    const { command } = pending;
    if (command.kind === 'everything') {
      // Found again in that account (access and the channel's account checked again); what
      // follows is the usual confirmation and approval, in that account.
      const zone = await this.deps.purges.zoneFor(caller, channelId, command.zone, chosen);
      return { kind: 'everything', pick, account: chosen, zone };
    }
    const { args } = command;
    const plan = await this.deps.purges.plan(caller, channelId, args, chosen);
    if (plan.rejected.length > 0 || plan.groups.length === 0)
      return { kind: 'refused', pick, account: chosen, plan };
    const key = decisionKey(id);
    if (plan.elsewhere.length > 0) {
      const held = await this.deps.holds.hold(plan, { key });
      if (!held.created) throw new AppError({ code: 'purge_hold_closed', status: 'confirmed' });
      return { kind: 'held', pick, account: chosen, held };
    }
    const started = await this.deps.purges.start(plan, replyTo, {
      key,
      ...(args.verify ? { verify: true } : {}),
    });
    if (!started.created || started.kind !== PURGE_JOB)
      throw new AppError({ code: 'purge_hold_closed', status: 'confirmed' });
    return { kind: 'started', pick, account: chosen };
  }

  /** A pick runs when it lapses and only ends: nothing was started. */
  readonly job: JobKind<PickPayload> = {
    concurrency: 4,
    run: async () => 'done',
  };
}

function pickOf(
  id: string,
  payload: Pick<PickPayload, 'actorId' | 'zoneName' | 'accounts'>,
  expiresAt: number,
): AccountPick {
  return {
    id,
    actorId: payload.actorId,
    zoneName: payload.zoneName,
    accounts: payload.accounts,
    expiresAt,
  };
}
