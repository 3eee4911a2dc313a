// Benchmark `ack-load`: the bot's ack latency under an open-loop /cdn zones stream, quiet, loaded.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startChild } from './ack-latency.js';
import {
  type BotHost,
  type BotProcess,
  CHANNEL,
  killOnExit,
  SIGNING_SECRET,
  startBotHost,
  USER,
} from './bot-process.js';
import { type DbProbe, startDbProbe } from './db-probe.js';
import { ackTable, type CommandStream, openLoop, type Sample, summarize } from './open-loop.js';
import { type Attribution, attribute, mainThreadProfile, monotonicUs } from './profile.js';
import { reportJobs } from './reports-scale.js';
import { postedOccurrences, type Services, startServices } from './services.js';
import {
  type CpuMark,
  cpuMark,
  cpuShares,
  fmt,
  type LatencySummary,
  machineShare,
  machineState,
  pct,
  percentile,
  type Section,
  table,
} from './stats.js';

const env = process.env;
const SECONDS = Number(env.BENCH_ACK_SECONDS ?? 30);
const WARMUP_SECONDS = Number(env.BENCH_ACK_WARMUP_SECONDS ?? 5);
const ZONES_PER_SECOND = Number(env.BENCH_ACK_RATE ?? 20);
const CHARTS_PER_SECOND = Number(env.BENCH_ACK_CHARTS ?? 4);
const REPORTS = Number(env.BENCH_ACK_REPORTS ?? 400);
/** The sandbox answers this much later: a CDN API across a network. */
const CDN_LATENCY_MS = Number(env.BENCH_CDN_LATENCY_MS ?? 20);
/** The bot's main thread is profiled (node --cpu-prof) unless BENCH_PROFILE=0. */
const PROFILE = env.BENCH_PROFILE !== '0';
/** Where the profiles go and stay (for a closer look); by default a folder removed at the end. */
const PROFILE_DIR = env.BENCH_PROFILE_DIR;
const CDN_KEY = 'sk_bench_ack_load_4b1d';
/** Writes a second of the database probe (bench/db-probe.ts), beside each condition. */
const PROBE_PER_SECOND = 10;
/** ReportDelivery.run's interval (main.ts keeps the default): the tick that finds due reports. */
const TICK_MS = 30_000;
/** Window (b) opens this long before the tick that finds the reports. */
const LEAD_MS = 2_000;
const ZONES_PER_CHANNEL = 5;
const CHART_CHANNELS = Array.from({ length: 8 }, (_, i) => `CCHART${i}`);
const REPORT_CHANNELS = Array.from(
  { length: Math.ceil(REPORTS / ZONES_PER_CHANNEL) },
  (_, i) => `CREPORT${i}`,
);
/** The bot's target: p99 under load within 1.5× of quiet, and under 250 ms. */
const TARGET_RATIO = 1.5;
const TARGET_P99_MS = 250;

interface Phase {
  zones: LatencySummary;
  /** The `/cdn zones` requests: when each was due (epoch ms), its latency, its status. */
  samples: Sample[];
  /** The database probe's writes in the same window. */
  database: LatencySummary;
  charts?: LatencySummary;
  senderLagP99: number;
  from: number;
  to: number;
  fromUs: number;
  toUs: number;
  cpu: {
    botMain: number | undefined;
    /** Ready to run but waiting for a core. */
    botMainWait: number | undefined;
    botOther: number | undefined;
    services: number | undefined;
    machine: number | undefined;
  };
}

/** CPU in a window, as shares of one core (the machine: of all its cores). */
function cpuBetween(a: CpuMark, b: CpuMark, bot: BotProcess | undefined, services: Services) {
  const botCpu = bot ? cpuShares(a, b, bot.pid) : {};
  return {
    botMain: botCpu.mainRun,
    botMainWait: botCpu.mainWait,
    botOther:
      botCpu.all === undefined || botCpu.mainRun === undefined
        ? undefined
        : botCpu.all - botCpu.mainRun,
    services: cpuShares(a, b, services.pid).all,
    machine: machineShare(a, b),
  };
}

