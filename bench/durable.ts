// Benchmark: from a crash to the resumed purge job. The bot runs as a real process; a URL purge
// with slow batches is killed (SIGKILL) mid-way, and the time is taken from the kill to the job's
// "job resumed" line and to the first batch the next process sends, beside the lease the dead
// process held: by a process started after the kill (start-up included), and by a second replica
// already running (the runner's takeover alone).
import { setTimeout as delay } from 'node:timers/promises';
import { type BotProcess, startWorld, USER, type World } from './bot-process.js';
import { machineState, median, type Section, table } from './stats.js';

/** Each purge batch is answered this long after it arrives: the purge is under way at the kill. */
const SLOW_MS = 300;
/** URLs per purge: 40 batches of 30, about 3 s of batches at 4 in flight. */
const URLS = 1_200;
/**
 * Batches answered before the kill; then half a batch's time more, then a part of the heartbeat's
 * period (lease ÷ 3), spread evenly over the trials, so that the kills fall all over its cycle.
 */
const KILL_AFTER = 4;
const TRIALS = 3;
const LEASES = [2_000, 5_000];
/** The runner's poll interval (src/jobs/runner.ts default; main.ts does not set it). */
const POLL_MS = 1_000;

type Mode = 'fresh' | 'replica';

interface Trial {
  leaseMs: number;
  mode: Mode;
  /** How long the dead process's lease still ran at the kill. */
  leaseLeft: number;
  /** From the kill. */
  resumed: number;
  firstBatch: number;
  /** From the lease's expiry. */
  resumedAfterExpiry: number;
  firstBatchAfterExpiry: number;
  /** What the new process's runner took after it could: from max(up, lease expiry) to "job resumed". */
  runnerShare: number;
  /** A process started after the kill: spawn → "cdn-chatops is up". */
  startup?: number;
  stepsDoneAtKill: number;
}

interface Startup {
  /** spawn → "starting cdn-chatops": node, tsx, loading the modules, the config. */
  boot: number;
  /** "starting cdn-chatops" → "cdn-chatops is up": the store (migrations), the Slack app. */
  open: number;
  total: number;
}

const isPurge = (path: string) => path.endsWith('/purge');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const signed = (ms: number) => `${ms < 0 ? '−' : '+'} ${(Math.abs(ms) / 1000).toFixed(2)} s`;

async function startupOf(bot: BotProcess): Promise<Startup> {
  const starting = await bot.waitForLog((line) => line.msg === 'starting cdn-chatops');
  const up = await bot.waitForLog((line) => line.msg === 'cdn-chatops is up');
  return {
    boot: starting.time - bot.spawnedAt,
    open: up.time - starting.time,
    total: up.time - bot.spawnedAt,
  };
}

async function until<T>(what: string, look: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await look();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`durable bench: ${what} not within ${ms} ms`);
    await delay(25);
  }
}

/**
 * One purge killed mid-way in whichever bot holds it; the job is then resumed by the other bot
 * (mode 'replica') or by one started after the kill ('fresh'). Resolves with the figures and the
 * bots alive after it, the one that resumed the job first.
 */
