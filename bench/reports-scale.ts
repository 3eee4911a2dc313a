// Benchmark `reports-scale`: 10,000 daily reports due at once on three replicas, acks meanwhile.
import { setTimeout as delay } from 'node:timers/promises';
import type { Installation } from '@slack/oauth';
import { sql } from 'kysely';
import type { Store } from '../src/store/index.js';
import { type BotHost, type BotProcess, CHANNEL, startBotHost, USER } from './bot-process.js';
import { type DbProbe, startDbProbe } from './db-probe.js';
import { ackTable, type CommandStream, openLoop, type Sample, summarize } from './open-loop.js';
import { benchToken, postedOccurrences, type Services, startServices } from './services.js';
import {
  type CpuMark,
  cpuMark,
  cpuShares,
  fmt,
  machineShare,
  machineState,
  pct,
  peakInWindow,
  processCpuMs,
  type Section,
  table,
} from './stats.js';

const env = process.env;
const REPORTS = Number(env.BENCH_REPORTS ?? 10_000);
const ZONES_PER_CHANNEL = 5;
const CHANNELS = Math.ceil(REPORTS / ZONES_PER_CHANNEL);
/** Workspaces the schedules belong to (each with its CDN key); channels are shared out among them. */
const WORKSPACES = Number(env.BENCH_SCALE_WORKSPACES ?? Math.min(200, CHANNELS));
const REPLICAS = Number(env.BENCH_SCALE_REPLICAS ?? 3);
const ZONES_PER_SECOND = Number(env.BENCH_SCALE_RATE ?? 20);
const QUIET_SECONDS = Number(env.BENCH_SCALE_QUIET_SECONDS ?? 30);
/** How long the reports may take before the run is called off (and reported as such). */
const TIMEOUT_SECONDS = Number(env.BENCH_SCALE_TIMEOUT_SECONDS ?? Math.max(300, REPORTS * 0.15));
const CDN_LATENCY_MS = Number(env.BENCH_CDN_LATENCY_MS ?? 20);
const PROBE_PER_SECOND = 10;
const CDN_KEY = 'sk_bench_reports_scale_9e2a';
/** ReportDelivery's defaults, which main.ts keeps. */
const TICK_MS = 30_000;
const JOBS_PER_REPLICA = 8;
const BATCH = 200;

export const TITLE = 'Daily reports at scale: 10,000 due at once on three replicas';

const OAUTH_CLIENT = { id: '1111.2222', secret: 'bench-client-secret' };

/** A workspace's OAuth install, as the installation store keeps it. */
function installationOf(teamId: string, token: string): Installation<'v2', false> {
  return {
    team: { id: teamId, name: teamId },
    enterprise: undefined,
    user: { id: USER, token: undefined, scopes: undefined },
    bot: {
      id: `B${teamId}`,
      userId: `UBOT${teamId}`,
      token,
      scopes: ['chat:write', 'files:write', 'files:read'],
    },
    appId: 'A0BENCH',
    tokenType: 'bot',
    isEnterpriseInstall: false,
    authVersion: 'v2',
  };
}

