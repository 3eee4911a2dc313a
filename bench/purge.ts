// Benchmark: a 10,000-URL purge through the bot's whole path (a durable job: the plan and every
// batch stored, then run by the job runner with a write per batch and the message's state
// checkpointed), beside the CDN client alone and raw undici sending the same batches, in the same
// run against the same sandbox; then the SQL statements that one such purge issues, by kind.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { WebClient } from '@slack/web-api';
import BetterSqlite3 from 'better-sqlite3';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { buildDeps } from '../src/app.js';
import { CdnClient } from '../src/cdn/client.js';
import { bodyFor, planPurge as planBatches } from '../src/cdn/purge.js';
import { CdnTransport } from '../src/cdn/transport.js';
import { systemClock } from '../src/clock.js';
import { loadConfig, parseEncryptionKeys } from '../src/config.js';
import type { AppDeps } from '../src/deps.js';
import { startFakeSlack } from '../src/dev/fake-slack/server.js';
import { SANDBOX_DEMO_KEY, type Sandbox, startSandbox } from '../src/dev/sandbox/server.js';
import { createLogger } from '../src/logger.js';
import type { Caller } from '../src/services/access/access.js';
import { parsePurgeArgs } from '../src/services/purge/purge-targets.js';
import { generateKey, Keyring } from '../src/store/crypto.js';
import { openStore, type Store } from '../src/store/index.js';
import { kindOf, openCountedStore, type Statement, type WriteKind } from './counted-store.js';
import { fmt, machineState, median, type Section, table, timed } from './stats.js';

const URL_COUNT = 10_000;
const BATCH = 30;
const CONCURRENCY = 4;
const ROUNDS = 9;
/** The lease the timed runs use: JOB_LEASE_MS's default. */
const DEFAULT_LEASE_MS = 15_000;
/** The person purging: a member of workspace T1 (no operators group is set). */
const BENCHER: Caller = {
  workspaceId: 'T1',
  userId: 'U1',
  directory: {
    user: async () => ({ isAdmin: false, timeZone: 'UTC' }),
    groupMembers: async () => [],
    inConversation: async () => true,
  },
};
/** A short lease (the fault tests'), under which a 2-second purge renews its lease a few times. */
const SHORT_LEASE_MS = 2_000;

const gc = (globalThis as { gc?: () => void }).gc;
const keyring = () => new Keyring(parseEncryptionKeys(generateKey('k1')));
const isPurge = (path: string) => path.endsWith('/purge');

const FILES = Array.from(
  { length: URL_COUNT },
  (_, i) => `https://example.com/static/${i}.js?v=${i % 7}`,
);

/** The bot's services on `store`, with a fake Slack on loopback for the purge's message. */
async function startBot(sandbox: Sandbox, transport: CdnTransport, store: Store, leaseMs: number) {
  await store.credentials.set('T1', SANDBOX_DEMO_KEY, { userId: 'U1', validated: true });
  const slack = await startFakeSlack();
  slack.addUser({ id: 'U1', name: 'bench' });
  slack.addChannel({ id: 'C1', name: 'ops', botMember: true });
  const config = loadConfig({
    BOT_MODE: 'console',
    SLACK_BOT_TOKEN: slack.botToken,
    JOB_LEASE_MS: String(leaseMs),
    // A thousand purges by one person: no flood limit.
    CHANGE_RATE_LIMIT: '0',
  });
  const deps: AppDeps = buildDeps(
    {
      config,
      store,
      transport,
      clock: systemClock,
      logger: createLogger({ level: 'silent' }),
      cdnBaseUrl: sandbox.baseUrl,
      edgeCnameTarget: 'edge.bench.test',
    },
    new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl }),
  );
  // As in the bot: the runner's loop runs (it also looks at the queue every pollMs, 1 s).
  deps.runner.start();

  /**
   * What /cdn purge runs after parsing the command: every URL checked against the zone, the job
   * stored (its plan and every batch), then run by the runner, and waited for until its last
   * write. Its message goes through a fresh response_url, as a slash command's does: four uses
   * (start, two milestones, result), each checkpointed before it is made.
   */
  const purge = async (): Promise<string> => {
    const parsed = parsePurgeArgs(['example.com', ...FILES]);
    if (parsed.kind !== 'items') throw new Error('unexpected parse');
    const plan = await deps.purges.plan(BENCHER, 'C1', parsed);
    if (plan.rejected.length + plan.elsewhere.length > 0) throw new Error('bench URLs refused');
    const { jobId } = await deps.purges.start(plan, {
      userId: 'U1',
      channelId: 'C1',
      issuedAt: Date.now(),
      visibility: 'in_channel',
      responseUrl: slack.mintResponseUrl('C1', 'U1'),
    });
    // Resolves when the job's attempt has ended: after its result, audit entry, last checkpoint
    // and the job's own `finish` write. It waits on the job, not on the runner's poll.
    await deps.runner.settled();
    return jobId;
  };

  /** The job ended well, with every checkpoint written before `purge` resolved. */
  const check = async (jobId: string) => {
    const [job, record] = await Promise.all([
      store.jobs.get(jobId),
      store.purges.get(`${jobId}-0`),
    ]);
    const checkpoint = job?.checkpoint as { announced?: boolean; message?: { uses?: number } };
    if (job?.state !== 'succeeded' || record?.status !== 'succeeded')
      throw new Error(`bot purge ${jobId} ended ${job?.state}/${record?.status}`);
    if (!checkpoint.announced || checkpoint.message?.uses !== 4)
      throw new Error(`bot purge ${jobId}: checkpoint ${JSON.stringify(checkpoint)}`);
  };

  return {
    deps,
    purge,
    check,
    async close() {
      await deps.runner.stop();
      await slack.close();
    },
  };
}

