// The bot's Prometheus metrics: one Registry, built once by main and passed in, and the small
// recording methods the taps call. Every label value comes from a fixed set (or a Slack error code,
// a CDN status): never a workspace, user, zone, URL or anything a person typed.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { systemClock, within } from '../clock.js';
import type { PoolStats } from '../store/db.js';

/** Every metric the bot defines starts with this. */
export const METRIC_PREFIX = 'cdn_chatops_';

/**
 * How a /cdn command ended: answered; refused with a reason (an expected problem: no key, not
 * allowed, the CDN or the database away); a bug; or dropped unanswered (a repeated delivery).
 */
export type CommandOutcome = 'ok' | 'refused' | 'error' | 'dropped';

/** What a purge-everything request went through. */
export type ApprovalEvent = 'requested' | 'approved' | 'denied' | 'cancelled' | 'expired';

export interface BotMetricsOptions {
  /** Default: a new Registry of its own (never prom-client's global one). */
  registry?: Registry;
  /** Node's process metrics (event-loop lag, heap, GC, CPU); off in tests that build many. */
  processMetrics?: boolean;
}

const ACK_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];
/** How long a scrape waits for the database's count of jobs. */
const QUEUE_CHECK_MS = 1_000;
const CDN_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class BotMetrics {
  readonly registry: Registry;
  readonly #commands: Counter<'subcommand' | 'outcome'>;
  readonly #ack: Histogram<'kind'>;
  readonly #slack: Counter<'method' | 'status'>;
  readonly #unhandled: Counter<'type'>;
  readonly #cdn: Histogram<'operation' | 'status'>;
  readonly #cdnFeatures: Counter<'feature'>;
  readonly #purges: Counter<'kind' | 'outcome'>;
  readonly #purgeUrls: Counter;
  readonly #purgeTags: Counter;
  readonly #purgeBatches: Counter;
  readonly #purgeFailures: Counter;
  readonly #approvals: Counter<'event'>;
  readonly #reports: Counter<'outcome'>;
  readonly #jobsEnqueued: Counter<'kind'>;
  readonly #jobsRunning: Gauge<'kind'>;
  readonly #jobsResumed: Counter<'kind'>;
  readonly #jobsLeaseLost: Counter<'kind'>;
  readonly #jobsFinished: Counter<'kind' | 'state'>;
  readonly #jobsInQueue: Gauge<'state'>;
  readonly #pool: Gauge<'state'>;
  readonly #poolWaiting: Gauge;
  #poolStats: (() => PoolStats | undefined) | undefined;
  #jobCounts: (() => Promise<Partial<Record<string, number>>>) | undefined;

  constructor(options: BotMetricsOptions = {}) {
    const registry = options.registry ?? new Registry();
    this.registry = registry;
    const registers = [registry];
    const name = (suffix: string) => `${METRIC_PREFIX}${suffix}`;
    this.#commands = new Counter({
      name: name('commands_total'),
      help: '/cdn commands handled, by subcommand and outcome (ok, refused, error, dropped)',
      labelNames: ['subcommand', 'outcome'],
      registers,
    });
    this.#ack = new Histogram({
      name: name('ack_duration_seconds'),
      help: 'From a Slack request reaching the listeners to its ack(), by payload kind',
      labelNames: ['kind'],
      buckets: ACK_BUCKETS,
      registers,
    });
    this.#slack = new Counter({
      name: name('slack_api_calls_total'),
      help: 'Slack Web API calls, by method and status (ok, a Slack error code, http_<code>, timeout, network)',
      labelNames: ['method', 'status'],
      registers,
    });
    this.#unhandled = new Counter({
      name: name('slack_deliveries_unhandled_total'),
      help: 'Deliveries from Slack no listener handled (acknowledged all the same), by type (app_rate_limited, event:<type>, other)',
      labelNames: ['type'],
      registers,
    });
    this.#cdn = new Histogram({
      name: name('cdn_request_duration_seconds'),
      help: 'CDN API requests (each attempt), by operation and status (HTTP status or error code)',
      labelNames: ['operation', 'status'],
      buckets: CDN_BUCKETS,
      registers,
    });
    this.#cdnFeatures = new Counter({
      name: name('cdn_requests_total'),
      help: 'Requests made of the CDN (each attempt), by the feature they were for (analytics, reports, watches, purge, ratelimit, zones, create, login; verify: purged URLs asked of the edge)',
      labelNames: ['feature'],
      registers,
    });
    this.#purges = new Counter({
      name: name('purges_total'),
      help: 'Purges carried out, by kind (urls, tags, urls_tags, everything) and outcome',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.#purgeUrls = new Counter({
      name: name('purge_urls_total'),
      help: 'URLs purged',
      registers,
    });
    this.#purgeTags = new Counter({
      name: name('purge_tags_total'),
      help: 'Cache tags purged',
      registers,
    });
    this.#purgeBatches = new Counter({
      name: name('purge_batches_total'),
      help: 'Purge requests sent to the CDN (batches of URLs or tags)',
      registers,
    });
    this.#purgeFailures = new Counter({
      name: name('purge_failed_items_total'),
      help: 'URLs or tags whose purge failed or whose outcome is unknown',
      registers,
    });
    this.#approvals = new Counter({
      name: name('approvals_total'),
      help: 'Purge-everything approvals, by event (requested, approved, denied, cancelled, expired)',
      labelNames: ['event'],
      registers,
    });
    this.#reports = new Counter({
      name: name('reports_total'),
      help: 'Daily reports, by outcome (posted, failed, skipped)',
      labelNames: ['outcome'],
      registers,
    });
    this.#jobsEnqueued = new Counter({
      name: name('jobs_enqueued_total'),
      help: 'Durable jobs queued by this process, by kind',
      labelNames: ['kind'],
      registers,
    });
    this.#jobsRunning = new Gauge({
      name: name('jobs_running'),
      help: 'Durable jobs this process holds a lease on now, by kind',
      labelNames: ['kind'],
      registers,
    });
    this.#jobsResumed = new Counter({
      name: name('jobs_resumed_total'),
      help: 'Jobs claimed again after an earlier attempt (a crash, a retry, a pause for a stop)',
      labelNames: ['kind'],
      registers,
    });
    this.#jobsLeaseLost = new Counter({
      name: name('jobs_lease_expired_total'),
      help: 'Jobs whose lease expired under this process (another replica may have taken them)',
      labelNames: ['kind'],
      registers,
    });
    this.#jobsFinished = new Counter({
      name: name('jobs_finished_total'),
      help: 'Jobs ended by this process, by kind and state (succeeded, failed)',
      labelNames: ['kind', 'state'],
      registers,
    });
    this.#jobsInQueue = new Gauge({
      name: name('jobs_in_database'),
      help: "Jobs in the shared database waiting (queued) or held (running), without the recurring entries' and zone indexes' own rows: the same for every replica",
      labelNames: ['state'],
      registers,
    });
    this.#pool = new Gauge({
      name: name('db_pool_connections'),
      help: 'PostgreSQL pool connections of this process, by state (in_use, idle)',
      labelNames: ['state'],
      registers,
    });
    this.#poolWaiting = new Gauge({
      name: name('db_pool_waiting'),
      help: 'Queries of this process waiting for a free PostgreSQL connection',
      registers,
    });
    // Event-loop lag (nodejs_eventloop_lag_*), heap, GC, CPU, open handles: prom-client's own.
    if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  }

  /** Where the pool's figures come from (the store's PostgreSQL pool). */
  watchPool(stats: () => PoolStats | undefined): void {
    this.#poolStats = stats;
  }

  /** Where the queue's depth comes from (the store's jobs, counted by state at each scrape). */
  watchJobQueue(counts: () => Promise<Partial<Record<string, number>>>): void {
    this.#jobCounts = counts;
  }

  command(subcommand: string, outcome: CommandOutcome): void {
    this.#commands.inc({ subcommand, outcome });
  }

  acked(kind: string, seconds: number): void {
    this.#ack.observe({ kind }, seconds);
  }

  slackCall(method: string, status: string): void {
    this.#slack.inc({ method, status });
  }

  /** A delivery no listener handled: an envelope Bolt cannot route, or an event nobody listens to. */
  unanswered(type: string): void {
    this.#unhandled.inc({ type });
  }

  cdnRequest(operation: string, status: string, seconds: number): void {
    this.#cdn.observe({ operation, status }, seconds);
  }

  /** One request made of the CDN (its API, or its edge for `verify`) for `feature`. */
  cdnRequestFor(feature: string): void {
    this.#cdnFeatures.inc({ feature });
  }

  purged(purge: {
    kind: string;
    outcome: string;
    urls: number;
    tags: number;
    batches: number;
    failed: number;
  }): void {
    this.#purges.inc({ kind: purge.kind, outcome: purge.outcome });
    this.#purgeUrls.inc(purge.urls);
    this.#purgeTags.inc(purge.tags);
    this.#purgeBatches.inc(purge.batches);
    this.#purgeFailures.inc(purge.failed);
  }

  approval(event: ApprovalEvent, count = 1): void {
    if (count > 0) this.#approvals.inc({ event }, count);
  }

  report(outcome: 'posted' | 'failed' | 'skipped'): void {
    this.#reports.inc({ outcome });
  }

  jobEnqueued(kind: string): void {
    this.#jobsEnqueued.inc({ kind });
  }

  jobStarted(kind: string, resumed: boolean): void {
    this.#jobsRunning.inc({ kind });
    if (resumed) this.#jobsResumed.inc({ kind });
  }

  /** An attempt ended: `finished` when the job ended for good, `leaseLost` when it was taken away. */
  jobEnded(kind: string, how: { finished?: 'succeeded' | 'failed'; leaseLost?: boolean }): void {
    this.#jobsRunning.dec({ kind });
    if (how.finished) this.#jobsFinished.inc({ kind, state: how.finished });
    if (how.leaseLost) this.#jobsLeaseLost.inc({ kind });
  }

  /** The exposition text, as Prometheus scrapes it: the sampled gauges read first. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    await this.#sample();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** The pool and the job queue, as they stand now. */
  async #sample(): Promise<void> {
    const stats = this.#poolStats?.();
    if (stats) {
      this.#pool.set({ state: 'in_use' }, stats.total - stats.idle);
      this.#pool.set({ state: 'idle' }, stats.idle);
      this.#poolWaiting.set(stats.waiting);
    }
    this.#jobsInQueue.reset();
    const count = this.#jobCounts;
    if (!count) return;
    // A database that does not answer leaves the gauge empty: a scrape never hangs on it.
    const counts = await within(
      systemClock,
      QUEUE_CHECK_MS,
      count().catch(() => undefined),
      () => undefined,
    );
    if (!counts) return;
    for (const state of ['queued', 'running'] as const) {
      this.#jobsInQueue.set({ state }, counts[state] ?? 0);
    }
  }
}