const channelOf = (c: number) => `CREP${String(c).padStart(5, '0')}`;
const workspaceOf = (c: number) => `TREP${String(c % WORKSPACES).padStart(4, '0')}`;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The ack stream: /cdn zones round-robin over the replicas, 20 a second, open loop. */
async function ackStream(
  services: Services,
  probe: DbProbe,
  bots: BotProcess[],
  options: { durationMs?: number; signal?: AbortSignal; seconds: number },
): Promise<{ acks: Sample[]; database: Sample[] }> {
  const urls = await services.mint(
    Array.from({ length: Math.ceil(options.seconds * ZONES_PER_SECOND) }, () => CHANNEL),
  );
  const stream: CommandStream = {
    perSecond: ZONES_PER_SECOND,
    text: () => 'zones',
    channel: () => CHANNEL,
    port: (i) => bots[i % bots.length]?.port ?? 0,
    responseUrls: urls,
  };
  const timing = {
    ...(options.durationMs === undefined ? {} : { durationMs: options.durationMs }),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const [[result], database] = await Promise.all([
    openLoop({ teamId: services.teamId, user: USER }, [stream], timing),
    probe.run(PROBE_PER_SECOND, timing),
  ]);
  return { acks: result?.samples ?? [], database };
}

/**
 * CPU of the PostgreSQL backends serving the bots' database (the probe's and this process's
 * included), followed by looking now and then: pg's pool closes idle connections and opens new
 * ones, so a backend is counted from when it was first seen, or from its start if it began inside
 * the window. One that came and went between two looks is missed.
 */
class DatabaseCpu {
  readonly #seen = new Map<number, { first: number; last: number }>();
  constructor(
    private readonly host: BotHost,
    private readonly since: number,
  ) {}

  async look(): Promise<void> {
    const { rows } = await sql<{ pid: number; started: number }>`
      select pid, extract(epoch from backend_start) * 1000 as started from pg_stat_activity
      where datname = current_database()
    `.execute(this.host.store.db);
    for (const row of rows) {
      const pid = Number(row.pid);
      const cpu = processCpuMs(pid);
      if (cpu === undefined) continue;
      const known = this.#seen.get(pid);
      if (known) known.last = cpu;
      else this.#seen.set(pid, { first: Number(row.started) >= this.since ? 0 : cpu, last: cpu });
    }
  }

  /** CPU ms used in the window by the backends seen. */
  get used(): number {
    let total = 0;
    for (const { first, last } of this.#seen.values()) total += last - first;
    return total;
  }
}

interface Window {
  from: number;
  to: number;
  start: CpuMark;
  end: CpuMark;
  /** CPU ms of the database's backends in the window. */
  databaseMs: number;
}

/** What became of the daily report jobs, from the jobs table (PostgreSQL). */
export async function reportJobs(store: Store) {
  const row = await store.db
    .selectFrom('jobs')
    .select([
      sql<number>`count(*)`.as('count'),
      sql<number>`min(created_at)`.as('firstQueued'),
      sql<number>`max(created_at)`.as('lastQueued'),
      sql<number>`count(*) filter (where state = 'succeeded')`.as('succeeded'),
      sql<number>`count(*) filter (where state = 'failed')`.as('failed'),
      sql<number>`count(*) filter (where attempts > 1)`.as('retried'),
      sql<number>`max(attempts)`.as('maxAttempts'),
    ])
    .where('kind', '=', 'daily_report')
    .executeTakeFirstOrThrow();
  return {
    count: Number(row.count),
    firstQueued: Number(row.firstQueued),
    lastQueued: Number(row.lastQueued),
    succeeded: Number(row.succeeded),
    failed: Number(row.failed),
    retried: Number(row.retried),
    maxAttempts: Number(row.maxAttempts),
  };
}

/** Runs `work` while following the CPU of `pids` and of the database's backends. */
async function measured<T>(
  host: BotHost,
  pids: number[],
  work: () => Promise<T>,
): Promise<{ value: T; window: Window }> {
  const start = cpuMark(pids);
  const database = new DatabaseCpu(host, start.at);
  await database.look();
  const looks = setInterval(() => void database.look().catch(() => undefined), 2_000);
  const value = await work().finally(() => clearInterval(looks));
  await database.look();
  const end = cpuMark(pids);
  return { value, window: { from: start.at, to: end.at, start, end, databaseMs: database.used } };
}

function cpuRows(window: Window, bots: BotProcess[], services: Services) {
  const { start, end } = window;
  const perBot = bots.map((bot) => cpuShares(start, end, bot.pid));
  const sum = (values: Array<number | undefined>) =>
    values.reduce<number>((n, v) => n + (v ?? 0), 0);
  const mainRuns = sum(perBot.map((c) => c.mainRun));
  return {
    mainRuns,
    otherThreads: sum(perBot.map((c) => c.all)) - mainRuns,
    mainRun: mainRuns / Math.max(1, bots.length),
    mainWait: sum(perBot.map((c) => c.mainWait)) / Math.max(1, bots.length),
    services: cpuShares(start, end, services.pid).all,
    database: window.databaseMs / Math.max(1, window.to - window.from),
    machine: machineShare(start, end),
  };
}

/**
 * 10,000 daily reports due at the same moment, posted by three bot processes on one PostgreSQL
 * database (a fresh one, dropped after), against a fake Slack that allows one post per second per
 * channel (429 + Retry-After) in a process of its own. Measures the time until every report is
 * posted, posts per second, 429s, duplicates per occurrence, Web API calls per method, and the ack
 * latency of an open-loop /cdn zones stream sent to the replicas meanwhile, against the same
 * replicas quiet. BENCH_REPORTS (and the other BENCH_SCALE_* variables) scale it down.
 */
export async function reportsScaleBench(): Promise<Section> {
  const state = machineState();
  const teams = Array.from({ length: WORKSPACES }, (_, w) => workspaceOf(w));
  const services = await startServices({
    channelRateLimit: true,
    tier4: true,
    teams,
    cdnLatencyMs: CDN_LATENCY_MS,
    cdnKey: CDN_KEY,
    user: USER,
  });
  let host: BotHost | undefined;
  let probe: DbProbe | undefined;
  try {
    const channels = Array.from({ length: CHANNELS }, (_, c) => channelOf(c));
    await services.addChannels([CHANNEL, ...channels]);
    const zones = (await services.zones()).slice(0, ZONES_PER_CHANNEL);
    host = await startBotHost({
      database: 'postgres',
      // Installed by OAuth in every workspace, each with its own token: Slack's limits per
      // workspace then apply to each, as they would.
      env: {
        SLACK_CLIENT_ID: OAUTH_CLIENT.id,
        SLACK_CLIENT_SECRET: OAUTH_CLIENT.secret,
        SLACK_STATE_SECRET: 'bench-state-secret',
        SLACK_API_URL: services.apiUrl,
        CDN_API_BASE_URL: services.baseUrl,
      },
    });
    const { store, database } = host;
    if (database.kind !== 'postgres') throw new Error('reports-scale runs on PostgreSQL');
    probe = await startDbProbe(database.url);

    // The schedules, not due yet: they all fall due at once below, with one UPDATE.
    process.stdout.write(`reports-scale: ${REPORTS} schedules in ${CHANNELS} channels\n`);
    await store.installations.storeInstallation(installationOf(services.teamId, services.botToken));
    for (const team of teams)
      await store.installations.storeInstallation(installationOf(team, benchToken(team)));
    await store.credentials.set(services.teamId, CDN_KEY, { userId: USER, validated: true });
    for (let w = 0; w < WORKSPACES; w++)
      await store.credentials.set(workspaceOf(w), CDN_KEY, { userId: USER, validated: true });
    // Each workspace's login account, whose zones its reports are of.
    const accountOf = new Map<string, string>();
    for (const workspaceId of [
      services.teamId,
      ...Array.from({ length: WORKSPACES }, (_, w) => workspaceOf(w)),
    ]) {
      const login = await store.credentials.get(workspaceId);
      if (login) accountOf.set(workspaceId, login.accountId);
    }
    const later = Date.now() + 12 * 3_600_000;
    for (let first = 0; first < REPORTS; first += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, REPORTS - first) }, (_, k) => {
          const i = first + k;
          const c = Math.floor(i / ZONES_PER_CHANNEL);
          const zone = zones[i % ZONES_PER_CHANNEL];
          return store.schedules.create(
            {
              workspaceId: workspaceOf(c),
              accountId: accountOf.get(workspaceOf(c)) ?? '',
              zoneId: zone?.id ?? '',
              zoneName: zone?.name ?? '',
              channelId: channelOf(c),
              createdBy: USER,
              timeOfDay: '09:00',
              timeZone: 'Europe/Paris',
              nextRunAt: later,
            },
            { reports: Number.MAX_SAFE_INTEGER, reportsPerPerson: Number.MAX_SAFE_INTEGER },
          );
        }),
      );
    }

    process.stdout.write(`reports-scale: ${REPLICAS} replicas\n`);
    const bots: BotProcess[] = [];
    for (let r = 0; r < REPLICAS; r++) bots.push(await host.spawnBot());
    const pids = () => [services.pid, ...bots.map((bot) => bot.pid)];

    // Warm-up, then the replicas quiet (only their 30 s ticks, finding nothing due).
    await ackStream(services, probe, bots, { durationMs: 5_000, seconds: 5 });
    process.stdout.write('reports-scale: quiet\n');
    const { value: quiet, window: quietWindow } = await measured(host, pids(), () =>
      ackStream(services, probe as DbProbe, bots, {
        durationMs: QUIET_SECONDS * 1000,
        seconds: QUIET_SECONDS,
      }),
    );

    // Every report due now: the replicas' next ticks (each every 30 s from its start) find them.
    const postedBefore = await services.posted();
    const limitedBefore = (await services.summary()).rateLimited;
    const dueAt = Date.now();
    const { value: run, window: runWindow } = await measured(host, pids(), async () => {
      await store.db.updateTable('schedules').set({ next_run_at: dueAt }).execute();
      process.stdout.write(`reports-scale: ${REPORTS} reports due\n`);
      const stop = new AbortController();
      const acks = ackStream(services, probe as DbProbe, bots, {
        signal: stop.signal,
        seconds: TIMEOUT_SECONDS + 60,
      });
      let allPosted = false;
      while (!allPosted && Date.now() < dueAt + TIMEOUT_SECONDS * 1000) {
        await delay(2_000);
        allPosted = (await services.posted()) - postedBefore >= REPORTS;
      }
      stop.abort();
      return { allPosted, ...(await acks) };
    });
    const { allPosted } = run;
    const summary = await services.summary();
    const jobs = await reportJobs(store);
    const paused = await store.db
      .selectFrom('schedules')
      .select(sql<number>`count(*)`.as('count'))
      .where('status', '<>', 'active')
      .executeTakeFirstOrThrow();
    const perReplica = bots.map(
      (bot) =>
        bot.logs((line) => line.msg === 'job finished' && line.kind === 'daily_report').length,
    );
    const warnings = bots.flatMap((bot) =>
      bot.logs((line) => line.level === 40 || line.level === 50).map((line) => String(line.msg)),
    );
    const warningCounts = new Map<string, number>();
    for (const msg of warnings) warningCounts.set(msg, (warningCounts.get(msg) ?? 0) + 1);
    for (const bot of bots) await bot.kill('SIGTERM');
    await probe.close();
    probe = undefined;
    await host.close();
    host = undefined;
    await services.close();
    const machine = state();

    const posts = summary.posts.slice(postedBefore);
    const { occurrences, duplicates } = postedOccurrences(posts);
    const missing = REPORTS - occurrences;
    const times = posts.map(([at]) => at).sort((a, b) => a - b);
    const firstPost = times[0] ?? Number.NaN;
    const lastPost = times[times.length - 1] ?? Number.NaN;
    const peak10s = peakInWindow(times, 10_000);
    const rateLimited = summary.rateLimited - limitedBefore;
    const quietAcks = summarize(quiet.acks);
    const loadedAcks = summarize(run.acks);
    const ratio = loadedAcks.p99 / quietAcks.p99;
    const quietCpu = cpuRows(quietWindow, bots, services);
    const runCpu = cpuRows(runWindow, bots, services);
    const methods = Object.entries(summary.methods)
      .filter(([method]) => method.startsWith('files.') || method.startsWith('chat.'))
      .sort(([a], [b]) => a.localeCompare(b));

    const workerMsPerReport = (runCpu.otherThreads * (runWindow.to - runWindow.from)) / REPORTS;
    const workspacePeak = Math.max(0, ...methods.map(([, m]) => m.peakPerWorkspaceMinute));
    const cpuRow = (label: string, c: ReturnType<typeof cpuRows>) => [
      label,
      pct(c.mainRuns),
      pct(c.otherThreads),
      pct(c.mainRun),
      pct(c.mainWait),
      pct(c.database),
      pct(c.services),
      pct(c.machine),
    ];

    return {
      title: TITLE,
      body: [
        `${REPORTS.toLocaleString('en')} report schedules (${CHANNELS.toLocaleString('en')} channels × ${ZONES_PER_CHANNEL} zones, ` +
          `in ${WORKSPACES} workspaces, each installed by OAuth with a token of its own) made due at the same moment with one UPDATE, on ${REPLICAS} bot ` +
          'processes as they run in production (`node --import tsx src/main.ts`, HTTP mode, default settings: ' +
          `${JOBS_PER_REPLICA} report jobs at once each, a tick every ${TICK_MS / 1000} s taking ${BATCH} due schedules a transaction, ` +
          'chart workers from the cores) on one fresh PostgreSQL database. The fake Slack (one post per second per ' +
          'channel, and each file method at most 100 a minute per workspace as Tier 4, else 429 with Retry-After) ' +
          `and the sandbox (answering in ${CDN_LATENCY_MS} ms) run in a process ` +
          'of their own. Each report reads two days of hourly analytics, renders its chart in a worker and uploads it ' +
          '(files.getUploadURLExternal, the bytes, files.completeUploadExternal). Meanwhile this process sends ' +
          `\`/cdn zones\` open loop, ${ZONES_PER_SECOND} a second round-robin over the replicas, timed from each ` +
          `request's scheduled time to its ack, and writes to the database ${PROBE_PER_SECOND} times a second ` +
          `(bench/db-probe.ts); the same replicas quiet for ${QUIET_SECONDS} s before are the baseline.`,
        '',
        table(
          [
            'reports',
            'posted',
            'time to post all',
            'first post',
            'per second (mean)',
            'per second (best 10 s)',
            '429s',
            'posted twice',
            'not posted',
          ],
          [
            [
              REPORTS,
              posts.length,
              allPosted ? `**${secs(lastPost - dueAt)}**` : `not within ${TIMEOUT_SECONDS} s`,
              secs(firstPost - dueAt),
              (posts.length / ((lastPost - dueAt) / 1000)).toFixed(1),
              (peak10s / 10).toFixed(1),
              rateLimited,
              `**${duplicates}**`,
              missing,
            ],
          ],
        ),
        '',
        `Times are from the moment they fell due. The replicas' ticks queued the ${jobs.count.toLocaleString('en')} ` +
          `jobs from ${secs(jobs.firstQueued - dueAt)} to ${secs(jobs.lastQueued - dueAt)} after it; ` +
          `${jobs.succeeded} succeeded, ${jobs.failed} failed, ${jobs.retried} took more than ` +
          `one attempt (at most ${jobs.maxAttempts}); ${Number(paused.count)} schedules paused. Reports per ` +
          `replica: ${perReplica.join(', ')}. Duplicates: **${duplicates}** (target: 0), counted per occurrence ` +
          '(a channel and a report title, i.e. zone and day) as distinct files shared. ' +
          (warningCounts.size > 0
            ? `Warnings and errors the replicas logged: ${[...warningCounts].map(([msg, n]) => `“${msg}” ×${n}`).join(', ')}.`
            : 'The replicas logged no warning or error.'),
        '',
        '**Slack Web API calls** (the fake Slack answers 429 past one post per second in a channel and past ' +
          '100 calls a minute of a file method in a workspace, Tier 4):',
        '',
        table(
          [
            'method',
            'calls',
            'most in any 60 s, all workspaces',
            'most in any 60 s, one workspace',
            '429s',
          ],
          methods.map(([method, m]) => [
            method,
            m.calls,
            m.peakPerMinute,
            m.peakPerWorkspaceMinute,
            summary.rateLimitedBy[method] ?? 0,
          ]),
        ),
        '',
        `Each replica takes a slot before each post and each file call (a row per channel and per workspace's ` +
          `method in the shared database, moved on by one statement), so the three keep to one post per 1.2 s per ` +
          `channel and 80 calls a minute per workspace between them (of Tier 4's 100, 20 are left for charts people ask for): at most ${workspacePeak} calls of a file ` +
          `method in one workspace in any minute here.`,
        '',
        '**Acks meanwhile** (`/cdn zones`, open loop):',
        '',
        ackTable([
          {
            label: `replicas quiet (${QUIET_SECONDS} s)`,
            acks: quietAcks,
            database: summarize(quiet.database),
          },
          {
            label: `while the reports post (${secs(runWindow.to - runWindow.from)})`,
            acks: loadedAcks,
            database: summarize(run.database),
          },
        ]),
        '',
        `Ack p99 during the run / quiet: **${ratio.toFixed(2)}×** (${fmt(loadedAcks.p99)} against ${fmt(quietAcks.p99)}).`,
        '',
        'CPU, as a share of one core (the machine: of all its cores):',
        '',
        table(
          [
            'window',
            `${REPLICAS} replicas’ main threads`,
            'their other threads (chart workers, GC)',
            'a replica’s main thread running (mean)',
            'its main thread ready, waiting for a core (mean)',
            'PostgreSQL backends of the database',
            'fake Slack + sandbox',
            'machine',
          ],
          [cpuRow('quiet', quietCpu), cpuRow('reports posting', runCpu)],
        ),
        '',
        `Where the time goes: while the reports posted, the machine's cores were ${pct(runCpu.machine)} busy. ` +
          `The replicas' other threads (chart workers, GC) took ${pct(runCpu.otherThreads)} of a core ` +
          `(${workerMsPerReport.toFixed(0)} ms of CPU a report), their main threads ${pct(runCpu.mainRuns)}, the database's backends ` +
          `${pct(runCpu.database)}, the fake Slack and the sandbox ${pct(runCpu.services)}; other processes the rest. ` +
          `A replica's main thread was ready to run but waiting for a core ${pct(runCpu.mainWait)} of the time ` +
          `(${pct(quietCpu.mainWait)} quiet), against ${pct(runCpu.mainRun)} running: an ack waits for a core (the ` +
          `database, which no ack waits on any more, answered the probe's writes at p99 ` +
          `${fmt(summarize(quiet.database).p99)} quiet, ${fmt(summarize(run.database).p99)} during the run).`,
        '',
        `Measured with the ${machine}.`,
      ].join('\n'),
    };
  } finally {
    await probe?.close();
    await host?.close();
    await services.close();
  }
}
