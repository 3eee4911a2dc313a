// Benchmark: 1,000 watched zones on one process with a 1-minute interval. Simulated minutes (an
// injected clock moved 5 s at a time, the tick and the job runner doing the real work against the
// sandbox over HTTP and a SQLite file) measure the CPU one minute of evaluation takes and the CDN
// requests it makes, beside a bare baseline in the same run: the same 1,000 analytics reads by raw
// undici, nothing else. The sandbox answers in this process: its CPU is in both figures.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { WebClient } from '@slack/web-api';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { buildDeps } from '../src/app.js';
import { CdnTransport } from '../src/cdn/transport.js';
import type { Clock } from '../src/clock.js';
import { loadConfig, parseEncryptionKeys } from '../src/config.js';
import { startFakeSlack } from '../src/dev/fake-slack/server.js';
import { SANDBOX_DEMO_KEY, startSandbox } from '../src/dev/sandbox/server.js';
import { createLogger } from '../src/logger.js';
import { firstRunAt } from '../src/services/watches/watch-evaluation.js';
import { generateKey, Keyring } from '../src/store/crypto.js';
import { openStore } from '../src/store/index.js';
import { machineState, median, type Section, table } from './stats.js';

export const TITLE = 'Watches: 1,000 zones evaluated every minute on one process';

const ZONES = 1_000;
const INTERVAL_MS = 60_000;
const TICK_MS = 5_000;
/** Steady minutes measured (after the first, which also reads each zone's baseline). */
const MINUTES = 5;
const DAY = 86_400_000;

/** A clock the benchmark moves; sleeps are not used by what it drives (the tick is called). */
class SteppedClock implements Clock {
  constructor(private time: number) {}
  now(): number {
    return this.time;
  }
  sleep(): Promise<void> {
    return new Promise(() => undefined);
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

export async function watchesBench(): Promise<Section> {
  const state = machineState();
  const start = Date.parse('2026-11-23T12:00:00Z');
  const clock = new SteppedClock(start);
  const sandbox = await startSandbox({ clock, demoZones: false, bulkZones: ZONES });
  // Zones with a month of history, as a team's real zones: the automatic rules have a baseline.
  for (const zone of sandbox.state.list()) zone.createdAt = start - 30 * DAY;
  const dir = await mkdtemp(join(tmpdir(), 'bench-watches-'));
  const store = await openStore({
    database: { kind: 'sqlite', path: join(dir, 'bot.sqlite') },
    keyring: new Keyring(parseEncryptionKeys(generateKey('k1'))),
    clock,
  });
  const slack = await startFakeSlack();
  const transport = new CdnTransport({ connections: 8 });
  await store.credentials.set('T1', SANDBOX_DEMO_KEY, { userId: 'U1', validated: true });
  const config = loadConfig({
    BOT_MODE: 'console',
    SLACK_BOT_TOKEN: slack.botToken,
    WATCH_INTERVAL_MS: String(INTERVAL_MS),
    // One key's budget for 1,000 zones a minute (the default, 600, is for fewer).
    WATCH_CDN_REQUESTS_PER_MINUTE: '1500',
  });
  const deps = buildDeps(
    {
      config,
      store,
      transport,
      clock,
      logger: createLogger({ level: 'silent' }),
      cdnBaseUrl: sandbox.baseUrl,
      edgeCnameTarget: 'edge.bench.test',
    },
    new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl }),
  );
  const accountId = (await store.credentials.get('T1'))?.accountId ?? '';
  for (const zone of sandbox.state.list()) {
    await store.watches.upsert(
      {
        workspaceId: 'T1',
        accountId,
        zoneId: zone.id,
        zoneName: zone.name,
        channelId: 'C1',
        createdBy: 'U1',
        rules: [],
      },
      { status: 'active', firstRunAt: firstRunAt('T1', zone.id, INTERVAL_MS, clock.now()) },
      // The bench's zones, whatever their number: its subject is evaluation, not the limits.
      { watches: Number.MAX_SAFE_INTEGER, watchesPerPerson: Number.MAX_SAFE_INTEGER },
    );
  }
  deps.runner.start();