async function phase(
  services: Services,
  probe: DbProbe,
  bot: BotProcess | undefined,
  port: number,
  seconds: number,
  charts: number,
  zoneNames: string[],
): Promise<Phase> {
  const zoneUrls = await services.mint(
    Array.from({ length: Math.ceil(seconds * ZONES_PER_SECOND) }, () => CHANNEL),
  );
  const chartCount = Math.ceil(seconds * charts);
  const chartUrls = await services.mint(
    Array.from({ length: chartCount }, (_, i) => CHART_CHANNELS[i % CHART_CHANNELS.length] ?? ''),
  );
  const streams: CommandStream[] = [
    {
      perSecond: ZONES_PER_SECOND,
      text: () => 'zones',
      channel: () => CHANNEL,
      port: () => port,
      responseUrls: zoneUrls,
    },
  ];
  if (charts > 0)
    streams.push({
      perSecond: charts,
      text: (i) => `analytics ${zoneNames[i % zoneNames.length]}`,
      channel: (i) => CHART_CHANNELS[i % CHART_CHANNELS.length] ?? '',
      port: () => port,
      responseUrls: chartUrls,
    });
  const pids = [services.pid, ...(bot ? [bot.pid] : [])];
  const before = cpuMark(pids);
  const fromUs = monotonicUs();
  const [[zones, chartResult], database] = await Promise.all([
    openLoop({ teamId: services.teamId, user: USER }, streams, { durationMs: seconds * 1000 }),
    probe.run(PROBE_PER_SECOND, { durationMs: seconds * 1000 }),
  ]);
  const toUs = monotonicUs();
  const after = cpuMark(pids);
  return {
    zones: summarize(zones?.samples ?? []),
    samples: zones?.samples ?? [],
    database: summarize(database),
    ...(chartResult ? { charts: summarize(chartResult.samples) } : {}),
    senderLagP99: percentile([...(zones?.senderLag ?? []), ...(chartResult?.senderLag ?? [])], 99),
    from: before.at,
    to: after.at,
    fromUs,
    toUs,
    cpu: cpuBetween(before, after, bot, services),
  };
}

async function until(what: string, done: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`ack-load: ${what} not within ${ms / 1000} s`);
    await delay(1_000);
  }
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Where the bot's main thread went: (a), (b), and the waits of (b)'s slow acks. */
function profileTable(profile: Attribution[], slowAcks: number): string[] {
  const [quiet, loaded, slow] = profile;
  if (!quiet || !loaded || !slow) return [];
  const share = (a: Attribution, ms: number) => pct(ms / Math.max(1, a.wallMs));
  const ran = (a: Attribution) => a.running.reduce((ms, c) => ms + c.ms, 0);
  const of = (a: Attribution, name: string) => a.running.find((c) => c.name === name)?.ms ?? 0;
  const names = [
    ...new Set([...slow.running, ...loaded.running].slice(0, 12).map((c) => c.name)),
  ].slice(0, 8);
  const top = slow.running.slice(0, 3).map((c) => `${c.name} ${share(slow, c.ms)}`);
  return [
    '',
    `Where the bot’s main thread went, from its V8 CPU profile (each sample given to the nearest frame of ours or ` +
      'of a package; time between two samples beyond the usual interval is time the thread was not running to ' +
      `take them: not scheduled). The last column adds up the waits of the ${slowAcks} acks of (b) slower than (a)’s p99:`,
    '',
    table(
      ['main thread', '(a) quiet', '(b) loaded', `(b) the ${slowAcks} slow acks’ waits`],
      [
        ['running', share(quiet, ran(quiet)), share(loaded, ran(loaded)), share(slow, ran(slow))],
        ...names.map((name) => [
          `… ${name}`,
          share(quiet, of(quiet, name)),
          share(loaded, of(loaded, name)),
          share(slow, of(slow, name)),
        ]),
        [
          'idle (awaiting I/O: the database, sockets)',
          share(quiet, quiet.idleMs),
          share(loaded, loaded.idleMs),
          share(slow, slow.idleMs),
        ],
        [
          'not scheduled (gaps in the profile)',
          share(quiet, quiet.unscheduledMs),
          share(loaded, loaded.unscheduledMs),
          share(slow, slow.unscheduledMs),
        ],
      ],
    ),
    '',
    slowAcks === 0
      ? 'No ack of (b) was slower than (a)’s p99.'
      : `While the slow acks waited, the main thread was running other work ${share(slow, ran(slow))} of the ` +
        `time (most: ${top.join(', ')}), idle awaiting I/O ${share(slow, slow.idleMs)}, and not scheduled ` +
        `${share(slow, slow.unscheduledMs)}.`,
  ];
}

