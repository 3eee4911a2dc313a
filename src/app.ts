// Builds the Bolt App for a mode (socket, http, or a custom receiver) and registers the listeners.
// (Over 500 lines: the one place every service, job kind, tick and route is built and wired;
// splitting it would scatter the composition a reader needs in one place.)
import {
  type App,
  type AppOptions,
  type Authorize,
  type Receiver,
  SocketModeReceiver,
} from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { sql } from 'kysely';
import { apiRoutes } from './api/http.js';
import { type EdgeProbeOptions, EdgeProber } from './cdn/edge-probe.js';
import { EgressPolicy, type Resolver } from './cdn/egress.js';
import type { CdnTransport } from './cdn/transport.js';
import { type ChartRenderer, TrafficChartRenderer } from './charts/traffic-chart.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppDeps } from './deps.js';
import { Health, LIVENESS_WINDOW_MS } from './health.js';
import { BackgroundWork } from './jobs/background.js';
import { livenessWindows, recurringWork } from './jobs/recurring.js';
import { RetentionSweep } from './jobs/retention.js';
import { JobRunner } from './jobs/runner.js';
import { registerListeners } from './listeners/index.js';
import { AnsweringApp } from './listeners/unanswered.js';
import type { Logger } from './logger.js';
import { defined } from './objects.js';
import { BotMetrics } from './observability/metrics.js';
import { metricsRoute } from './observability/server.js';
import { requestMetrics, tapStore, tapTransport, tapWebApiOptions } from './observability/taps.js';
import { marketplacePages } from './pages.js';
import { ChangeRateLimit } from './services/access/change-rate-limit.js';
import { ACCOUNT_PICK_JOB } from './services/accounts/account-picks.js';
import { AccountService } from './services/accounts/accounts.js';
import { CredentialService } from './services/accounts/credentials.js';
import { AnalyticsService } from './services/analytics/analytics.js';
import { ApiPurgeService } from './services/api/api-purges.js';
import { ApiTokenService } from './services/api/api-tokens.js';
import { APPROVAL_MESSAGE_JOB, PURGE_EVERYTHING_JOB } from './services/approvals/approvals.js';
import { ActivityService } from './services/audit/activity.js';
import { AUDIT_EXPORT_JOB, AuditExportService } from './services/audit/audit-export.js';
import {
  FREEZE_ANNOUNCE_JOB,
  FREEZE_EXCEPTION_CLOSE_JOB,
  FreezeService,
} from './services/freezes/freezes.js';
import type { FreezeGate } from './services/freezes/gate.js';
import { cdnServices, purgeServices } from './services/purge/compose.js';
import { PURGE_HOLD_JOB } from './services/purge/purge-holds.js';
import { PURGE_JOB } from './services/purge/purge-job.js';
import { SCHEDULED_PURGE_JOB, ScheduledPurgeService } from './services/purge/scheduled-purges.js';
import { ReplayGuard } from './services/replays.js';
import { DailyReportService } from './services/reports/daily-report.js';
import { REPORT_JOB, ReportDelivery } from './services/reports/report-delivery.js';
import { ReportScheduleService } from './services/reports/report-schedules.js';
import { VERIFY_JOB } from './services/verify/verify.js';
import {
  KEEP_FINISHED_EVALS_MS,
  WATCH_EVAL_JOB,
  WatchEvaluation,
} from './services/watches/watch-evaluation.js';
import { WATCH_POST_JOB } from './services/watches/watch-posting.js';
import { WatchService } from './services/watches/watches.js';
import {
  WORKFLOW_STEP_JOB,
  WorkflowStepService,
  wakingSteps,
} from './services/workflows/workflow-steps.js';
import { UninstallService } from './services/workspace/uninstall.js';
import { WorkspaceConfigService } from './services/workspace/workspace-config.js';
import { RATELIMIT_FOLLOW_UP_JOB, RateLimitService } from './services/zones/ratelimit.js';
import { ZoneChoices } from './services/zones/zone-choices.js';
import { apiPurgeMessages, bothViews } from './slack/api-purge-progress.js';
import { SlackApprovalNotifier } from './slack/approval-notifier.js';
import { SlackAuditExportSink } from './slack/audit-export-sink.js';
import { boltLogger } from './slack/bolt-logger.js';
import { GroupMembersCache } from './slack/directory.js';
import { durableMessages } from './slack/durable-message.js';
import { SlackFreezeNotifier } from './slack/freeze-notifier.js';
import { installCallbacks } from './slack/install-pages.js';
import { CachedInstallationStore } from './slack/installation-cache.js';
import { SlackPeopleByEmail } from './slack/people-by-email.js';
import { purgeViews } from './slack/purge-progress.js';
import { SlackRateLimits } from './slack/rate-limits.js';
import { rateLimitNotices } from './slack/ratelimit-notices.js';
import { SlackReportPoster } from './slack/report-poster.js';
import { slackResponseUrls } from './slack/response-urls.js';
import { SlackScheduledPurges } from './slack/scheduled-purge-notices.js';
import { SlackStepCompletions } from './slack/step-completions.js';
import { RotatingInstallationStore } from './slack/token-rotation.js';
import { verifyViews } from './slack/verify-messages.js';
import { SlackWatchPoster } from './slack/watch-poster.js';
import { webApiOptions } from './slack/web-api-options.js';
import { appAuthorize, WorkspaceClients } from './slack/workspace-clients.js';
import type { Store } from './store/index.js';
import { CallPace } from './throttles/call-pace.js';
import { EventLoopBusy } from './throttles/event-loop-busy.js';
import { EventLoopPace, PACE_WINDOW_MS } from './throttles/event-loop-pace.js';

