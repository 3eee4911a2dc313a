// Where the metrics are recorded, from outside the code they measure: the store's ports (audit log,
// approvals, jobs) and the CDN transport are wrapped, the Web API client's fetch is wrapped, and one
// Bolt middleware times acks and counts commands. Services never see prom-client. Every label is
// reduced to a fixed set here: no id, name, URL or typed text reaches a metric.
import { performance } from 'node:perf_hooks';
import type { AnyMiddlewareArgs, Context, Middleware } from '@slack/bolt';
import type { FetchFunction } from '@slack/web-api';
import { isCdnError } from '../cdn/errors.js';
import type { CdnFeature, CdnTransport } from '../cdn/transport.js';
import { parseCommand } from '../commands/parse.js';
import { AppError } from '../errors.js';
import { RECURRING_JOB } from '../jobs/background.js';
import { findSubcommand, isHelp } from '../listeners/commands/registry.js';
import { ZONE_INDEX_JOB } from '../services/zones/zone-index-builder.js';
import type { WebApiOptions } from '../slack/web-api-options.js';
import type { AuditEntry } from '../store/audit-log.js';
import type { Store } from '../store/index.js';
import type { Job } from '../store/jobs.js';
import type { BotMetrics, CommandOutcome } from './metrics.js';

/** `target` with some methods replaced; the others still run on `target` itself. */
function override<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(object, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof T];
      const value = Reflect.get(object, property, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

/**
 * Kinds whose rows are bookkeeping held with `JobRunner.runHeld`, not a queue: one row per recurring
 * entry and per zone index, queued until next due, never claimed by the loop. The queue gauge
 * leaves them out, so that it (and the alert on it) counts work waiting.
 */
export const HELD_JOB_KINDS = [RECURRING_JOB, ZONE_INDEX_JOB];

// ── The store ────────────────────────────────────────────────────────────────────────────────

/**
 * The store with its audit log, approvals and jobs recorded as they change. Counts follow the
 * writes that won: a keyed audit entry written once, an approval decided by the one caller that won,
 * a job this process claimed; so replicas and retries never count a thing twice.
 */
export function tapStore(store: Store, metrics: BotMetrics): Store {
  const { audit, approvals, jobs, schedules, watches } = store;
  // The jobs this process holds, with their kind: the running gauge goes up and down with them.
  const held = new Map<string, string>();
  const ended = (id: string, how: Parameters<BotMetrics['jobEnded']>[1]) => {
    const kind = held.get(id);
    if (kind === undefined) return;
    held.delete(id);
    metrics.jobEnded(kind, how);
  };
  /** A write only the holder may make: false means the lease was lost. */
  const heldWrite =
    <A extends [string, ...unknown[]]>(write: (...args: A) => Promise<boolean>) =>
    async (...args: A) => {
      const ok = await write(...args);
      if (!ok) ended(args[0], { leaseLost: true });
      return ok;
    };
  metrics.watchJobQueue(() => jobs.countByState(HELD_JOB_KINDS));
  if (store.poolStats) metrics.watchPool(store.poolStats);
  return {
    ...store,
    audit: override(audit, {
      record: async (entry) => {
        const written = await audit.record(entry);
        if (written) recordAudit(metrics, written);
        return written;
      },
    }),
    approvals: override(approvals, {
      create: async (input) => {
        const result = await approvals.create(input);
        if ('created' in result) metrics.approval('requested');
        return result;
      },
      decide: async (id, decision, by) => {
        const decided = await approvals.decide(id, decision, by);
        if (decided) metrics.approval(decision);
        return decided;
      },
      expireDue: async () => {
        const expired = await approvals.expireDue();
        metrics.approval('expired', expired.length);
        return expired;
      },
      expireAllPending: async (workspaceId) => {
        const expired = await approvals.expireAllPending(workspaceId);
        metrics.approval('expired', expired.length);
        return expired;
      },
    }),
    // Report jobs are stored a batch at a time, with their schedules, in one transaction.
    schedules: override(schedules, {
      takeDue: async (limit, plan) => {
        const taken = await schedules.takeDue(limit, plan);
        for (const { job } of taken) if (job) metrics.jobEnqueued(job.kind);
        return taken;
      },
    }),
    // So are watch evaluations, with their zones.
    watches: override(watches, {
      takeDue: async (limit, plan) => {
        const taken = await watches.takeDue(limit, plan);
        for (const { job } of taken) metrics.jobEnqueued(job.kind);
        return taken;
      },
    }),
    jobs: override(jobs, {
      enqueue: async (input) => {
        const result = await jobs.enqueue(input);
        if (result.created) metrics.jobEnqueued(result.job.kind);
        return result;
      },
      claim: async (owner, leaseMs, kinds) => {
        const job = await jobs.claim(owner, leaseMs, kinds);
        if (job) {
          held.set(job.id, job.kind);
          metrics.jobStarted(job.kind, wasResumed(job));
        }
        return job;
      },
      finish: async (id, owner, outcome) => {
        const ok = await jobs.finish(id, owner, outcome);
        ended(id, ok ? { finished: outcome.state } : { leaseLost: true });
        return ok;
      },
      release: async (id, owner, runAt, options) => {
        const ok = await jobs.release(id, owner, runAt, options);
        ended(id, ok ? {} : { leaseLost: true });
        return ok;
      },
      renew: heldWrite(jobs.renew.bind(jobs)),
      checkpoint: heldWrite(jobs.checkpoint.bind(jobs)),
      completeStep: heldWrite(jobs.completeStep.bind(jobs)),
      completeSteps: async (id, owner, results) => {
        const closed = await jobs.completeSteps(id, owner, results);
        if (closed.size < results.length) ended(id, { leaseLost: true });
        return closed;
      },
    }),
  };
}

/** Taken up again: an earlier attempt ran (a crash, a retry) or it left a checkpoint (a pause). */
function wasResumed(job: Job): boolean {
  return job.attempts > 1 || Object.keys(job.checkpoint ?? {}).length > 0;
}

const PURGE_KINDS: Record<string, string> = {
  'purge.urls': 'urls',
  'purge.tags': 'tags',
  'purge.urls_tags': 'urls_tags',
  'purge.everything': 'everything',
};

const REPORT_OUTCOMES = {
  'report.posted': 'posted',
  'report.failed': 'failed',
  'report.skipped': 'skipped',
} as const;

/** Outcomes the audit log writes for purges; anything else is counted as `other`. */
const PURGE_OUTCOMES = new Set(['ok', 'partial', 'failed', 'unknown']);

function recordAudit(metrics: BotMetrics, entry: AuditEntry): void {
  const purgeKind = PURGE_KINDS[entry.action];
  if (purgeKind !== undefined) {
    const detail = entry.detail ?? {};
    const count = (key: string) => {
      const value = detail[key];
      return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
    };
    metrics.purged({
      kind: purgeKind,
      outcome: PURGE_OUTCOMES.has(entry.outcome) ? entry.outcome : 'other',
      urls: count('files'),
      tags: count('tags'),
      // Purge-everything is one request.
      batches: purgeKind === 'everything' ? 1 : count('requests'),
      // Failed or unknown (docs/deploy.md): the audit entry counts the two apart.
      failed: count('failed') + count('unconfirmed'),
    });
    return;
  }
  const report = REPORT_OUTCOMES[entry.action as keyof typeof REPORT_OUTCOMES];
  if (report) metrics.report(report);
}

// ── The CDN ──────────────────────────────────────────────────────────────────────────────────

/** The features CDN requests are counted by; a request without one is `other`. */
const CDN_FEATURES = new Set<CdnFeature>([
  'analytics',
  'reports',
  'watches',
  'purge',
  'ratelimit',
  'zones',
  'create',
  'login',
  'verify',
]);

/** The transport with each attempt timed and counted by operation and status, and by feature. */
export function tapTransport(transport: CdnTransport, metrics: BotMetrics): CdnTransport {
  return override(transport, {
    send: async (request) => {
      const feature = request.feature;
      metrics.cdnRequestFor(feature && CDN_FEATURES.has(feature) ? feature : 'other');
      const started = performance.now();
      const operation = cdnOperation(request.operation);
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const response = await transport.send(request);
        metrics.cdnRequest(operation, String(response.status), seconds());
        return response;
      } catch (error) {
        const status = isCdnError(error)
          ? error.code
          : request.signal?.aborted
            ? 'aborted'
            : 'error';
        metrics.cdnRequest(operation, status, seconds());
        throw error;
      }
    },
  });
}