  /** One simulated minute: the tick every 5 s and the jobs it queued; its CPU and requests. */
  const minute = async () => {
    const requests = sandbox.requests.length;
    const cpu = cpuMs();
    const wall = performance.now();
    for (let t = 0; t < INTERVAL_MS; t += TICK_MS) {
      clock.advance(TICK_MS);
      await deps.watchEvaluation.tick();
      await deps.runner.settled();
    }
    return {
      cpu: cpuMs() - cpu,
      wall: performance.now() - wall,
      requests: sandbox.requests.length - requests,
    };
  };

  const first = await minute();
  const steady: Array<Awaited<ReturnType<typeof minute>>> = [];
  for (let i = 0; i < MINUTES; i++) steady.push(await minute());
  const evaluated = await store.db
    .selectFrom('watch_rule_states')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();

  // The baseline: the same 1,000 one-minute analytics reads, by raw undici, 8 at a time.
  const agent = new Agent({ connections: 8 });
  const bare = async () => {
    const until = new Date(Math.floor(clock.now() / 60_000) * 60_000);
    const since = new Date(until.getTime() - 60_000);
    const query = `since=${since.toISOString()}&until=${until.toISOString()}&granularity=minute`;
    const limit = pLimit(8);
    const cpu = cpuMs();
    const wall = performance.now();
    await Promise.all(
      sandbox.state.list().map((zone) =>
        limit(async () => {
          const answer = await request(
            `${sandbox.baseUrl}/zones/${zone.id}/analytics/traffic?${query}`,
            { dispatcher: agent, headers: { authorization: `Bearer ${SANDBOX_DEMO_KEY}` } },
          );
          await answer.body.json();
        }),
      ),
    );
    return { cpu: cpuMs() - cpu, wall: performance.now() - wall };
  };
  const baselines = [];
  for (let i = 0; i < 3; i++) baselines.push(await bare());

  await deps.runner.stop();
  await agent.close();
  await transport.close();
  await slack.close();
  await sandbox.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });

  const cpu = median(steady.map((m) => m.cpu));
  const wall = median(steady.map((m) => m.wall));
  const requests = median(steady.map((m) => m.requests));
  const baseCpu = median(baselines.map((b) => b.cpu));
  const share = (ms: number) => `${((ms / INTERVAL_MS) * 100).toFixed(1)}%`;
  const body = [
    `${ZONES.toLocaleString('en-US')} zones, one watch each, evaluated every minute (a 1-minute ` +
      'interval, each zone at its own phase in it). A simulated minute is 12 ticks 5 s apart on an ' +
      'injected clock, each followed by the jobs it queued, run by the job runner against the ' +
      'sandbox over HTTP on a SQLite file. CPU is this process’s (user + system) for the minute ' +
      '(the sandbox’s answers included, in both rows); its share is of one core over the minute ' +
      `the work stands for. Median of ${MINUTES} steady minutes, after a first one that also reads ` +
      `each zone's hourly baseline (once a day). ${state()}.`,
    '',
    table(
      ['path', 'CPU per minute', 'share of one core', 'wall time', 'CDN requests per minute'],
      [
        [
          'bare: 1,000 analytics reads (raw undici)',
          `${baseCpu.toFixed(0)} ms`,
          share(baseCpu),
          `${median(baselines.map((b) => b.wall)).toFixed(0)} ms`,
          ZONES,
        ],
        [
          'watches: a steady minute',
          `${cpu.toFixed(0)} ms (${(cpu / baseCpu).toFixed(2)}× bare)`,
          share(cpu),
          `${wall.toFixed(0)} ms`,
          `${requests} (${(requests / ZONES).toFixed(2)} a zone)`,
        ],
        [
          'watches: the first minute (with baselines)',
          `${first.cpu.toFixed(0)} ms (${(first.cpu / baseCpu).toFixed(2)}× bare)`,
          share(first.cpu),
          `${first.wall.toFixed(0)} ms`,
          `${first.requests} (${(first.requests / ZONES).toFixed(2)} a zone)`,
        ],
      ],
    ),
    '',
    `Rule states tracked at the end: ${Number(evaluated?.n ?? 0)} (a rule gets a row once it ` +
      'breaches). The targets: one request per watched zone per interval, evaluation under 5% of ' +
      'one core; the bot’s own share is the steady minute’s less the bare one’s.',
  ].join('\n');
  return { title: TITLE, body };
}
