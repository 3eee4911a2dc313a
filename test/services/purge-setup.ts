// The purge services as the app builds them, against the CDN sandbox on loopback, a real store
// and the real job runner: shared by the hold and the precondition tests.
import { type EdgeProbeOptions, EdgeProber } from '../../src/cdn/edge-probe.js';
import { startSandboxEdge } from '../../src/dev/sandbox/edge.js';
import { JobRunner } from '../../src/jobs/runner.js';
import type { Caller, SlackUser } from '../../src/services/access/access.js';
import { ChangeRateLimit } from '../../src/services/access/change-rate-limit.js';
import { purgeServices } from '../../src/services/purge/compose.js';
import { PURGE_HOLD_JOB } from '../../src/services/purge/purge-holds.js';
import type { PurgeOutcome } from '../../src/services/purge/purge-status.js';
import { parsePurgeArgs } from '../../src/services/purge/purge-targets.js';
import {
  VERIFY_JOB,
  type VerifyLimits,
  type VerifySummary,
} from '../../src/services/verify/verify.js';
import { ManualClock } from '../helpers/clock.js';
import type { Backend } from '../helpers/store.js';
import { cdnSetup } from './cdn-setup.js';

export const KEY = 'sk_hold_key_c3';
export const OPERATORS = 'S_OPS';

/** A person of workspace T1; `groups` are the user groups they belong to. */
export function callerOf(
  userId: string,
  /** `inChannels`: the only conversations they are in (default: every one). */
  options: { user?: Partial<SlackUser>; groups?: string[]; inChannels?: string[] } = {},
): Caller {
  return {
    workspaceId: 'T1',
    userId,
    directory: {
      user: async () => ({ isAdmin: false, timeZone: 'UTC', ...options.user }),
      groupMembers: async (groupId) => ((options.groups ?? []).includes(groupId) ? [userId] : []),
      inConversation: async (channelId) => options.inChannels?.includes(channelId) ?? true,
    },
  };
}

/** Closes what each setup opened; call it after each test. */
export const opened: Array<() => Promise<void>> = [];

export async function purgeSetup(
  backend: Backend,
  options: {
    changesPerMinute?: number;
    /** The edge prober's options, over the route to the sandbox edge. */
    probe?: EdgeProbeOptions;
    verifyLimits?: Partial<VerifyLimits>;
    /** The sandbox edge's delay before a purge takes effect. */
    purgeDelayMs?: number;
    /** Probes resolve each URL's host (through `probe.resolve`), as in production: no route to the edge. */
    production?: boolean;
    /** The runner's pace (background work's turns on the event loop). */
    pace?: { turn(signal?: AbortSignal): Promise<void> };
  } = {},
) {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const { sandbox, transport, store, logger, services } = await cdnSetup({
    clock,
    backend,
    sandbox: { apiKeys: [KEY] },
    zoneIndex: {
      limits: { maxPages: 100, operationTimeoutMs: 30_000 },
      refreshMs: 300_000,
      concurrency: 4,
    },
  });
  const flood = new ChangeRateLimit(store, clock, options.changesPerMinute ?? 0);
  const runner = new JobRunner({
    jobs: store.jobs,
    clock,
    logger,
    pollMs: 20,
    ...(options.pace ? { pace: options.pace } : {}),
  });
  const finished: PurgeOutcome[] = [];
  const edge = await startSandboxEdge(sandbox.state, {
    clock,
    ...(options.purgeDelayMs === undefined ? {} : { purgeDelayMs: options.purgeDelayMs }),
  });
  const prober = new EdgeProber(
    options.production ? { ...options.probe } : { edgeAddress: edge.address, ...options.probe },
  );
  /** Each verification's summary, and how often its view was asked to show it. */
  const verified: VerifySummary[] = [];
  const { purges, holds, forms, approvals, verify } = purgeServices({
    cdn: services,
    store,
    runner,
    flood,
    clock,
    logger,
    views: () => ({
      started: async () => undefined,
      progressed: async () => undefined,
      paused: async () => undefined,
      finished: async (outcome) => {
        finished.push(outcome);
      },
    }),
    onViewError: (error) => {
      throw error;
    },
    notifier: {
      posted: async () => {
        throw new Error('not posted in these tests');
      },
      changed: async () => undefined,
      transient: () => false,
      retryAfterMs: () => undefined,
      link: async () => undefined,
      gone: () => false,
    },
    verify: {
      prober,
      views: () => ({
        started: async () => undefined,
        finished: async (summary) => {
          verified.push(summary);
        },
      }),
      delayMs: 0,
      ...(options.verifyLimits ? { limits: options.verifyLimits } : {}),
    },
  });
  runner.register('purge', purges.job);
  runner.register(PURGE_HOLD_JOB, holds.job);
  runner.register(VERIFY_JOB, verify.job);
  runner.start();
  opened.push(
    () => edge.close(),
    () => prober.close(),
    () => sandbox.close(),
    () => transport.close(),
    () => services.zoneIndex.idle(),
    () => runner.stop(),
  );
  await store.credentials.set('T1', KEY, { userId: 'U1', validated: true });
  const purgeRequests = () =>
    sandbox.requests
      .filter((r) => r.path.endsWith('/purge'))
      .map((r) => ({
        zone: sandbox.state.byId(r.path.split('/')[2] ?? '')?.name,
        files: (r.body as { files?: string[] }).files,
      }));
  /** `/cdn purge <words>` as parsed, when it names items. */
  const items = (words: string) => {
    const parsed = parsePurgeArgs(words.split(' '));
    if (parsed.kind !== 'items') throw new Error('not a purge of items');
    return parsed;
  };
  return {
    clock,
    store,
    runner,
    purges,
    holds,
    forms,
    approvals,
    verify,
    verified,
    edge,
    sandbox,
    finished,
    purgeRequests,
    items,
  };
}
