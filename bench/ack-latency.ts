// Benchmark: slash-command ack latency of our app beside a bare Bolt app, each in its own process.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { startServices } from './services.js';
import { fmt, median, percentile, type Section, table } from './stats.js';

const COMMANDS = 500;
const CONCURRENCY = 50;
const WARMUP = 100;
/** Rounds per app, alternated so machine drift hits both; medians are reported. */
const ROUNDS = 3;
const SECRET = 'bench-signing-secret';
const CDN_KEY = 'bench-cdn-key';

/** Our app or a bare Bolt app (bench/ack-server.ts) in a process of its own, listening. */
export async function startChild(
  which: 'ours' | 'bare',
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/ack-server.ts', which], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /READY (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${which} exited with ${code}`)));
  });
  return { child, port };
}

export async function ackLatencyBench(): Promise<Section> {
  // The fake Slack and the sandbox live in a process of their own: served from this one, the
  // app's response_url posts would slow the very event loop that times its acks.
  const ready = await startServices({ cdnKey: CDN_KEY });
  const mint = (count: number) => ready.mint(Array.from({ length: count }, () => 'C1'));
  const env = {
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_BOT_TOKEN: ready.botToken,
    SLACK_API_URL: ready.apiUrl,
    CDN_API_BASE_URL: ready.baseUrl,
    CDN_EDGE_CNAME_TARGET: 'edge.bench.test',
    BENCH_TEAM: ready.teamId,
    BENCH_CDN_KEY: CDN_KEY,
  };
  const agent = new Agent({ connections: CONCURRENCY });

  const run = async (port: number, count: number, text: string) => {
    const responseUrls = await mint(count);
    const limit = pLimit(CONCURRENCY);
    const latencies: number[] = [];
    let failures = 0;
    await Promise.all(
      responseUrls.map((responseUrl) =>
        limit(async () => {
          const body = new URLSearchParams({
            team_id: ready.teamId,
            user_id: 'U1',
            channel_id: 'C1',
            command: '/cdn',
            text,
            response_url: responseUrl,
            // One of its own each: a repeated trigger id is a replay, acknowledged and not run.
            trigger_id: `bench.${randomUUID()}`,
          }).toString();
          const timestamp = Math.floor(Date.now() / 1000);
          const started = performance.now();
          const response = await request(`http://127.0.0.1:${port}/slack/events`, {
            method: 'POST',
            dispatcher: agent,
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'x-slack-request-timestamp': String(timestamp),
              'x-slack-signature': `v0=${createHmac('sha256', SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`,
            },
            body,
          });
          await response.body.dump();
          latencies.push(performance.now() - started);
          if (response.statusCode !== 200) failures++;
        }),
      ),
    );
    return { latencies, failures };
  };

  const rounds: Record<'ours' | 'bare', Array<{ p50: number; p99: number; failures: number }>> = {
    ours: [],
    bare: [],
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const which of ['bare', 'ours'] as const) {
      const { child, port } = await startChild(which, env);
      try {
        await run(port, WARMUP, 'zones');
        const { latencies, failures } = await run(port, COMMANDS, 'zones');
        rounds[which].push({
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          failures,
        });
      } finally {
        child.kill('SIGTERM');
      }
    }
  }
  const summary = (list: Array<{ p50: number; p99: number; failures: number }>) => ({
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
    failures: list.reduce((sum, r) => sum + r.failures, 0),
  });
  const results = { ours: summary(rounds.ours), bare: summary(rounds.bare) };
  await agent.close();
  await ready.close();

  const { ours, bare } = results;
  return {
    title: 'Slash-command ack latency (HTTP mode)',
    body: [
      `${COMMANDS} signed \`/cdn zones\` commands at concurrency ${CONCURRENCY} after ${WARMUP} warm-up ones, ` +
        'each app in its own process, and the fake Slack and the sandbox in another; latency is until the HTTP 200 (the ack). Ours then lists zones ' +
        'from the sandbox and answers through the response_url; the bare Bolt app only acks. ' +
        `Medians of ${ROUNDS} alternating rounds per app.`,
      '',
      table(
        ['app', 'p50', 'p99', 'non-200'],
        [
          ['cdn-chatops', fmt(ours.p50), fmt(ours.p99), ours.failures],
          ['bare Bolt app', fmt(bare.p50), fmt(bare.p99), bare.failures],
        ],
      ),
      '',
      `p99 ours / bare: **${(ours.p99 / bare.p99).toFixed(2)}×** (target: within 1.5×).`,
    ].join('\n'),
  };
}
