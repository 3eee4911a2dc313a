// Benchmark `api-load`: Slack ack latency while CI purges arrive over the HTTP API (issue 30),
// beside the same bot quiet in the same run: waves of 100 concurrent purges of 100 URLs each.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { HELD_JOB_KINDS } from '../src/observability/taps.js';
import type { AccessService } from '../src/services/access/access.js';
import { ApiTokenService } from '../src/services/api/api-tokens.js';
import { type BotHost, type BotProcess, CHANNEL, startBotHost, USER } from './bot-process.js';
import { ackTable, openLoop, summarize } from './open-loop.js';
import { attribute, mainThreadProfile, monotonicUs, profileShares } from './profile.js';
import { type Services, startServices } from './services.js';
import {
  cpuMark,
  cpuShares,
  fmt,
  type LatencySummary,
  machineState,
  median,
  pct,
  percentile,
  type Section,
  table,
} from './stats.js';

export const TITLE = 'Slash-command acks while CI purges over the HTTP API';

const env = process.env;
const SECONDS = Number(env.BENCH_API_SECONDS ?? 20);
const WARMUP_SECONDS = Number(env.BENCH_API_WARMUP_SECONDS ?? 5);
const ZONES_PER_SECOND = Number(env.BENCH_API_ACK_RATE ?? 20);
/** Purges asked for at once in a wave, and URLs in each (issue 30: 100 × 100). */
const PURGES = Number(env.BENCH_API_PURGES ?? 100);
const URLS = Number(env.BENCH_API_URLS ?? 100);
/** The sandbox answers this much later: a CDN API across a network. */
const CDN_LATENCY_MS = Number(env.BENCH_CDN_LATENCY_MS ?? 20);
const CDN_KEY = 'sk_bench_api_load_7c2e';
/** Each purge of a wave has a token of its own (a CI pipeline each), limited as in production. */
const RATE_LIMIT_PER_MINUTE = 600;
const FINAL = new Set(['succeeded', 'failed', 'rejected', 'expired', 'unknown']);
/** With BENCH_PROFILE=1 the bot's main thread is profiled (node --cpu-prof): where it went. */
const PROFILE = env.BENCH_PROFILE === '1';
/** Where the profile goes and stays (for a closer look); by default a folder removed at the end. */
const PROFILE_DIR = env.BENCH_PROFILE_DIR;
/** The bot's target, as for ack-load: acks under load within 1.5× of quiet. */
const TARGET_RATIO = 1.5;

interface Wave {
  /** POST answers (ms) and their statuses. */
  posts: Array<{ ms: number; status: number }>;
  /** From the wave's start until every purge of it was final (ms). */
  ms: number;
  outcomes: Record<string, number>;
}

/** One wave: PURGES POSTs at once, then each read (?wait=60) until it is final. */
async function wave(
  agent: Agent,
  url: string,
  secrets: string[],
  zones: string[],
  n: number,
): Promise<Wave> {
  const started = performance.now();
  const posts: Wave['posts'] = [];
  const outcomes: Record<string, number> = {};
  await Promise.all(
    secrets.map(async (secret, i) => {
      const zone = zones[i % zones.length] ?? '';
      const body = JSON.stringify({
        zone,
        urls: Array.from({ length: URLS }, (_, j) => `https://${zone}/bench/${n}/${i}/${j}.css`),
        reason: `bench wave ${n}`,
        context: { repository: `bench/repo-${i}`, commit: `${n}`, actor: 'bench' },
      });
      const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
      const sent = performance.now();
      const post = await request(`${url}/api/v1/purges`, {
        method: 'POST',
        dispatcher: agent,
        headers: { ...headers, 'idempotency-key': `bench-${n}-${i}` },
        body,
      });
      const answer = (await post.body.json()) as { url?: string; status?: string };
      posts.push({ ms: performance.now() - sent, status: post.statusCode });
      let status = post.statusCode === 202 ? (answer.status ?? '?') : `http ${post.statusCode}`;
      while (answer.url && !FINAL.has(status)) {
        const read = await request(`${url}${answer.url}?wait=60`, {
          dispatcher: agent,
          headers,
        });
        const state = (await read.body.json()) as { status?: string };
        status = read.statusCode === 200 ? (state.status ?? '?') : `http ${read.statusCode}`;
        if (read.statusCode !== 200) break;
      }
      outcomes[status] = (outcomes[status] ?? 0) + 1;
    }),
  );
  return { posts, ms: performance.now() - started, outcomes };
}