/** Path words of the CDN API (cdn-api-spec.md); any other word is an id and becomes `{id}`. */
const CDN_PATH_WORDS = new Set(['zones', 'purge', 'analytics', 'traffic', 'settings']);

/** `POST /zones/z_123/purge?x=1` → `POST /zones/{id}/purge`: the operation without ids. */
export function cdnOperation(operation: string): string {
  const [method = '', target = ''] = operation.split(' ', 2);
  const path = (target.split('?')[0] ?? '')
    .split('/')
    .map((word) => (word === '' || CDN_PATH_WORDS.has(word) ? word : '{id}'))
    .join('/');
  return `${/^[A-Z]{3,7}$/.test(method) ? method : 'OTHER'} ${path || '/'}`;
}

// ── Slack ────────────────────────────────────────────────────────────────────────────────────

/** The Web API client's fetch, with each call to a Web API method counted by method and status. */
export function tapFetch(send: FetchFunction, apiUrl: string, metrics: BotMetrics): FetchFunction {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input.href;
    // response_url posts and file uploads are not Web API methods.
    if (!url.startsWith(apiUrl)) return send(input, init);
    const method = slackMethod(url.slice(apiUrl.length));
    try {
      const response = await send(input, init);
      metrics.slackCall(method, await slackStatus(response));
      return response;
    } catch (error) {
      const name = (error as Error | undefined)?.name;
      metrics.slackCall(
        method,
        name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network',
      );
      throw error;
    }
  };
}