async function measure(sandbox: Sandbox, label: string) {
  const zone = sandbox.state.byName('example.com');
  if (!zone) throw new Error('demo zone missing');
  const batches = planBatches({ files: FILES }, BATCH);

  const transport = new CdnTransport({ connections: CONCURRENCY });
  const client = new CdnClient({ baseUrl: sandbox.baseUrl, apiKey: SANDBOX_DEMO_KEY, transport });
  const dir = await mkdtemp(join(tmpdir(), 'bench-purge-'));
  const store = await openStore({
    database: { kind: 'sqlite', path: join(dir, 'bot.sqlite') },
    keyring: keyring(),
  });
  const bot = await startBot(sandbox, transport, store, DEFAULT_LEASE_MS);
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  const url = `${sandbox.baseUrl}/zones/${zone.id}/purge`;
  const headers = {
    authorization: `Bearer ${SANDBOX_DEMO_KEY}`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  const jobs: string[] = [];

  const paths: Array<[string, () => Promise<void>]> = [
    [
      'raw undici',
      async () => {
        const limit = pLimit(CONCURRENCY);
        await Promise.all(
          batches.map((batch) =>
            limit(async () => {
              const response = await request(url, {
                method: 'POST',
                dispatcher: agent,
                headers,
                body: JSON.stringify(bodyFor(batch)),
              });
              await response.body.json();
              if (response.statusCode !== 200)
                throw new Error(`raw purge got ${response.statusCode}`);
            }),
          ),
        );
      },
    ],
    [
      'CdnClient.purge',
      async () => {
        const report = await client.purge(zone.id, { files: FILES });
        if (!report.ok) throw new Error('client purge failed');
      },
    ],
    [
      'bot: plan + job + run + record',
      async () => {
        jobs.push(await bot.purge());
      },
    ],
  ];

  for (const [, run] of paths) await run(); // warm-up: JIT, connections, zone cache
  const times = new Map(paths.map(([name]) => [name, [] as number[]]));
  /** Main-thread busy time (event-loop utilization's `active`): the path's CPU and the sandbox's. */
  const busy = new Map(paths.map(([name]) => [name, [] as number[]]));
  /** Per run: until the first batch reached the sandbox, and after the last one did. */
  const edges = new Map(
    paths.map(([name]) => [name, { before: [] as number[], after: [] as number[] }]),
  );
  const requests = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order each round so drift and GC pauses fall on every path alike.
    for (let i = 0; i < paths.length; i++) {
      const [name, run] = paths[(i + round) % paths.length] as [string, () => Promise<void>];
      // Each path starts on a collected heap: the last path's garbage is not this one's to pay.
      gc?.();
      const from = sandbox.requests.length;
      const loop = performance.eventLoopUtilization();
      const startedAt = Date.now();
      const { ms } = await timed(run);
      const endedAt = Date.now();
      busy.get(name)?.push(performance.eventLoopUtilization(loop).active);
      // Counted once the sandbox has logged every answer (it logs a request as it answers).
      const sent = sandbox.requests.slice(from).filter((r) => isPurge(r.path));
      requests.set(name, sent.length);
      times.get(name)?.push(ms);
      const arrivals = sent.map((r) => r.at);
      edges.get(name)?.before.push(Math.min(...arrivals) - startedAt);
      edges.get(name)?.after.push(endedAt - Math.max(...arrivals));
    }
  }
  for (const jobId of jobs) await bot.check(jobId);
  await agent.close();
  await bot.close();
  await transport.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
  const raw = median(times.get('raw undici') ?? []);
  const clientMs = median(times.get('CdnClient.purge') ?? []);
  const BOT = 'bot: plan + job + run + record';
  const botMs = median(times.get(BOT) ?? []);
  const edge = (name: string, which: 'before' | 'after') => median(edges.get(name)?.[which] ?? []);
  return {
    label,
    rows: paths.map(([name]) => {
      const m = median(times.get(name) ?? []);
      return [
        name,
        fmt(m),
        requests.get(name) ?? 0,
        `${(m / raw).toFixed(2)}×`,
        `${(m / clientMs).toFixed(2)}×`,
        fmt(median(busy.get(name) ?? [])),
      ];
    }),
    ratio: botMs / raw,
    clientRatio: clientMs / raw,
    extraMs: botMs - raw,
    extraBusyMs: median(busy.get(BOT) ?? []) - median(busy.get('raw undici') ?? []),
    beforeMs: edge(BOT, 'before') - edge('raw undici', 'before'),
    afterMs: edge(BOT, 'after') - edge('raw undici', 'after'),
  };
}

