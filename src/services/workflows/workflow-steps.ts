// Workflow Builder steps: a purge, a purge of everything and a zone's traffic, run for the
// person who ran the workflow with the checks a command has. A long step ends durably: a job
// waits for the purge or the approval to reach its final state (looking again every 2 s for a
// purge; for an approval, woken by the approval's end and looking again every 30 s in case that
// wake was lost), then says so to Slack once, under a key of its own (any replica, after a
// restart too).
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { JobContext, JobKind, JobOutcome, JobRunner } from '../../jobs/runner.js';
import type { Logger } from '../../logger.js';
import type { Approval } from '../../store/approvals.js';
import type { Store } from '../../store/index.js';
import type { Caller } from '../access/access.js';
import type { AnalyticsService, RangeKey } from '../analytics/analytics.js';
import type { ApprovalNotifier, ApprovalService } from '../approvals/approvals.js';
import type { PurgeService } from '../purge/purge-plan.js';
import { splitItems } from '../purge/purge-targets.js';
import type { ReplyTo } from '../reply.js';
import { WARM_JOB_KEY } from '../verify/verify-job.js';

export const WORKFLOW_STEP_JOB = 'workflow_step';
/**
 * Saying a step's end (functions.completeSuccess / completeError): run at once under its key by
 * whoever sees the end first (JobRunner.runKeyed), so it is said once; no loop claims it.
 */
export const WORKFLOW_STEP_END_JOB = 'workflow_step_end';

/** What a step hands the next steps of its workflow (the manifest's output parameters). */
export type StepOutputs = Record<string, string | number | boolean>;

/** How a step's end reaches Slack (functions.completeSuccess / completeError); in src/slack. */
export interface StepCompletions {
  /** `gone`: Slack no longer runs this execution (ended already, or unknown): nothing to say. */
  succeed(workspaceId: string, executionId: string, outputs: StepOutputs): Promise<'ok' | 'gone'>;
  fail(workspaceId: string, executionId: string, error: string): Promise<'ok' | 'gone'>;
}

export interface WorkflowStepPayload {
  executionId: string;
  /** Whom the step ran for (the workflow's runner). */
  userId: string;
  /** When the step started: one still waiting a day later is given up. */
  startedAt: number;
  wait: { kind: 'purge'; jobId: string; warm?: boolean } | { kind: 'approval'; approvalId: string };
}

export interface WorkflowStepSettings {
  /** How often a step waiting for a purge looks again. */
  pollMs: number;
  /**
   * How often a step waiting for an approval looks again: its end wakes it at once
   * (`approvalSettled`); this only covers a process that died before it could.
   */
  recheckMs: number;
  /** A step still waiting after this long ends with an error. */
  maxWaitMs: number;
}

const DEFAULT_SETTINGS: WorkflowStepSettings = {
  pollMs: 2_000,
  recheckMs: 30_000,
  maxWaitMs: 24 * 3_600_000,
};

const jobKey = (executionId: string) => `workflow-step:${executionId}`;
/** A step waiting for an approval is keyed by it: the approval's end finds its step so. */
const approvalWaitKey = (approvalId: string) => `workflow-step:approval:${approvalId}`;
/** The one saying of a step's end. */
const endKey = (executionId: string) => `workflow-step:${executionId}:end`;

type StepEnd = { outputs: StepOutputs } | { error: string };

export class WorkflowStepService {
  readonly #settings: WorkflowStepSettings;

  constructor(
    private readonly deps: {
      store: Store;
      runner: JobRunner;
      purges: PurgeService;
      approvals: ApprovalService;
      analytics: AnalyticsService;
      completions: StepCompletions;
      clock: Clock;
      logger: Logger;
      settings?: Partial<WorkflowStepSettings>;
    },
  ) {
    this.#settings = { ...DEFAULT_SETTINGS, ...deps.settings };
  }