/** Where Slack's requests arrive in HTTP mode: every request URL of manifest-http.yml. */
export const SLACK_EVENTS_PATH = '/slack/events';

/** Bot scopes: the least the features need (each one's reason: docs/scopes.md). */
export const BOT_SCOPES = [
  'commands',
  'chat:write',
  'files:write',
  'files:read',
  'users:read',
  'users:read.email',
  'usergroups:read',
  'channels:read',
  'groups:read',
  'im:read',
  'im:write',
  'mpim:read',
];

export interface BuildAppOptions {
  config: Config;
  store: Store;
  transport: CdnTransport;
  clock: Clock;
  logger: Logger;
  /** The CDN API: CDN_API_BASE_URL, or the console's embedded sandbox. */
  cdnBaseUrl: string;
  edgeCnameTarget: string;
  /** Extra Web API client options, over the configured ones (tests turn retries off). */
  clientOptions?: WebClientOptions;
  /** The chart renderer, when one is shared (it is costly to build: one per process). */
  /** Default: an in-process renderer (main.ts hands in the pool of worker threads). */
  chartRenderer?: ChartRenderer;
  /** A receiver of one's own (the console); otherwise one is built for config.mode. */
  receiver?: Receiver;
  /** DNS for checking base-URL overrides (tests inject their own). */
  resolve?: Resolver;
  /** Where metrics are recorded; default: a registry of its own when METRICS_* enables them. */
  metrics?: BotMetrics;
  /**
   * How purged URLs are asked of the edge. Production gives none: each URL's host is resolved
   * and must be public. The console and tests route every probe to the sandbox edge.
   */
  edgeProbe?: EdgeProbeOptions;
  /** After a purge asked with --verify, how long the edge is given (DEFAULT_VERIFY_DELAY_MS). */
  verifyDelayMs?: number;
  /** How often a waiting workflow step looks at its purge or approval again (default 2 s). */
  workflowStepPollMs?: number;
}

/** How work outside a request reaches Slack: Bolt's authorize for tokens, a client of its own. */
export interface BackgroundSlack {
  /** The App's authorize (see appAuthorize); without it, SLACK_BOT_TOKEN. */
  authorize?: Authorize<boolean>;
  /** A client with the background settings; without it, `client`. */
  client?: WebClient;
  /** A client with the paced settings (never waits for a rate-limit window); without it, `client`. */
  paced?: WebClient;
  /** Who people are (users.info, cached), shared with the listeners; without it, a cache of its own. */
  people?: GroupMembersCache;
}