/**
 * Transactions committed in the bots' database so far (PostgreSQL's count; each query outside a
 * transaction is one): what the bot asked of the database, whatever the machine's load.
 */
async function transactions(host: BotHost): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    select xact_commit::text as n from pg_stat_database where datname = current_database()`.execute(
    host.store.db,
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Resolves once the bots' database holds no queued or running job but the rows held for recurring
 * work (HELD_JOB_KINDS: always there, due again after each round); read every 200 ms, 120 s at most.
 */
async function drained(host: BotHost): Promise<void> {
  const until = performance.now() + 120_000;
  for (;;) {
    const { rows } = await sql<{ n: string }>`
      select count(*)::text as n from jobs where state in ('queued', 'running')
        and kind not in (${sql.join(HELD_JOB_KINDS)})`.execute(host.store.db);
    if (Number(rows[0]?.n ?? 0) === 0) return;
    if (performance.now() > until) throw new Error('api-load: the warm-up left jobs running');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `/cdn zones` open loop for `seconds`; with `load`, waves of purges back to back meanwhile. */
async function phase(
  services: Services,
  bot: BotProcess,
  seconds: number,
  load?: { agent: Agent; secrets: string[]; zones: string[]; first: number },
  host?: BotHost,
) {
  const commits = host ? await transactions(host) : 0;
  const responseUrls = await services.mint(
    Array.from({ length: Math.ceil(seconds * ZONES_PER_SECOND) }, () => CHANNEL),
  );
  const before = cpuMark([bot.pid, services.pid]);
  const fromUs = monotonicUs();
  const stop = new AbortController();
  const waves: Wave[] = [];
  const purging = (async () => {
    if (!load) return;
    for (let n = load.first; !stop.signal.aborted; n++)
      waves.push(await wave(load.agent, bot.url, load.secrets, load.zones, n));
  })();
  const [acks] = await openLoop(
    { teamId: services.teamId, user: USER },
    [
      {
        perSecond: ZONES_PER_SECOND,
        text: () => 'zones',
        channel: () => CHANNEL,
        port: () => bot.port,
        responseUrls,
      },
    ],
    { durationMs: seconds * 1000 },
  );
  const after = cpuMark([bot.pid, services.pid]);
  const toUs = monotonicUs();
  const queries = host ? (await transactions(host)) - commits : undefined;
  // The wave still out when the window closed finishes after it, unmeasured by the acks.
  stop.abort();
  await purging;
  return {
    acks: summarize(acks?.samples ?? []),
    waves,
    queries,
    window: { from: fromUs, to: toUs },
    bot: cpuShares(before, after, bot.pid),
    services: cpuShares(before, after, services.pid).all,
  };
}

/**
 * The bot as in production (src/main.ts, HTTP mode, PostgreSQL) in a process of its own, the fake
 * Slack and the sandbox in another; this process sends and times. (a) `/cdn zones` at 20 a second
 * with nothing else; (b) the same stream while waves of 100 concurrent API purges of 100 URLs
 * each (a token each) run back to back, every purge read with `?wait=60` until it is final.
 */
export async function apiLoadBench(): Promise<Section> {
  const state = machineState();
  const services = await startServices({
    cdnLatencyMs: CDN_LATENCY_MS,
    cdnKey: CDN_KEY,
    user: USER,
  });
  const agent = new Agent({ connections: PURGES * 2, headersTimeout: 90_000 });
  const profileDir = PROFILE
    ? (PROFILE_DIR ?? (await mkdtemp(join(tmpdir(), 'bench-api-load-'))))
    : undefined;
  let host: BotHost | undefined;
  try {
    await services.addChannels([CHANNEL]);
    const zones = (await services.zones()).slice(0, 5).map((zone) => zone.name);
    host = await startBotHost({
      database: 'postgres',
      env: {
        SLACK_BOT_TOKEN: services.botToken,
        SLACK_API_URL: services.apiUrl,
        CDN_API_BASE_URL: services.baseUrl,
      },
    });
    await host.store.credentials.set(services.teamId, CDN_KEY, { userId: USER, validated: true });
    // createUnchecked makes a token as the admin's modal does after its admin check (no access needed).
    const tokens = new ApiTokenService({ store: host.store, access: {} as AccessService });
    const secrets: string[] = [];
    for (let i = 0; i < PURGES; i++)
      secrets.push(
        (
          await tokens.createUnchecked(services.teamId, USER, {
            name: `ci-${i}`,
            zones: null,
            kinds: ['urls_tags'],
            channelId: CHANNEL,
          })
        ).secret,
      );
    const bot = await host.spawnBot(
      {
        API_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE),
        // The bot's default unless the bench is told another (a comparison run).
        ...(env.BENCH_BACKGROUND_LOOP_PERCENT
          ? { BACKGROUND_LOOP_PERCENT: env.BENCH_BACKGROUND_LOOP_PERCENT }
          : {}),
      },
      profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {},
    );

    process.stdout.write('api-load: warm-up (one wave), then (a) quiet\n');
    await wave(agent, bot.url, secrets, zones, 0);
    // The warm-up's purges are final, but their Slack messages may still be paced out: (a) is
    // measured only once no job is left, so that it is quiet.
    await drained(host);
    await phase(services, bot, WARMUP_SECONDS);
    const quiet = await phase(services, bot, SECONDS, undefined, host);
    process.stdout.write(`api-load: (b) waves of ${PURGES} API purges × ${URLS} URLs\n`);
    const loaded = await phase(services, bot, SECONDS, { agent, secrets, zones, first: 1 }, host);
    const cdnRequests = (await services.summary()).sandboxRequests;
    await bot.kill('SIGTERM');
    const machine = state();
    const file = profileDir ? await mainThreadProfile(profileDir, bot.pid) : undefined;
    const profile = file ? await attribute(file, [[quiet.window], [loaded.window]]) : undefined;

    const posts = loaded.waves.flatMap((w) => w.posts);
    const outcomes: Record<string, number> = {};
    for (const w of loaded.waves)
      for (const [status, count] of Object.entries(w.outcomes))
        outcomes[status] = (outcomes[status] ?? 0) + count;
    const purges = posts.length;
    const ratio = (key: 'p50' | 'p95') => loaded.acks[key] / quiet.acks[key];
    const met = ratio('p95') <= TARGET_RATIO && loaded.acks.failed === 0;
    const row = (label: string, p: { acks: LatencySummary }) => ({ label, acks: p.acks });
    const cpu = (label: string, p: typeof quiet) => [
      label,
      pct(p.bot.mainRun),
      pct(p.bot.mainWait),
      pct(p.bot.all === undefined ? undefined : p.bot.all - (p.bot.mainRun ?? 0)),
      pct(p.services),
    ];
    return {
      title: TITLE,
      body: [
        'The bot as it runs in production (`node --import tsx src/main.ts`, HTTP mode, a fresh PostgreSQL ' +
          'database) in a process of its own; the fake Slack and the sandbox (answering in ' +
          `${CDN_LATENCY_MS} ms) in another; this process only sends and times. Signed \`/cdn zones\` commands ` +
          `go open loop, ${ZONES_PER_SECOND} a second for ${SECONDS} s, each timed from its scheduled send ` +
          `time to the end of the HTTP answer (the ack), after a ${WARMUP_SECONDS} s warm-up and one wave of ` +
          "purges, once no job of it is left (its Slack messages are paced out by Slack's limits for " +
          'about two minutes: before, they ran in (a) and made it anything but quiet). (a) the bot quiet; ' +
          `(b) the same stream while **waves of ${PURGES} concurrent API purges ` +
          `of ${URLS} URLs each** run back to back: each purge a \`POST /api/v1/purges\` with a token of its ` +
          `own (${PURGES} tokens, ${RATE_LIMIT_PER_MINUTE} requests a minute each, so every request takes ` +
          'its rate slot) and an Idempotency-Key, then `GET …?wait=60` until it is final, as the CI job of ' +
          'docs/ci.md does. Both conditions in the same run, one after the other. The bot keeps its ' +
          'defaults for the API under load (docs/api.md, "Under load"): 8 API requests worked on at once ' +
          '(API_MAX_IN_FLIGHT), the rest queued (API_MAX_QUEUED 500), 4 purge jobs at once, and ' +
          `background work paced to ${env.BENCH_BACKGROUND_LOOP_PERCENT ?? 'its default'}` +
          `${env.BENCH_BACKGROUND_LOOP_PERCENT ? '%' : ''} of the event loop (BACKGROUND_LOOP_PERCENT, ` +
          'default 30%: past it, job claims and purge batches wait their turn, and the API works on one ' +
          'request at a time).',
        '',
        ackTable([
          row('(a) bot quiet', quiet),
          row(`(b) bot, ${PURGES} × ${URLS}-URL API purges at a time`, loaded),
        ]),
        '',
        `Ack p50 (b) / (a): **${ratio('p50').toFixed(2)}×**, p95 (b) / (a): **${ratio('p95').toFixed(2)}×** ` +
          `(target: p95 within ${TARGET_RATIO}×, no failed ack): ${met ? '**met**' : '**not met**'}.`,
        '',
        table(
          ['API work in window (b)', 'value'],
          [
            ['waves (each until its last purge was final)', loaded.waves.length],
            ['purges asked for / URLs', `${purges} / ${(purges * URLS).toLocaleString('en-US')}`],
            [
              'outcomes',
              Object.entries(outcomes)
                .map(([s, n]) => `${s} ${n}`)
                .join(', '),
            ],
            [
              'POST answer p50 / p95 / max',
              `${fmt(
                percentile(
                  posts.map((p) => p.ms),
                  50,
                ),
              )} / ${fmt(
                percentile(
                  posts.map((p) => p.ms),
                  95,
                ),
              )} / ${fmt(Math.max(...posts.map((p) => p.ms)))}`,
            ],
            ['POSTs not answered 202', posts.filter((p) => p.status !== 202).length],
            [
              'a wave, from its POSTs to its last final status (median)',
              fmt(median(loaded.waves.map((w) => w.ms))),
            ],
            ['sandbox requests in the whole run', cdnRequests],
            [
              'database transactions in the window: (a) quiet / (b) loaded / (b) per purge',
              `${quiet.queries ?? '—'} / ${loaded.queries ?? '—'} / ${
                loaded.queries === undefined || purges === 0
                  ? '—'
                  : Math.round((loaded.queries - (quiet.queries ?? 0)) / purges)
              }`,
            ],
          ],
        ),
        '',
        'CPU, as a share of one core:',
        '',
        table(
          [
            'window',
            'bot main thread running',
            'bot main thread ready, waiting for a core',
            'bot other threads',
            'fake Slack + sandbox',
          ],
          [cpu('(a) quiet', quiet), cpu('(b) API purges', loaded)],
        ),
        ...(profile ? ['', ...profileShares(profile, ['(a) quiet', '(b) API purges'])] : []),
        '',
        `Measured with the ${machine}.`,
      ].join('\n'),
    };
  } finally {
    await agent.close();
    await host?.close();
    await services.close();
    if (profileDir && !PROFILE_DIR) await rm(profileDir, { recursive: true, force: true });
  }
}