interface Count {
  statements: Map<WriteKind, number>;
  /** Claims that took the job (the job's attempts); the other claims found nothing. */
  claimed: number;
  batches: number;
  sqlMs: number;
  stepSqlMs: number;
  /** From the job's `finish` write to the purge's promise resolving. */
  finishToSettledMs: number;
  /** From the enqueue's COMMIT to the claim of the job. */
  commitToClaimMs: number;
}

/** One purge (after a warm-up one) on a store that logs every SQL statement. */
async function countStatements(sandbox: Sandbox, leaseMs: number): Promise<Count> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-purge-count-'));
  const log: Array<Statement & { kind: WriteKind; at: number }> = [];
  const store = await openCountedStore(join(dir, 'bot.sqlite'), keyring(), (statement) =>
    log.push({ ...statement, kind: kindOf(statement.sql), at: performance.now() }),
  );
  const transport = new CdnTransport({ connections: CONCURRENCY });
  const bot = await startBot(sandbox, transport, store, leaseMs);
  await bot.check(await bot.purge());
  log.length = 0;
  const before = sandbox.requests.filter((r) => isPurge(r.path)).length;
  const jobId = await bot.purge();
  const settledAt = performance.now();
  const seen = [...log];
  await bot.check(jobId);
  const job = await store.jobs.get(jobId);
  const batches = sandbox.requests.filter((r) => isPurge(r.path)).length - before;
  await bot.close();
  await transport.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });

  const statements = new Map<WriteKind, number>();
  for (const { kind } of seen) statements.set(kind, (statements.get(kind) ?? 0) + 1);
  const finish = seen.find((s) => s.kind === 'finish');
  const commit = seen.find((s) => s.kind === 'transaction' && /^commit/i.test(s.sql));
  const claim = seen.find((s) => s.kind === 'claim' && commit && s.at > commit.at);
  return {
    statements,
    claimed: job?.attempts ?? 0,
    batches,
    sqlMs: seen.reduce((sum, s) => sum + s.ms, 0),
    stepSqlMs: seen.filter((s) => s.kind === 'step result').reduce((sum, s) => sum + s.ms, 0),
    finishToSettledMs: finish ? settledAt - finish.at : Number.NaN,
    commitToClaimMs: commit && claim ? claim.at - commit.at : Number.NaN,
  };
}

/**
 * One batch's step write through the repository (`jobs.completeStep`: the query built by Kysely,
 * then prepared by better-sqlite3, as every statement is), beside the very same SQL prepared
 * once and run with better-sqlite3 alone, alternating on one job's steps. Per write, µs.
 */