  /**
   * *Purge URLs or tags*: planned and started as `/cdn purge` in `channelId` would be (operator,
   * guests, purge channels, the change limit); what the zone does not serve is refused, not held.
   * The step ends when the purge (and its warming, if asked) has.
   */
  async purge(
    caller: Caller,
    input: {
      executionId: string;
      channelId: string;
      zone?: string;
      /** URLs, paths and `tag:` tags, separated by spaces, commas or lines. */
      items: string;
      warm?: boolean;
    },
  ): Promise<void> {
    const words = input.items.split(/[\s,]+/).filter((word) => word !== '');
    const items = splitItems(words);
    const plan = await this.deps.purges.plan(caller, input.channelId, {
      kind: 'items',
      ...(input.zone ? { zone: input.zone } : {}),
      ...items,
    });
    const refused = [
      ...plan.rejected.map((r) => `${r.item} (${r.reason})`),
      ...plan.elsewhere.map((e) => `${e.item} (not served by the zone named)`),
      ...items.unknown.map((word) => `${word} (not a URL, path or tag:)`),
    ];
    if (refused.length > 0 || plan.groups.length === 0)
      throw new AppError({ code: 'workflow_step_refused', items: refused.slice(0, 10) });
    const { jobId } = await this.deps.purges.start(
      plan,
      this.#replyTo(caller.userId, input.channelId),
      {
        key: `${jobKey(input.executionId)}:purge`,
        ...(input.warm ? { warm: true } : {}),
      },
    );
    await this.#wait(caller, input.executionId, {
      kind: 'purge',
      jobId,
      ...(input.warm ? { warm: true } : {}),
    });
  }

  /**
   * *Request a full purge*: the two-person request, posted in `channelId`, as the purge form
   * would; the step ends once it is decided and done (approved and purged), or denied, cancelled
   * or expired.
   */
  async requestFullPurge(
    caller: Caller,
    input: { executionId: string; channelId: string; zone: string; reason: string },
  ): Promise<void> {
    const zone = await this.deps.purges.zoneFor(caller, input.channelId, input.zone);
    await this.deps.approvals.prepareRequest(caller, input.channelId, zone.accountId);
    const approval = await this.deps.approvals.request(caller.workspaceId, {
      zone,
      requesterId: caller.userId,
      reason: input.reason,
      channelId: input.channelId,
    });
    await this.#wait(caller, input.executionId, { kind: 'approval', approvalId: approval.id });
  }

  /** *Zone traffic*: the totals of the window, read as `/cdn analytics` reads them. */
  async traffic(
    caller: Caller,
    input: { zone: string; window: RangeKey; channelId?: string },
  ): Promise<StepOutputs> {
    const totals = await this.deps.analytics.totalsFor(caller, {
      zone: input.zone,
      range: input.window,
      ...(input.channelId ? { where: { channelId: input.channelId } } : {}),
    });
    return {
      zone: totals.zone,
      requests: totals.requests,
      bandwidth: totals.bandwidth,
      hit_rate: Math.round(totals.cacheHitRate * 10_000) / 10_000,
    };
  }

  /** Says a step's end now (a step that ended at once, done or refused). */
  async finishNow(
    workspaceId: string,
    executionId: string,
    end: { outputs: StepOutputs } | { error: string },
  ): Promise<void> {
    const said =
      'outputs' in end
        ? await this.deps.completions.succeed(workspaceId, executionId, end.outputs)
        : await this.deps.completions.fail(workspaceId, executionId, end.error);
    if (said === 'gone')
      this.deps.logger.info({ executionId }, 'workflow step already ended at Slack');
  }

  #replyTo(userId: string, channelId: string): ReplyTo {
    return { userId, channelId, issuedAt: this.deps.clock.now(), visibility: 'in_channel' };
  }

  async #wait(
    caller: Caller,
    executionId: string,
    wait: WorkflowStepPayload['wait'],
  ): Promise<void> {
    await this.deps.runner.enqueue({
      workspaceId: caller.workspaceId,
      kind: WORKFLOW_STEP_JOB,
      key: wait.kind === 'approval' ? approvalWaitKey(wait.approvalId) : jobKey(executionId),
      payload: {
        executionId,
        userId: caller.userId,
        startedAt: this.deps.clock.now(),
        wait,
      } satisfies WorkflowStepPayload,
    });
  }

  /**
   * A request reached a final state (or its purge an outcome): the step waiting for it, if any,
   * says its end now, not at its next look. Anything that fails here is left to that look.
   */
  async approvalSettled(approval: Pick<Approval, 'id'>): Promise<void> {
    try {
      const waiting = await this.deps.store.jobs.byKey(approvalWaitKey(approval.id));
      if (!waiting || waiting.state === 'succeeded' || waiting.state === 'failed') return;
      const end = await this.#approvalEnd(approval.id);
      if (end) await this.#say(waiting.workspaceId, waiting.payload as WorkflowStepPayload, end);
    } catch (error) {
      this.deps.logger.warn({ err: error, approval: approval.id }, 'workflow step not woken');
    }
  }

  /**
   * The step's end, said once whoever sees it first (the waiting job, or the approval's end):
   * held under its key while it is said, finished once Slack took it (or no longer runs it).
   */
  async #say(workspaceId: string, payload: WorkflowStepPayload, end: StepEnd): Promise<void> {
    await this.deps.runner.runKeyed(
      {
        workspaceId,
        kind: WORKFLOW_STEP_END_JOB,
        key: endKey(payload.executionId),
        payload: { executionId: payload.executionId },
      },
      () => this.finishNow(workspaceId, payload.executionId, end),
    );
  }

  /**
   * The waiting step: its end once known, said once; till then it looks again every `pollMs` (a
   * purge) or `recheckMs` (an approval, whose end wakes it).
   */
  readonly job: JobKind<WorkflowStepPayload> = {
    concurrency: 4,
    run: (context) => this.#run(context),
  };

  async #run(context: JobContext<WorkflowStepPayload>): Promise<JobOutcome> {
    const { payload, workspaceId } = context.job;
    const end =
      payload.wait.kind === 'purge'
        ? await this.#purgeEnd(payload.wait)
        : await this.#approvalEnd(payload.wait.approvalId);
    if (end === undefined) {
      if (this.deps.clock.now() - payload.startedAt < this.#settings.maxWaitMs)
        return {
          deferMs:
            payload.wait.kind === 'approval' ? this.#settings.recheckMs : this.#settings.pollMs,
          reason: 'waiting for the step to end',
        };
      await this.#say(workspaceId, payload, {
        error: 'The step waited too long for its purge to end.',
      });
      return 'done';
    }
    await this.#say(workspaceId, payload, end);
    return 'done';
  }

  /** A purge's end: each zone's record, and with warming, each zone's warm job done. */
  async #purgeEnd(wait: {
    jobId: string;
    warm?: boolean;
  }): Promise<{ outputs: StepOutputs } | { error: string } | undefined> {
    const { store } = this.deps;
    const job = await store.jobs.get(wait.jobId);
    if (!job) return { error: 'The purge is no longer known.' };
    const groups = (job.payload as { groups: unknown[] }).groups.length;
    const records = [];
    for (let index = 0; index < groups; index++) {
      const record = await store.purges.get(`${wait.jobId}-${index}`);
      if (!record) return undefined;
      records.push(record);
    }
    let cached = 0;
    let warmed = 0;
    if (wait.warm) {
      for (const record of records) {
        const warmJob = await store.jobs.byKey(WARM_JOB_KEY(record.id));
        // Nothing purged to warm in this zone (tags only, or every URL failed).
        if (!warmJob) continue;
        if (warmJob.state !== 'succeeded' && warmJob.state !== 'failed') return undefined;
        const steps = await store.jobs.steps<{ url: string }, { verdict?: string }>(warmJob.id);
        warmed += steps.length;
        cached += steps.filter((step) => step.result?.verdict === 'cached').length;
      }
    }
    const asked = records.reduce((sum, r) => sum + r.fileCount + r.tagCount, 0);
    const failed = records.reduce(
      (sum, r) => sum + r.failed.files.length + r.failed.tags.length,
      0,
    );
    const status = records.every((r) => r.status === 'succeeded')
      ? 'succeeded'
      : records.some((r) => r.status === 'unknown')
        ? 'unknown'
        : 'failed';
    return {
      outputs: {
        purge_id: wait.jobId,
        status,
        purged: asked - failed,
        failed,
        ...(wait.warm ? { warmed, cached } : {}),
      },
    };
  }

  async #approvalEnd(approvalId: string): Promise<StepEnd | undefined> {
    const approval = await this.deps.store.approvals.get(approvalId);
    if (!approval) return { error: 'The request is no longer known.' };
    switch (approval.status) {
      case 'pending':
        // Expired once its time is up, whether or not the expiry round has run yet.
        return approval.expiresAt <= this.deps.clock.now()
          ? { error: 'The request expired before a second person approved it.' }
          : undefined;
      case 'expired':
        return { error: 'The request expired before a second person approved it.' };
      case 'denied':
        return {
          error: `The request was denied${approval.decisionNote ? `: ${approval.decisionNote}` : '.'}`,
        };
      case 'cancelled':
        return { error: 'The request was cancelled.' };
      case 'approved':
        if (approval.outcome === null) return undefined;
        if (approval.outcome !== 'succeeded')
          return {
            error: `Approved, but the purge ${approval.outcome === 'unknown' ? 'was not confirmed' : 'failed'}${
              approval.outcomeDetail ? `: ${approval.outcomeDetail}` : '.'
            }`,
          };
        return {
          outputs: {
            approval_id: approval.id,
            approved_by: approval.decidedBy ?? '',
            status: 'succeeded',
            ...(approval.purgeId ? { purge_id: approval.purgeId } : {}),
          },
        };
    }
  }
}

/**
 * The request messages' notifier, that also wakes a workflow step waiting for the request once it
 * ended (every end of a request is shown on its message: decided, expired, cancelled, its purge's
 * outcome), before the message is changed. `steps` is asked when needed (it is made later).
 */
export function wakingSteps(
  notifier: ApprovalNotifier,
  steps: () => Pick<WorkflowStepService, 'approvalSettled'> | undefined,
): ApprovalNotifier {
  return {
    posted: (approval, details) => notifier.posted(approval, details),
    changed: async (approval, details) => {
      const settled =
        approval.status !== 'pending' &&
        (approval.status !== 'approved' || approval.outcome !== null);
      if (settled) await steps()?.approvalSettled(approval);
      await notifier.changed(approval, details);
    },
    transient: (error) => notifier.transient(error),
    retryAfterMs: (error) => notifier.retryAfterMs(error),
    link: (approval) => notifier.link(approval),
    gone: (error) => notifier.gone(error),
  };
}