/**
 * `/cdn zones` at a steady 20/s to the bot as a process of its own (src/main.ts, HTTP mode,
 * PostgreSQL): (a) quiet, (b) while `/cdn analytics` asks for 4 charts a second and 400 daily
 * reports fall due, and (c) a bare Bolt app that only acks, for reference. The fake Slack and the
 * sandbox run in a third process.
 */
export async function ackLoadBench(): Promise<Section> {
  const state = machineState();
  const services = await startServices({
    channelRateLimit: true,
    cdnLatencyMs: CDN_LATENCY_MS,
    cdnKey: CDN_KEY,
    user: USER,
  });
  const profileDir = PROFILE
    ? (PROFILE_DIR ?? (await mkdtemp(join(tmpdir(), 'bench-ack-load-'))))
    : undefined;
  let host: BotHost | undefined;
  let bare: ChildProcess | undefined;
  let probe: DbProbe | undefined;
  try {
    await services.addChannels([CHANNEL, ...CHART_CHANNELS, ...REPORT_CHANNELS]);
    const zones = (await services.zones()).slice(0, ZONES_PER_CHANNEL);
    const zoneNames = zones.map((zone) => zone.name);
    const slackEnv = {
      SLACK_BOT_TOKEN: services.botToken,
      SLACK_API_URL: services.apiUrl,
      CDN_API_BASE_URL: services.baseUrl,
    };

    host = await startBotHost({ database: 'postgres', env: slackEnv });
    await host.store.credentials.set(services.teamId, CDN_KEY, { userId: USER, validated: true });
    const database = host.database;
    if (database.kind !== 'postgres') throw new Error('ack-load runs on PostgreSQL');
    probe = await startDbProbe(database.url);

    // (c) The bare Bolt app, on its own: the floor of what an ack costs on this machine now.
    process.stdout.write('ack-load: bare Bolt app\n');
    const started = await startChild('bare', { ...slackEnv, SLACK_SIGNING_SECRET: SIGNING_SECRET });
    bare = started.child;
    killOnExit(bare);
    await phase(services, probe, undefined, started.port, WARMUP_SECONDS, 0, zoneNames);
    const bareRun = await phase(services, probe, undefined, started.port, SECONDS, 0, zoneNames);
    bare.kill('SIGKILL');

    // The bot, as it runs in production: src/main.ts, its chart workers, PostgreSQL.
    const bot = await host.spawnBot(
      {},
      profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {},
    );
    const up = (await bot.waitForLog((line) => line.msg === 'cdn-chatops is up')).time;
    const workers = await bot.waitForLog((line) => line.msg === 'chart workers started');

    process.stdout.write('ack-load: warm-up, then (a) quiet\n');
    await phase(services, probe, bot, bot.port, WARMUP_SECONDS, CHARTS_PER_SECOND, zoneNames);
    const quiet = await phase(services, probe, bot, bot.port, SECONDS, 0, zoneNames);

    // The reports fall due between two ticks of the bot's report loop (every 30 s from its
    // start), and the window opens just before the tick that finds them.
    let tick = up + TICK_MS * Math.ceil((Date.now() - up) / TICK_MS);
    if (tick - Date.now() < LEAD_MS + 3_000) {
      await delay(tick + 500 - Date.now());
      tick += TICK_MS;
    }
    const now = Date.now();
    // The sandbox's zones are the login account's.
    const login = await host.store.credentials.get(services.teamId);
    if (!login) throw new Error('ack-load: no login key');
    for (let i = 0; i < REPORTS; i++) {
      const zone = zones[i % zones.length];
      await host.store.schedules.create(
        {
          workspaceId: services.teamId,
          accountId: login.accountId,
          zoneId: zone?.id ?? '',
          zoneName: zone?.name ?? '',
          channelId: REPORT_CHANNELS[Math.floor(i / ZONES_PER_CHANNEL)] ?? '',
          createdBy: USER,
          timeOfDay: '09:00',
          timeZone: 'Europe/Paris',
          nextRunAt: now - 60_000,
        },
        { reports: Number.MAX_SAFE_INTEGER, reportsPerPerson: Number.MAX_SAFE_INTEGER },
      );
    }
    await delay(Math.max(0, tick - LEAD_MS - Date.now()));
    const postedBefore = await services.posted();
    process.stdout.write(`ack-load: (b) ${CHARTS_PER_SECOND} charts/s, ${REPORTS} reports due\n`);
    const loaded = await phase(
      services,
      probe,
      bot,
      bot.port,
      SECONDS,
      CHARTS_PER_SECOND,
      zoneNames,
    );

    // Every report and chart posted, then the bot stops (gracefully: its profile is written).
    const reportSet = new Set(REPORT_CHANNELS);
    await until(
      `${REPORTS} reports`,
      async () =>
        (await services.summary()).posts.filter(([, channel]) => reportSet.has(channel)).length >=
        REPORTS,
      Math.max(180_000, REPORTS * 1_000),
    );
    const summary = await services.summary();
    const jobs = await reportJobs(host.store);
    await bot.kill('SIGTERM');
    await probe.close();
    probe = undefined;
    await host.close();
    host = undefined;
    await services.close();
    const machine = state();

    const posts = summary.posts.slice(postedBefore);
    const reportPosts = posts.filter(([, channel]) => reportSet.has(channel));
    const chartPosts = posts.filter(([, channel]) => CHART_CHANNELS.includes(channel));
    const inWindow = (at: number) => at >= loaded.from && at <= loaded.to;
    const { duplicates } = postedOccurrences(reportPosts);
    const lastReport = Math.max(...reportPosts.map(([at]) => at));
    const queuedAt = jobs.firstQueued;
    const chartsAsked = Math.ceil(SECONDS * CHARTS_PER_SECOND);

    /** Epoch ms × 1000 + offset: the profile's clock (µs). */
    const offset = monotonicUs() - Date.now() * 1000;
    if (PROFILE_DIR) {
      // For a closer look: each request's time on the profile's clock (µs), its latency, status.
      const onProfileClock = (samples: Sample[]) =>
        samples.map(([at, ms, status]) => [at * 1000 + offset, ms, status]);
      await writeFile(
        join(PROFILE_DIR, `requests.${bot.pid}.json`),
        JSON.stringify({
          quiet: onProfileClock(quiet.samples),
          loaded: onProfileClock(loaded.samples),
        }),
      );
    }
    // The profile: both windows, and the waits of the (b) acks slower than (a)'s p99.
    const slow = loaded.samples.filter(([, ms]) => ms > quiet.zones.p99);
    const file = profileDir ? await mainThreadProfile(profileDir, bot.pid) : undefined;
    const profile = file
      ? await attribute(file, [
          [{ from: quiet.fromUs, to: quiet.toUs }],
          [{ from: loaded.fromUs, to: loaded.toUs }],
          slow.map(([at, ms]) => ({
            from: at * 1000 + offset,
            to: at * 1000 + offset + (Number.isFinite(ms) ? ms : 0) * 1000,
          })),
        ])
      : undefined;

    const ratio = loaded.zones.p99 / quiet.zones.p99;
    const met = ratio <= TARGET_RATIO && loaded.zones.p99 < TARGET_P99_MS;
    const cpuRow = (label: string, p: Phase) => [
      label,
      pct(p.cpu.botMain),
      pct(p.cpu.botMainWait),
      pct(p.cpu.botOther),
      pct(p.cpu.services),
      pct(p.cpu.machine),
    ];
    const profileSection = profile ? profileTable(profile, slow.length) : [];

    return {
      title: 'Slash-command acks under load (open loop)',
      body: [
        `The bot as it runs in production (\`node --import tsx src/main.ts\`, HTTP mode, a fresh PostgreSQL database, ` +
          `chart workers from the cores: ${String(workers.threads)} thread, a queue of ${String(workers.queue)}), ` +
          `in a process of its own; the fake Slack (one post per second per channel, 429 + Retry-After) and the sandbox ` +
          `(answering in ${CDN_LATENCY_MS} ms) in another; this process only sends and times. Signed \`/cdn zones\` ` +
          `commands go **open loop**: ${ZONES_PER_SECOND} a second on a fixed schedule for ${SECONDS} s, each timed from ` +
          'its *scheduled* send time to the end of the HTTP answer (the ack), so a slow bot cannot lower the load ' +
          `(every request has a trigger id of its own, so each one runs past the replay guard). Each condition after a ` +
          `${WARMUP_SECONDS} s warm-up (with charts, for the bot). (a) the bot quiet; (b) the same bot, the same stream, ` +
          `while \`/cdn analytics <zone>\` (24 h, hourly) is asked ${CHARTS_PER_SECOND} times a second over ` +
          `${CHART_CHANNELS.length} channels and ${REPORTS} daily reports (${REPORT_CHANNELS.length} channels × ` +
          `${ZONES_PER_CHANNEL} zones, inserted with their time in the past) fall due: the bot's 30 s tick queued them ` +
          `${secs(queuedAt - loaded.from)} into the window; (c) a bare Bolt app that only acks (bench/ack-server.ts), ` +
          'the same stream, for reference. Beside each, this process writes to the bots’ database ' +
          `${PROBE_PER_SECOND} times a second from a connection of its own (bench/db-probe.ts: the replay guard’s ` +
          'kind of INSERT … ON CONFLICT, one commit, timed from its scheduled time too): what a write cost the ' +
          'database right then. Our ack no longer waits for such a write: a command is acknowledged before the ' +
          'replay guard stores its trigger id. Chart workers run at nice 10 (CHART_WORKER_NICE), below the event loop, ' +
          'and encode their PNGs on that thread too.',
        '',
        ackTable([
          { label: '(a) bot quiet', acks: quiet.zones, database: quiet.database },
          {
            label: `(b) bot, ${CHARTS_PER_SECOND} charts/s + ${REPORTS} reports due`,
            acks: loaded.zones,
            database: loaded.database,
          },
          { label: '(c) bare Bolt app', acks: bareRun.zones, database: bareRun.database },
          ...(loaded.charts
            ? [{ label: '(b) the `/cdn analytics` commands’ own acks', acks: loaded.charts }]
            : []),
        ]),
        '',
        `p99 (b) / (a): **${ratio.toFixed(2)}×** (target: within ${TARGET_RATIO}×); (b) p99 ` +
          `**${fmt(loaded.zones.p99)}** (target: under ${TARGET_P99_MS} ms): ` +
          `${met ? '**met**' : '**not met**'}. For reference, (a) / (c): ${(quiet.zones.p99 / bareRun.zones.p99).toFixed(2)}×, ` +
          `(b) / (c): ${(loaded.zones.p99 / bareRun.zones.p99).toFixed(2)}×. The sender was at most ` +
          `${fmt(Math.max(quiet.senderLagP99, loaded.senderLagP99, bareRun.senderLagP99))} late (p99) on its own schedule.`,
        '',
        `Work done in window (b) (${SECONDS} s): ${chartsAsked} charts asked for, ` +
          `${chartPosts.filter(([at]) => inWindow(at)).length} posted within it (${chartPosts.length} in all), ` +
          `${summary.responses.busy} refused as busy; ${reportPosts.filter(([at]) => inWindow(at)).length} of ` +
          `${REPORTS} reports posted within it, all ${reportPosts.length} ${secs(lastReport - queuedAt)} after the tick ` +
          `queued them (${jobs.count} jobs), ${duplicates} posted twice; ${summary.rateLimited} Web API calls ` +
          'answered 429 in the whole run.',
        '',
        'CPU, as a share of one core (the machine: of all its cores):',
        '',
        table(
          [
            'window',
            'bot main thread running',
            'bot main thread ready, waiting for a core',
            'bot other threads (charts, GC)',
            'fake Slack + sandbox',
            'machine',
          ],
          [cpuRow('(a) quiet', quiet), cpuRow('(b) loaded', loaded), cpuRow('(c) bare', bareRun)],
        ),
        ...profileSection,
        '',
        `Measured with the ${machine}.`,
      ].join('\n'),
    };
  } finally {
    bare?.kill('SIGKILL');
    await probe?.close();
    await host?.close();
    await services.close();
    if (profileDir && !PROFILE_DIR) await rm(profileDir, { recursive: true, force: true });
  }
}