async function stepWriteCost(): Promise<{ repository: number; prepared: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-purge-step-'));
  const path = join(dir, 'bot.sqlite');
  const seen: Statement[] = [];
  const store = await openCountedStore(path, keyring(), (statement) => seen.push(statement));
  await store.workspaces.ensure('T1');
  const steps = planBatches({ files: FILES }, BATCH).map((batch) => ({ ...batch, group: 0 }));
  const sqlite = new BetterSqlite3(path);
  const result = JSON.stringify({ ok: true, purgeId: 'purge_0123456789' });
  const times = { repository: [] as number[], prepared: [] as number[] };
  try {
    for (let run = 0; run < 3; run++) {
      const { job } = await store.jobs.enqueue({
        workspaceId: 'T1',
        kind: 'bench',
        payload: {},
        steps,
      });
      const claimed = await store.jobs.claim('bench', DEFAULT_LEASE_MS, ['bench']);
      if (claimed?.id !== job.id) throw new Error('bench job not claimed');
      seen.length = 0;
      await store.jobs.completeStep(job.id, 'bench', 0, JSON.parse(result));
      const [write] = seen;
      if (!write || kindOf(write.sql) !== 'step result') throw new Error('no step write seen');
      // completeStep's parameters: result, job id, idx, job id, owner, state.
      const statement = sqlite.prepare(write.sql);
      for (let idx = 1; idx < steps.length; idx++) {
        const started = performance.now();
        if (idx % 2 === 1) {
          if (!(await store.jobs.completeStep(job.id, 'bench', idx, JSON.parse(result))))
            throw new Error(`step ${idx} not written`);
          if (run > 0) times.repository.push(performance.now() - started);
        } else {
          const parameters = [result, job.id, idx, job.id, 'bench', 'running'];
          if (statement.run(...parameters).changes !== 1)
            throw new Error(`step ${idx} not written`);
          await Promise.resolve();
          if (run > 0) times.prepared.push(performance.now() - started);
        }
      }
    }
  } finally {
    sqlite.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
  return {
    repository: median(times.repository) * 1000,
    prepared: median(times.prepared) * 1000,
  };
}

function statementsTable(counts: Array<[string, Count]>): string {
  const n = (count: Count, kind: WriteKind) => count.statements.get(kind) ?? 0;
  const writesOf = (count: Count) =>
    WRITES.reduce((sum, [, kinds]) => sum + kinds.reduce((s, k) => s + n(count, k), 0), 0) -
    // Of the claims, only the one that took the job changed a row.
    (n(count, 'claim') - count.claimed);
  const rows: Array<Array<string | number>> = WRITES.map(([label, kinds]) => [
    label,
    ...counts.map(([, count]) => {
      const total = kinds.reduce((sum, kind) => sum + n(count, kind), 0);
      return kinds.includes('claim') ? count.claimed : total;
    }),
  ]);
  rows.push(['**writes in all**', ...counts.map(([, count]) => `**${writesOf(count)}**`)]);
  rows.push([
    '**writes per batch**',
    ...counts.map(([, count]) => `**${(writesOf(count) / count.batches).toFixed(3)}**`),
  ]);
  rows.push([
    'not writes: claims that found nothing (the loop looking), reads',
    ...counts.map(([, count]) => `${n(count, 'claim') - count.claimed}, ${n(count, 'read')}`),
  ]);
  rows.push([
    'transaction statements (BEGIN, COMMIT of the enqueue)',
    ...counts.map(([, count]) => n(count, 'transaction')),
  ]);
  rows.push(['batches sent', ...counts.map(([, count]) => count.batches)]);
  return table(['statement', ...counts.map(([label]) => label)], rows);
}

const WRITES: Array<[string, WriteKind[]]> = [
  ['enqueue: the job row', ['enqueue: job']],
  ['enqueue: the step rows (one multi-row INSERT per 500 steps)', ['enqueue: steps']],
  ['claim that took the job', ['claim']],
  ['step results (one per batch)', ['step result']],
  ['checkpoints (the message’s state, “announced”)', ['checkpoint']],
  ['lease renewals (heartbeat every lease ÷ 3)', ['lease renewal']],
  ['finish (the job’s state)', ['finish', 'release']],
  ['purge record', ['purge record']],
  ['audit entry', ['audit entry']],
  ['other writes', ['other write']],
];

export async function purgeBench(): Promise<Section> {
  const state = machineState();
  const results = [];
  const counts: Array<[string, Count]> = [];
  for (const [label, latency] of [
    ['sandbox on loopback, no added latency (CPU cost only)', 0],
    ['sandbox answering in 20 ms (an API across a network)', 20],
  ] as const) {
    const sandbox = await startSandbox({ maxPurgeItems: BATCH });
    if (latency > 0)
      sandbox.inject({
        kind: 'latency',
        ms: latency,
        path: /purge$/,
        times: Number.MAX_SAFE_INTEGER,
      });
    results.push(await measure(sandbox, label));
    if (latency > 0) {
      counts.push([
        `lease ${DEFAULT_LEASE_MS / 1000} s (default)`,
        await countStatements(sandbox, DEFAULT_LEASE_MS),
      ]);
      counts.push([
        `lease ${SHORT_LEASE_MS / 1000} s`,
        await countStatements(sandbox, SHORT_LEASE_MS),
      ]);
    }
    await sandbox.close();
  }
  const step = await stepWriteCost();
  const [main] = counts;
  const count = main?.[1];
  const machine = state();
  return {
    title: 'Purge: 10,000 URLs',
    body: [
      `${URL_COUNT.toLocaleString('en')} URLs of one zone, batches of ${BATCH}, ${CONCURRENCY} requests in flight, median of ${ROUNDS} rounds ` +
        'with the order rotated each round (and a garbage collection before each), after a warm-up. ' +
        '*raw undici* sends the same bodies with bare undici; *CdnClient.purge* is the API client alone; ' +
        '*bot* is what `/cdn purge` runs after parsing, as a durable job: every URL checked against the zone, ' +
        'the job and its 334 steps stored (`purges.start`), then run by the job runner (a write per batch), ' +
        'its message sent through a response_url to a fake Slack on loopback (four uses, each checkpointed ' +
        'first), the purge record, the audit entry and the job’s `finish` written. The clock stops when ' +
        '`runner.settled()` resolves, which waits on the job’s attempt itself (not on the runner’s 1 s poll): ' +
        `in the counted run below it resolved ${count ? fmt(count.finishToSettledMs) : '?'} after the job’s \`finish\` write, ` +
        `and the job was claimed ${count ? fmt(count.commitToClaimMs) : '?'} after its enqueue committed. ` +
        'Each bot run is checked afterwards: job and record succeeded, checkpoint `{announced, uses: 4}`. ' +
        `SQLite, as \`openStore\` opens it (WAL, synchronous=NORMAL). Measured with the ${machine}.`,
      ...results.flatMap((result) => [
        '',
        `**${result.label}**`,
        '',
        table(
          [
            'path',
            'median wall time',
            'requests',
            'vs raw undici',
            'vs CdnClient',
            'main thread busy',
          ],
          result.rows,
        ),
        '',
        `Bot / raw undici: **${result.ratio.toFixed(2)}×** (${fmt(result.extraMs)} more); CdnClient / raw undici: ${result.clientRatio.toFixed(2)}× (target: within 1.1×). ` +
          `The bot kept the main thread busy ${fmt(result.extraBusyMs)} longer than raw undici; its first batch left ` +
          `${fmt(result.beforeMs)} later (URL checks, the job stored and claimed, its steps read, the “Purging…” post ` +
          `and its two checkpoints) and it ended ${fmt(result.afterMs)} later after its last batch (record, audit, ` +
          'result message and its checkpoint, `finish`); the rest is spread over the batches.',
      ]),
      '',
      '**Store writes for one purge** (the 20 ms sandbox, one purge after a warm-up one, every SQL ' +
        'statement counted through Kysely’s `log` option on a store opened as `openStore` opens it)',
      '',
      statementsTable(counts),
      '',
      count
        ? `Kysely’s log timed the bot path’s statements (lease ${DEFAULT_LEASE_MS / 1000} s) at ${fmt(count.sqlMs)} in all, ` +
          `the ${count.statements.get('step result') ?? 0} step results at ${fmt(count.stepSqlMs)} (prepare and run, and the wait until the awaiting code resumes). ` +
          'Lease renewals scale with the purge’s duration, one per lease ÷ 3 (none within the default 15 s lease ' +
          'for a 2-second purge). The command itself writes once more before `start` (the change-rate ' +
          'counter, `flood.take`), not counted here. ' +
          `One step write through the repository (\`jobs.completeStep\`) takes ${step.repository.toFixed(0)} µs of the main thread ` +
          `(median), the same SQL prepared once and run with better-sqlite3 alone ${step.prepared.toFixed(0)} µs: ` +
          'the write itself is cheap; building the query with Kysely and preparing it anew each time (Kysely’s ' +
          'SQLite driver does not keep prepared statements) is most of it, paid once per batch on the event loop.'
        : '',
    ].join('\n'),
  };
}