export function buildDeps(
  options: BuildAppOptions,
  client: WebClient,
  backgroundSlack: BackgroundSlack = {},
): AppDeps {
  const { store, clock, logger } = options;
  const egress = new EgressPolicy({
    allowlist: options.config.cdn.baseUrlAllowlist,
    ...(options.resolve ? { resolve: options.resolve } : {}),
    logger,
  });
  // Background work (claims, purge batches) takes the event loop only while Slack's requests would
  // find it free enough (BACKGROUND_LOOP_PERCENT); 100 never waits.
  const { loopShare } = options.config.jobs;
  const runner = new JobRunner({
    jobs: store.jobs,
    clock,
    logger,
    leaseMs: options.config.jobs.leaseMs,
    ...(loopShare < 1
      ? { pace: new EventLoopPace(new EventLoopBusy(loopShare, undefined, PACE_WINDOW_MS).busy) }
      : {}),
  });
  // Change freezes: asked by the services that make changes, which are built before the freeze
  // service itself (it finds zones through them), hence the gate bound once it exists.
  let freezes: FreezeService | undefined;
  const freezeGate: FreezeGate = {
    require: async (check) => freezes?.require(check),
    precheck: async (check) => freezes?.precheck(check),
    blocking: async (check) => (freezes ? freezes.blocking(check) : []),
  };
  const services = cdnServices({
    freezes: freezeGate,
    store,
    transport: options.transport,
    defaultBaseUrl: options.cdnBaseUrl,
    egress,
    clock,
    logger,
    zoneIndex: { limits: options.transport.limits, ...options.config.zoneIndex, runner },
    // Reads of the CDN for people, bounded per person and per workspace (slots in the store).
    readsPerMinute: options.config.cdnReadsPerMinute,
  });
  const { cdn, access, zoneIndex, reads, zones, channels, scopes } = services;

  const flood = new ChangeRateLimit(store, clock, options.config.changesPerMinute);
  const renderer = options.chartRenderer ?? new TrafficChartRenderer();
  const clients = new WorkspaceClients(backgroundSlack.client ?? client, {
    ...(backgroundSlack.authorize ? { authorize: backgroundSlack.authorize } : {}),
    ...(options.config.slack.botToken ? { botToken: options.config.slack.botToken } : {}),
    // An org-wide install is found by the workspace's enterprise, as stored when it was first seen.
    enterpriseOf: async (workspaceId) =>
      (await store.workspaces.get(workspaceId))?.enterpriseId ?? undefined,
  });
  freezes = new FreezeService({
    store,
    access,
    scopes,
    runner,
    notifier: new SlackFreezeNotifier(clients),
    clock,
    logger,
  });
  const defaultBaseUrl = options.cdnBaseUrl;
  // Messages of work that outlives its request (purges, follow-ups).
  const messages = durableMessages(clients, clock, logger);
  // Background posts keep to Slack's rate limits across every replica (slots in the store).
  const pacer = new CallPace(store.rateSlots, clock);
  // A purge asked for over the HTTP API reports to its API record (apiPurges, made below).
  const slackViews = purgeViews(messages, logger);
  let apiPurges: ApiPurgeService | undefined;
  let workflowSteps: WorkflowStepService | undefined;
  // ...and posts one message in its channel (the token's, else the zone's bound one), if any: at
  // Slack's pace, a burst of CI purges in one channel never holding up a purge (durable-message.ts).
  const pacedMessages = durableMessages(clients, clock, logger, {
    client: backgroundSlack.paced ?? backgroundSlack.client ?? client,
    slots: store.rateSlots,
  });
  const apiSlackViews = apiPurgeMessages(pacedMessages, logger, async (id) =>
    apiPurges?.record(id),
  );
  const {
    purges,
    holds: purgeHolds,
    picks: accountPicks,
    forms: purgeForm,
    approvals,
    verify,
  } = purgeServices({
    cdn: services,
    store,
    runner,
    flood,
    clock,
    logger,
    views: (workspaceId, replyTo, state, save, payload) => {
      if (!(payload?.api && apiPurges)) return slackViews(workspaceId, replyTo, state, save);
      const record = apiPurges.view(payload.api.purgeId);
      const slack = apiSlackViews(workspaceId, replyTo, state, save, payload.api);
      return slack ? bothViews(record, slack) : record;
    },
    onViewError: (error) => logger.warn({ err: error }, 'purge progress not updated'),
    // A workflow step waiting for a request is woken by its end (the steps are made below).
    notifier: wakingSteps(new SlackApprovalNotifier(clients), () => workflowSteps),
    verify: {
      prober: new EdgeProber({
        ...(options.resolve ? { resolve: options.resolve } : {}),
        ...options.edgeProbe,
      }),
      views: verifyViews(messages, clients),
      perMinute: options.config.verificationsPerMinute,
      ...(options.verifyDelayMs === undefined ? {} : { delayMs: options.verifyDelayMs }),
    },
  });
  // Purges for a later time, checked again when they come due.
  const scheduledPurges = new ScheduledPurgeService({
    purges,
    approvals,
    access,
    accounts: scopes,
    flood,
    store,
    runner,
    slack: new SlackScheduledPurges(
      clients,
      backgroundSlack.people ?? new GroupMembersCache(clock),
    ),
    freezes: freezeGate,
    // Those asked over the HTTP API are checked and started by its service, made next.
    api: () => apiPurges,
    clock,
    logger,
  });
  apiPurges = new ApiPurgeService({
    store,
    zones,
    accounts: scopes,
    purges,
    approvals,
    clock,
    logger,
    settings: options.config.api,
    people: new SlackPeopleByEmail(clients, logger),
    freezes: freezeGate,
    scheduled: scheduledPurges,
  });
  // A picked zone (`<account>/<zone id>`) is found in its own account.
  const zoneChoices = new ZoneChoices({ scopes, zones });
  const apiTokens = new ApiTokenService({ store, access, zones: zoneChoices });
  const ratelimit = new RateLimitService({
    cdn,
    audit: store.audit,
    access,
    zones,
    accountScopes: scopes,
    flood,
    freezes: freezeGate,
    reads,
    runner,
    notices: rateLimitNotices(messages),
    clock,
    logger,
  });
  const reports = new ReportDelivery({
    store,
    reports: new DailyReportService(cdn, store, renderer),
    poster: new SlackReportPoster(
      clients,
      pacer,
      backgroundSlack.people ?? new GroupMembersCache(clock),
    ),
    runner,
    clock,
    logger,
  });
  const activity = new ActivityService({
    ...store,
    access,
    defaultBaseUrl,
    retention: options.config.retention,
  });
  const auditExport = new AuditExportService({
    audit: store.audit,
    jobs: store.jobs,
    runner,
    access,
    activity,
    sink: new SlackAuditExportSink(
      clients,
      pacer,
      backgroundSlack.people ?? new GroupMembersCache(clock),
    ),
    clock,
    logger,
    perHour: options.config.auditExportsPerHour,
    slots: store.rateSlots,
  });
  const watchPoster = new SlackWatchPoster(clients, pacer);
  const watchEvaluation = new WatchEvaluation({
    store,
    cdn,
    runner,
    renderer,
    poster: watchPoster,
    clock,
    logger,
    settings: options.config.watch,
  });
  const watches = new WatchService({
    watches: store.watches,
    watchRules: store.watchRules,
    watchAlerts: store.watchAlerts,
    credentials: store.credentials,
    workspaces: store.workspaces,
    audit: store.audit,
    access,
    zones,
    accountScopes: scopes,
    ratelimit,
    runner,
    followUps: watchPoster,
    clock,
    settings: options.config.watch,
  });
  const retention = new RetentionSweep({
    store,
    clock,
    logger,
    ...options.config.retention,
    // A held purge's job and its cancel marker go an hour after they end: they hold URLs, and
    // are read only while the hold waits (PURGE_HOLD_MS, 15 minutes).
    jobsSoonerMs: {
      [WATCH_EVAL_JOB]: KEEP_FINISHED_EVALS_MS,
      [PURGE_HOLD_JOB]: 60 * 60_000,
      [ACCOUNT_PICK_JOB]: 60 * 60_000,
    },
  });
  // Every piece of background work, in one list: the kinds of durable job (each claimed by one
  // replica, resumed after a crash) and the recurring work (src/jobs/recurring.ts). The
  // composition root starts it once.
  const credentials = new CredentialService({ store, cdn, egress, access, zones });
  const background = new BackgroundWork(runner, logger, clock);
  background.job(PURGE_JOB, purges.job);
  background.job(PURGE_HOLD_JOB, purgeHolds.job);
  background.job(ACCOUNT_PICK_JOB, accountPicks.job);
  background.job(PURGE_EVERYTHING_JOB, approvals.job);
  background.job(SCHEDULED_PURGE_JOB, scheduledPurges.job);
  background.job(APPROVAL_MESSAGE_JOB, approvals.messages);
  background.job(RATELIMIT_FOLLOW_UP_JOB, ratelimit.followUp);
  background.job(REPORT_JOB, reports.job);
  background.job(WATCH_EVAL_JOB, watchEvaluation.evalJob);
  background.job(WATCH_POST_JOB, watchEvaluation.postJob);
  background.job(VERIFY_JOB, verify.job);
  background.job(AUDIT_EXPORT_JOB, auditExport.job);
  background.job(FREEZE_ANNOUNCE_JOB, freezes.announceJob);
  const analytics = new AnalyticsService(cdn, store, renderer, clock, reads, scopes);
  workflowSteps = new WorkflowStepService({
    ...{ store, runner, purges, approvals, analytics, clock, logger },
    completions: new SlackStepCompletions(clients),
    ...(options.workflowStepPollMs === undefined
      ? {}
      : { settings: { pollMs: options.workflowStepPollMs } }),
  });
  background.job(WORKFLOW_STEP_JOB, workflowSteps.job);
  background.job(FREEZE_EXCEPTION_CLOSE_JOB, freezes.closeJob);
  const api = apiPurges;
  const recurring = recurringWork({
    approvals,
    reports,
    watches: { tick: () => watchEvaluation.tick(), intervalMs: options.config.watch.intervalMs },
    zoneIndex: zoneIndex.builder,
    apiPurges: api,
    freezes,
    auditExports: auditExport,
    retention,
  });
  for (const entry of recurring) background.every(entry);
  return {
    access,
    activity,
    auditExport,
    analytics,
    apiTokens,
    apiPurges: api,
    approvals,
    config: new WorkspaceConfigService({ ...store, access, defaultBaseUrl }),
    credentials,
    accounts: new AccountService({
      ...{ store, access, credentials, zones, reads, approvals, clock, logger },
      defaultBaseUrl,
    }),
    flood,
    freezes,
    purges,
    scheduledPurges,
    purgeHolds,
    accountPicks,
    purgeForm,
    verify,
    replays: new ReplayGuard(store.seenRequests),
    ratelimit,
    reports,
    schedules: new ReportScheduleService({
      ...store,
      access,
      zones,
      accountScopes: scopes,
      clock,
    }),
    uninstall: new UninstallService(store, zones, logger, options.config.retention.uninstalledMs),
    isSlackResponseUrl: slackResponseUrls(
      options.config.slack.apiUrl,
      options.config.slack.responseUrlBase,
    ),
    zones,
    accountScopes: scopes,
    zoneChoices,
    zoneIndex,
    runner,
    background,
    retention,
    clients,
    clock,
    logger,
    edgeCnameTarget: options.edgeCnameTarget,
    channels,
    watches,
    watchEvaluation,
    workflowSteps,
  };
}