async function trial(
  world: World,
  bots: BotProcess[],
  mode: Mode,
  leaseMs: number,
  n: number,
  /** Which of the TRIALS kills of this lease and mode: sets where in the heartbeat's cycle it falls. */
  i: number,
  startups: Startup[],
): Promise<{ result: Trial; alive: BotProcess[] }> {
  const { sandbox, store } = world;
  const env = { JOB_LEASE_MS: String(leaseMs) };
  sandbox.clearFaults();
  sandbox.inject({
    kind: 'latency',
    ms: SLOW_MS,
    path: /\/purge$/,
    times: Number.MAX_SAFE_INTEGER,
  });
  const urls = Array.from({ length: URLS }, (_, k) => `https://example.com/bench/${n}/${k}.js`);
  const [first] = bots;
  if (!first) throw new Error('durable bench: no bot');
  // A replica looks at the queue every POLL_MS from its start: the purge starts at a random point
  // of that cycle, as it would in production (otherwise the bench's own rhythm would fix it).
  if (mode === 'replica') await delay(Math.random() * POLL_MS);
  const asked = Date.now();
  const { status } = await first.command(`purge example.com ${urls.join(' ')}`, USER);
  if (status !== 200) throw new Error(`durable bench: /cdn purge answered ${status}`);
  await sandbox.waitFor((r) => isPurge(r.path) && r.at >= asked, KILL_AFTER);
  await delay(SLOW_MS / 2 + ((i + 0.5) / TRIALS) * (leaseMs / 3));

  const job = await until('the running purge job', () =>
    store.db
      .selectFrom('jobs')
      .select(['id', 'lease_owner'])
      .where('kind', '=', 'purge')
      .where('state', '=', 'running')
      .executeTakeFirst(),
  );
  // Whichever bot claimed it (the one asked, nearly always) is the one killed.
  const holder = bots.find((bot) => job.lease_owner?.startsWith(`worker-${bot.pid}-`));
  if (!holder) throw new Error(`durable bench: job held by ${job.lease_owner}, not a bot of ours`);
  const killedAt = Date.now();
  await holder.kill('SIGKILL');
  // Read at once: a process that takes the job over writes a lease of its own.
  const dead = await store.jobs.get(job.id);
  const leaseUntil = dead?.leaseUntil ?? Number.NaN;
  const done = await store.db
    .selectFrom('job_steps')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('job_id', '=', job.id)
    .where('result', 'is not', null)
    .executeTakeFirstOrThrow();
  if (dead?.leaseOwner !== job.lease_owner)
    throw new Error('durable bench: the job changed hands before its lease was read');
  const alive = bots.filter((bot) => bot !== holder);
  let next = alive[0];
  let startup: Startup | undefined;
  if (mode === 'fresh') {
    next = await world.spawnBot(env);
    startup = await startupOf(next);
    startups.push(startup);
    alive.unshift(next);
  }
  if (!next) throw new Error('durable bench: no replica to take over');

  const resumedLine = await next.waitForLog(
    (line) => line.msg === 'job resumed' && line.job === job.id,
  );
  // Past the kill by more than any send of the dead process could be (none was under way).
  const [resent] = await sandbox.waitFor((r) => isPurge(r.path) && r.at > killedAt + 100);
  if (!resent) throw new Error('durable bench: no batch after the kill');

  // The rest is not measured: answered at once, then the job must end well, every URL sent.
  sandbox.clearFaults();
  await until('the resumed job to succeed', async () =>
    (await store.jobs.get(job.id))?.state === 'succeeded' ? true : undefined,
  );
  const sent = new Set(
    sandbox.requests
      .filter((r) => isPurge(r.path) && r.at >= asked)
      .flatMap((r) => (r.body as { files?: string[] }).files ?? []),
  );
  const missing = urls.filter((url) => !sent.has(url));
  if (missing.length > 0) throw new Error(`durable bench: ${missing.length} URLs never sent`);

  const upAt = startup ? next.spawnedAt + startup.total : 0;
  const result: Trial = {
    leaseMs,
    mode,
    leaseLeft: leaseUntil - killedAt,
    resumed: resumedLine.time - killedAt,
    firstBatch: resent.at - killedAt,
    resumedAfterExpiry: resumedLine.time - leaseUntil,
    firstBatchAfterExpiry: resent.at - leaseUntil,
    runnerShare: resumedLine.time - Math.max(upAt, leaseUntil),
    ...(startup ? { startup: startup.total } : {}),
    stepsDoneAtKill: Number(done.count),
  };
  process.stdout.write(`durable: ${JSON.stringify(result)}\n`);
  return { result, alive };
}

const spread = (values: number[], show: (ms: number) => string) =>
  `${show(median(values))} (${show(Math.min(...values))} … ${show(Math.max(...values))})`;