/** Both clients' settings, their fetch counted (a call refused while a 429's window is open too). */
export function tapWebApiOptions(
  web: WebApiOptions,
  apiUrl: string,
  metrics: BotMetrics,
): WebApiOptions {
  const tap = (options: WebApiOptions['interactive']) => ({
    ...options,
    fetch: tapFetch(options.fetch ?? (globalThis.fetch as FetchFunction), apiUrl, metrics),
  });
  return {
    interactive: tap(web.interactive),
    background: tap(web.background),
    paced: tap(web.paced),
  };
}

/** `chat.postMessage?x` → `chat.postMessage`; anything not shaped like a method → `other`. */
export function slackMethod(path: string): string {
  const method = path.split('?')[0] ?? '';
  return /^[a-z]+(\.[a-zA-Z]+){1,3}$/.test(method) ? method : 'other';
}

/** `ok`, Slack's error code (`channel_not_found`), or `http_<status>` when not a 200. */
async function slackStatus(response: Awaited<ReturnType<FetchFunction>>): Promise<string> {
  if (!response.ok) return `http_${response.status}`;
  // Read from a copy: the client reads the response itself.
  const copy = (response as Partial<Pick<Response, 'clone'>>).clone?.();
  if (!copy) return 'unparsed';
  try {
    const body = (await copy.json()) as { ok?: unknown; error?: unknown };
    if (body.ok === true) return 'ok';
    return typeof body.error === 'string' && /^[a-z_]{1,60}$/.test(body.error)
      ? body.error
      : 'error';
  } catch {
    return 'unparsed';
  }
}

/** Payload kinds the ack histogram is labelled with; any other is `other`. */
const PAYLOAD_KINDS = new Set([
  'block_actions',
  'block_suggestion',
  'view_submission',
  'view_closed',
  'shortcut',
  'message_action',
  'event_callback',
]);

type Body = { type?: unknown; command?: unknown; text?: unknown };

function payloadKind(body: Body): string {
  if (typeof body.command === 'string') return 'command';
  return typeof body.type === 'string' && PAYLOAD_KINDS.has(body.type) ? body.type : 'other';
}

/** The subcommand's name from the registry, `help`, or `unknown`: never the text typed. */
export function subcommandOf(text: unknown): string {
  const { name } = parseCommand(typeof text === 'string' ? text : '');
  if (isHelp(name)) return 'help';
  return findSubcommand(name)?.name ?? 'unknown';
}

/** What the error policy answered, as a command's outcome (see errorPolicy: context.failure). */
function outcomeOf(context: Context): CommandOutcome {
  // Never acknowledged by a listener: a repeated delivery or a hand-made payload, dropped.
  if (!('failure' in context)) return typeof context.ackedAt === 'number' ? 'ok' : 'dropped';
  const failure = context.failure;
  return failure instanceof AppError || isCdnError(failure) ? 'refused' : 'error';
}

/**
 * The outermost middleware: times each request from reaching the listeners to its ack() (tracked
 * listeners write `context.ackedAt`), and counts each /cdn command by subcommand and outcome.
 */
export function requestMetrics(metrics: BotMetrics): Middleware<AnyMiddlewareArgs> {
  return async ({ body, context, next }) => {
    const started = performance.now();
    let outcome: CommandOutcome | undefined;
    try {
      await next();
    } catch (error) {
      outcome = 'error';
      throw error;
    } finally {
      const fields = body as Body;
      const kind = payloadKind(fields);
      const ackedAt = context.ackedAt;
      if (typeof ackedAt === 'number') metrics.acked(kind, Math.max(0, ackedAt - started) / 1000);
      if (kind === 'command')
        metrics.command(subcommandOf(fields.text), outcome ?? outcomeOf(context));
    }
  };
}