export function buildApp(options: BuildAppOptions): {
  app: App;
  deps: AppDeps;
  health: Health;
  metrics?: BotMetrics;
} {
  const { config, store, logger } = options;
  const slack = config.slack;
  const metrics = options.metrics ?? (config.metrics.enabled ? new BotMetrics() : undefined);
  // Recorded from outside: the store's ports, the CDN transport and the Web API's fetch are wrapped.
  const observed: BuildAppOptions = metrics
    ? {
        ...options,
        store: tapStore(store, metrics),
        transport: tapTransport(options.transport, metrics),
        // Purged URLs asked of the edge are CDN requests too, for `verify`.
        edgeProbe: { ...options.edgeProbe, onRequest: () => metrics.cdnRequestFor('verify') },
      }
    : options;
  // One window per workspace, method and channel after a 429, shared by every client.
  const limits = new SlackRateLimits({ apiUrl: slack.apiUrl, clock: options.clock, logger });
  const baseWeb = webApiOptions(config.slackApi, limits);
  const web = metrics ? tapWebApiOptions(baseWeb, slack.apiUrl, metrics) : baseWeb;
  const clientOptions: WebClientOptions = {
    slackApiUrl: slack.apiUrl,
    ...web.interactive,
    ...options.clientOptions,
  };
  // Work outside a request, and the refresh of rotating tokens: no token of its own.
  const backgroundClient = new WebClient(undefined, {
    slackApiUrl: slack.apiUrl,
    logger: boltLogger(logger, 'web-api'),
    ...web.background,
    ...options.clientOptions,
  });
  const oauth =
    slack.clientId && slack.clientSecret && slack.stateSecret
      ? {
          clientId: slack.clientId,
          clientSecret: slack.clientSecret,
          stateSecret: slack.stateSecret,
          scopes: BOT_SCOPES,
          // Read before every request's listeners (before the ack): kept a moment (see the cache);
          // a rotating token is refreshed there, by one replica at a time.
          installationStore: new CachedInstallationStore(
            new RotatingInstallationStore(store.installations, {
              client: backgroundClient,
              clientId: slack.clientId,
              clientSecret: slack.clientSecret,
              clock: options.clock,
              logger,
            }),
            options.clock,
          ),
        }
      : undefined;
  // /slack/install goes straight to Slack's consent page (the Marketplace's "direct install");
  // the pages after it say what to do next (install-pages.ts). Slack's authorize page is beside
  // its Web API (https://slack.com/oauth/v2/authorize), so a stand-in Slack serves both.
  const installerOptions = {
    directInstall: true,
    clientOptions,
    callbackOptions: installCallbacks(logger),
    authorizationUrl: new URL('../oauth/v2/authorize', slack.apiUrl).toString(),
  };
  const auth: Partial<AppOptions> = oauth
    ? { ...oauth, installerOptions }
    : { token: slack.botToken ?? 'xoxb-console' };
  const common: AppOptions = {
    ...auth,
    logger: boltLogger(logger),
    clientOptions,
    // Token checks happen in init(), awaited by the caller, so a bad token fails start-up clearly.
    deferInitialization: true,
  };
  const health = new Health(() => sql`select 1`.execute(store.db), {
    store: config.database.kind,
  });
  // /metrics on PORT beside the probes, unless it has a port of its own (main serves that one).
  // The HTTP API is built with the deps below; its routes look them up when a request comes.
  let apiDeps: AppDeps | undefined;
  const routes = [
    ...health.routes(),
    // The Marketplace listing's privacy and support pages.
    ...marketplacePages({ retention: config.retention, supportContact: config.supportContact }),
    ...apiRoutes({
      services: () => {
        if (!apiDeps) throw new Error('the API was called before the app was built');
        return { tokens: apiDeps.apiTokens, purges: apiDeps.apiPurges };
      },
      store: observed.store,
      logger,
      limits: { inFlight: config.api.inFlight, queued: config.api.queued },
      bodyTimeouts: config.api.body,
      // While Slack's acks would wait for the loop, the API works on one request at a time.
      // "Busy": past background work's share of the loop (BACKGROUND_LOOP_PERCENT).
      busy: new EventLoopBusy(config.jobs.loopShare).busy,
    }),
    ...(metrics && config.metrics.port === undefined
      ? [metricsRoute(metrics, defined('token', config.metrics.token), logger)]
      : []),
  ];
  // Every delivery is acknowledged, even one no listener takes (see unanswered.ts).
  const answering = { logger, metrics };
  let app: AnsweringApp;
  if (options.receiver) {
    app = new AnsweringApp({ ...common, receiver: options.receiver }, answering);
  } else if (config.mode === 'socket') {
    // Built here rather than by the App, so that readiness can follow its connection. The health
    // routes (and the OAuth pages, with OAuth) are served on PORT.
    const receiver = new SocketModeReceiver({
      appToken: slack.appToken ?? '',
      logger: boltLogger(logger),
      customRoutes: routes,
      ...(oauth ?? {}),
      installerOptions: { ...installerOptions, port: config.port },
    });
    health.watchSocket(receiver.client);
    app = new AnsweringApp({ ...common, receiver }, answering);
  } else {
    app = new AnsweringApp(
      {
        ...common,
        signingSecret: slack.signingSecret ?? '',
        endpoints: SLACK_EVENTS_PATH,
        customRoutes: routes,
        // Acknowledge first; slow work continues after Slack has its 200.
        processBeforeResponse: false,
      },
      answering,
    );
  }
  const pacedClient = new WebClient(undefined, {
    slackApiUrl: slack.apiUrl,
    logger: boltLogger(logger, 'web-api'),
    ...web.paced,
    ...options.clientOptions,
  });
  if (metrics) app.use(requestMetrics(metrics));
  // One cache of who people are, for the listeners and the posts made in the background.
  const people = new GroupMembersCache(options.clock);
  const deps = buildDeps(observed, app.client, {
    authorize: appAuthorize(app),
    client: backgroundClient,
    paced: pacedClient,
    people,
  });
  apiDeps = deps;
  // /livez's event-loop windows close on the clock, never because someone read them.
  deps.background.every(livenessWindows(LIVENESS_WINDOW_MS, () => health.closeWindow()));
  registerListeners(app, deps, people, (type) => app.unhandledEvent(type));
  app.error(async (error) => {
    // The error policy answers listeners' errors; what reaches here failed in middleware itself.
    const original = (error as { original?: unknown }).original;
    logger.error({ err: original ?? error }, 'unhandled error in middleware');
  });
  return { app, deps, health, ...(metrics ? { metrics } : {}) };
}