export async function durableBench(): Promise<Section> {
  const state = machineState();
  const world = await startWorld();
  const trials: Trial[] = [];
  const startups: Startup[] = [];
  let n = 0;
  try {
    for (const leaseMs of LEASES) {
      const env = { JOB_LEASE_MS: String(leaseMs) };
      const first = await world.spawnBot(env);
      startups.push(await startupOf(first));
      let bots = [first];
      for (let i = 0; i < TRIALS; i++) {
        const { result, alive } = await trial(world, bots, 'fresh', leaseMs, n++, i, startups);
        trials.push(result);
        bots = alive;
      }
      // A second replica, already up: it takes the job over once the lease runs out.
      const standby = await world.spawnBot(env);
      startups.push(await startupOf(standby));
      bots.push(standby);
      for (let i = 0; i < TRIALS; i++) {
        const { result, alive } = await trial(world, bots, 'replica', leaseMs, n++, i, startups);
        trials.push(result);
        const replacement = await world.spawnBot(env);
        startups.push(await startupOf(replacement));
        bots = [...alive, replacement];
      }
      for (const bot of bots) await bot.kill('SIGKILL');
    }
  } finally {
    await world.close();
  }
  const machine = state();

  const rows = LEASES.flatMap((leaseMs) =>
    (['fresh', 'replica'] as const).map((mode) => {
      const these = trials.filter((t) => t.leaseMs === leaseMs && t.mode === mode);
      const pick = (f: (t: Trial) => number) => these.map(f);
      return [
        `${leaseMs}`,
        mode === 'fresh' ? 'started after the kill' : 'already running',
        spread(
          pick((t) => t.leaseLeft),
          seconds,
        ),
        spread(
          pick((t) => t.resumed),
          seconds,
        ),
        `lease expiry ${spread(
          pick((t) => t.resumedAfterExpiry),
          signed,
        )}`,
        `lease expiry ${spread(
          pick((t) => t.firstBatchAfterExpiry),
          signed,
        )}`,
        spread(
          pick((t) => t.runnerShare),
          seconds,
        ),
        mode === 'fresh'
          ? spread(
              pick((t) => t.startup ?? Number.NaN),
              seconds,
            )
          : '—',
      ];
    }),
  );
  const boot = startups.map((s) => s.boot);
  const open = startups.map((s) => s.open);
  const total = startups.map((s) => s.total);
  const worst = Math.max(...trials.map((t) => t.runnerShare));
  const within = trials.filter((t) => t.firstBatchAfterExpiry <= 1_000).length;
  const fresh = trials.filter((t) => t.mode === 'fresh');
  const slowStart = fresh.filter((t) => (t.startup ?? 0) > t.leaseLeft).length;
  return {
    title: 'Purge jobs: from a crash to the resumed job',
    body: [
      `The bot as a real process (\`node --import tsx src/main.ts\`, HTTP mode, SQLite), the fake Slack and the ` +
        `sandbox in the benchmark’s process. A /cdn purge of ${URLS} URLs (${URLS / 30} batches, 4 in flight), each ` +
        `batch answered ${SLOW_MS} ms after it arrives; once ${KILL_AFTER} are answered (then ${SLOW_MS / 2} ms more, ` +
        'so that no batch is being sent, then ⅙, ½ or ⅚ of the heartbeat’s period, so that the kills fall all over its ' +
        'cycle), the process holding the job is killed with SIGKILL. Times are from the kill ' +
        'to the "job resumed" line of the process that takes the job over (pino’s own time) and to the first batch ' +
        'that reaches the sandbox after the kill; "lease expiry" is the dead process’s `lease_until`, read from the ' +
        'database right after the kill. *Started after the kill*: a new process on the same database, spawned as soon as ' +
        'the old one has died (its start-up is part of the time); *already running*: a second replica up before the ' +
        'purge (started at a random point of its 1 s polling cycle), which shows the runner’s takeover alone. ' +
        `${TRIALS} kills each, median (min … max). The runner’s share ` +
        'is from the moment the new process could take the job (up, and the lease expired) to "job resumed".',
      '',
      table(
        [
          'JOB_LEASE_MS',
          'process taking over',
          'lease left at the kill',
          'kill → "job resumed"',
          '"job resumed" at',
          'first batch resent at',
          'runner’s share',
          'start-up (spawn → up)',
        ],
        rows,
      ),
      '',
      `${within} of ${trials.length} resumptions sent their first batch within lease expiry + 1 s (target). ` +
        `At the kills, ${Math.min(...trials.map((t) => t.stepsDoneAtKill))} to ${Math.max(...trials.map((t) => t.stepsDoneAtKill))} ` +
        `of the ${URLS / 30} batches were done; every trial’s job then succeeded with every URL sent. ` +
        'The lease left at a kill is between two thirds of the lease and all of it: the heartbeat renews it every ' +
        `third of the lease, and nothing else does. Once the lease has expired, a running replica finds the job at ` +
        `its next look at the queue, every ${POLL_MS / 1000} s (the runner’s default \`pollMs\`, which main.ts does not ` +
        `set): on average half of that, at worst all of it (the worst runner’s share here: ${seconds(worst)}). A new ` +
        'process looks at once when its runner starts: the job waits for the later of its start-up and the lease ' +
        `(the start-up was the later in ${slowStart} of the ${fresh.length} kills with a process started after them), ` +
        'then, if the lease was the later, up to a poll.',
      '',
      `Start-up of the ${startups.length} bot processes spawned (median, min … max): ${spread(total, seconds)} from ` +
        `spawn to "cdn-chatops is up", of which ${spread(boot, seconds)} until "starting cdn-chatops" (node, tsx ` +
        `compiling and loading the modules, the config) and ${spread(open, seconds)} after it (the store opened and ` +
        'migrated — already migrated here — and the Slack app started).',
      '',
      `Measured with the ${machine}.`,
    ].join('\n'),
  };
}
